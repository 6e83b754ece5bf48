import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import {
  createAccessList2930Tx,
  createBlob4844Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  createTxFromRLP,
  type TypedTransaction,
} from "@ethereumjs/tx";
import { eoaCode7702SignAuthorization } from "@ethereumjs/util";
import { assert, assertEquals } from "../../../assert.ts";
import { bytesToHex, concatBytes, hexToBytes } from "../../../../lib/common/bytes.ts";
import { isErrorCode } from "../../../../lib/common/errors.ts";
import { rlpDecode, rlpEncode, type RlpInput } from "../../../../lib/common/rlp.ts";
import { decodeSignedTx, ensureKzg, forkRules, txCommon } from "../../../../lib/execution/evm/mod.ts";
import { GWEI, KEY, l1Config, RECIPIENT } from "./helpers.ts";

const config = l1Config(); // chain 900 on Prague: every transaction type
await ensureKzg(config, 0n); // type 3 needs a KZG implementation on the Common (canonical form only uses its presence)
const plain = forkRules(config, 0n).common;
const common = txCommon(plain); // what block import passes

type Hex = `0x${string}`;
const STORAGE_KEY: Hex = `0x${"01".repeat(32)}`;
const ACCESS_LIST = [{ address: `0x${"cc".repeat(20)}` as Hex, storageKeys: [STORAGE_KEY] }];
const VERSIONED_HASH: Hex = `0x01${"ab".repeat(31)}`;

/** One signed transaction of each kind, by name. */
function samples(): Record<string, TypedTransaction> {
  const frontier = new Common({ chain: Mainnet, hardfork: Hardfork.TangerineWhistle });
  const base = { nonce: 7n, gasLimit: 50_000n, to: RECIPIENT, value: 1000n, data: hexToBytes("0xabcdef") };
  const fees = { maxFeePerGas: 3n * GWEI, maxPriorityFeePerGas: GWEI };
  const authorization = eoaCode7702SignAuthorization(
    { chainId: "0x384", address: `0x${"dd".repeat(20)}`, nonce: "0x8" },
    KEY,
  );
  return {
    "legacy, pre-EIP-155": createLegacyTx({ ...base, gasPrice: GWEI }, { common: frontier }).sign(KEY),
    "legacy, EIP-155": createLegacyTx({ ...base, gasPrice: GWEI }, { common: plain }).sign(KEY),
    "legacy, contract creation": createLegacyTx(
      { ...base, to: undefined, gasLimit: 100_000n, gasPrice: GWEI },
      { common: plain },
    ).sign(KEY),
    "EIP-2930": createAccessList2930Tx(
      { ...base, chainId: 900n, gasPrice: GWEI, accessList: [...ACCESS_LIST] },
      { common: plain },
    ).sign(KEY),
    "EIP-1559": createFeeMarket1559Tx({ ...base, ...fees, chainId: 900n }, { common: plain }).sign(KEY),
    "EIP-1559, access list, zero nonce and value": createFeeMarket1559Tx(
      {
        ...base,
        ...fees,
        nonce: 0n,
        value: 0n,
        data: new Uint8Array(300).fill(7),
        accessList: [...ACCESS_LIST],
      },
      { common: plain },
    ).sign(KEY),
    "EIP-4844": createBlob4844Tx(
      { ...base, ...fees, chainId: 900n, maxFeePerBlobGas: 10n, blobVersionedHashes: [VERSIONED_HASH] },
      { common: plain },
    ).sign(KEY),
    "EIP-7702": createEOACode7702Tx(
      { ...base, ...fees, chainId: 900n, accessList: [...ACCESS_LIST], authorizationList: [authorization] },
      { common: plain },
    ).sign(KEY),
  };
}

function assertSameTx(ours: TypedTransaction, theirs: TypedTransaction, name: string): void {
  assert(ours.constructor === theirs.constructor, `${name}: ${ours.constructor.name}`);
  assertEquals(ours.type, theirs.type, name);
  assertEquals(bytesToHex(ours.serialize()), bytesToHex(theirs.serialize()), name);
  assertEquals(bytesToHex(ours.hash()), bytesToHex(theirs.hash()), name);
  assertEquals(ours.raw(), theirs.raw(), name);
  assertEquals(ours.toJSON(), theirs.toJSON(), name);
  assertEquals(Object.isFrozen(ours), Object.isFrozen(theirs), name);
}

/** Runs `fn`; the error it throws, or undefined. */
function thrown(fn: () => unknown): Error | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    return e as Error;
  }
}

/**
 * Both reject, with the same message for transaction-level errors; a malformed RLP is our BaseError
 * RLP_INVALID where @ethereumjs/rlp says "invalid RLP".
 */
function assertSameRejection(input: Uint8Array, c: Common, name: string): string {
  const ours = thrown(() => decodeSignedTx(input, c));
  const theirs = thrown(() => createTxFromRLP(input, { common: c }));
  assert(theirs !== undefined, `${name}: createTxFromRLP accepts it`);
  assert(ours !== undefined, `${name}: decodeSignedTx accepts it (createTxFromRLP: ${theirs.message})`);
  if (isErrorCode(ours, "RLP_INVALID")) {
    assert(/invalid RLP/.test(theirs.message), `${name}: ${ours.message} / ${theirs.message}`);
    assert(ours.message.startsWith("Cannot decode RLP: "), name);
  } else {
    assertEquals(ours.message, theirs.message, name);
    assertEquals(ours.constructor, theirs.constructor, name);
  }
  return ours.message;
}

Deno.test("decodeSignedTx equals createTxFromRLP for every transaction type", () => {
  for (const [name, tx] of Object.entries(samples())) {
    const raw = tx.serialize();
    const ours = decodeSignedTx(raw, common);
    const theirs = createTxFromRLP(raw, { common });
    assertSameTx(ours, theirs, name);
    assertEquals(bytesToHex(ours.hash()), bytesToHex(tx.hash()), name);
    assertEquals(ours.getSenderAddress().toString(), theirs.getSenderAddress().toString(), name);
    assertEquals(ours.getSenderAddress().toString(), tx.getSenderAddress().toString(), name);
    // also with a Common the constructors copy (not the shared txCommon view)
    assertSameTx(decodeSignedTx(raw, plain), createTxFromRLP(raw, { common: plain }), name);
  }
});

Deno.test("decodeSignedTx: the samples cover pre-EIP-155 and EIP-155 legacy, 7702 with an authorization", () => {
  const s = samples();
  const pre = decodeSignedTx(s["legacy, pre-EIP-155"].serialize(), common);
  assert(pre.v === 27n || pre.v === 28n);
  const eip155 = decodeSignedTx(s["legacy, EIP-155"].serialize(), common);
  assert(eip155.v === 900n * 2n + 35n || eip155.v === 900n * 2n + 36n);
  const auth = decodeSignedTx(s["EIP-7702"].serialize(), common) as unknown as {
    authorizationList: Uint8Array[][];
  };
  assertEquals(auth.authorizationList.length, 1);
  assertEquals(bytesToHex(auth.authorizationList[0][1]), "0x" + "dd".repeat(20));
  const blob = decodeSignedTx(s["EIP-4844"].serialize(), common) as unknown as {
    blobVersionedHashes: string[];
  };
  assertEquals(blob.blobVersionedHashes, [VERSIONED_HASH]);
});

Deno.test("decodeSignedTx passes options through (freeze, allowUnlimitedInitCodeSize)", () => {
  const raw = samples()["EIP-1559"].serialize();
  const unfrozen = decodeSignedTx(raw, common, { freeze: false });
  assertSameTx(unfrozen, createTxFromRLP(raw, { common, freeze: false }), "unfrozen");
  assertEquals(Object.isFrozen(unfrozen), false);
  const create = createFeeMarket1559Tx({
    chainId: 900n,
    gasLimit: 30_000_000n,
    maxFeePerGas: GWEI,
    data: new Uint8Array(50_000),
  }, { common: plain, allowUnlimitedInitCodeSize: true }).sign(KEY);
  const big = create.serialize();
  assertSameRejection(big, common, "initcode over the EIP-3860 limit");
  assertSameTx(
    decodeSignedTx(big, common, { allowUnlimitedInitCodeSize: true }),
    createTxFromRLP(big, { common, allowUnlimitedInitCodeSize: true }),
    "unlimited initcode",
  );
});

/** `type || rlp(fields)` with field `i` replaced. */
function withField(raw: Uint8Array, i: number, value: RlpInput): Uint8Array {
  const fields = rlpDecode(raw.subarray(1)) as RlpInput[];
  const copy = [...fields];
  copy[i] = value;
  return concatBytes(raw.subarray(0, 1), rlpEncode(copy));
}

Deno.test("decodeSignedTx rejects what createTxFromRLP rejects", () => {
  const s = samples();
  const eip1559 = s["EIP-1559"].serialize();
  const legacy = s["legacy, EIP-155"].serialize();
  const blob = s["EIP-4844"].serialize();
  const fields1559 = rlpDecode(eip1559.subarray(1)) as Uint8Array[];
  const noKzg = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun });
  const cases: [string, Uint8Array, Common, string][] = [
    ["empty input", new Uint8Array(), common, "Must be array"],
    ["type byte only", new Uint8Array([2]), common, "must be array"],
    ["truncated typed", eip1559.subarray(0, eip1559.length - 1), common, "RLP"],
    ["truncated legacy", legacy.subarray(0, legacy.length - 3), common, "RLP"],
    ["trailing byte, typed", concatBytes(eip1559, new Uint8Array([0])), common, "RLP"],
    ["trailing byte, legacy", concatBytes(legacy, new Uint8Array([0x80])), common, "RLP"],
    ["unknown type 5", concatBytes(new Uint8Array([5]), eip1559.subarray(1)), common, "ID 5 unknown"],
    ["type 0", concatBytes(new Uint8Array([0]), eip1559.subarray(1)), common, "ID 0 unknown"],
    ["deposit type 0x7e", concatBytes(new Uint8Array([0x7e]), eip1559.subarray(1)), common, "ID 126 unknown"],
    [
      "typed payload not a list",
      concatBytes(new Uint8Array([2]), RLP.encode("dog")),
      common,
      "must be array",
    ],
    ["legacy not a list", RLP.encode("dog"), common, "Must be array"],
    [
      "1559 payload in a 2930 envelope",
      concatBytes(new Uint8Array([1]), eip1559.subarray(1)),
      common,
      "11 values",
    ],
    [
      "too many fields",
      concatBytes(new Uint8Array([2]), rlpEncode([...fields1559, new Uint8Array()])),
      common,
      "12",
    ],
    ["nonce with a leading zero", withField(eip1559, 1, new Uint8Array([0, 7])), common, "leading zero"],
    ["chainId as a list", withField(eip1559, 0, [new Uint8Array([3])]), common, "chainId cannot be an array"],
    ["other chain id", withField(eip1559, 0, new Uint8Array([1])), common, "chain ID"],
    ["non-canonical RLP field", hexToBytes("0x02" + "cc8105" + "00".repeat(11)), common, "RLP"],
    ["blob tx without KZG", blob, noKzg, "customCrypto.kzg"],
    [
      "blob network wrapper",
      concatBytes(new Uint8Array([3]), rlpEncode([rlpDecode(blob.subarray(1)) as RlpInput[], [], [], []])),
      common,
      "Only expecting 11 values",
    ],
    ["y-parity 2", withField(eip1559, 9, new Uint8Array([2])), common, "y-parity"],
  ];
  for (const [name, input, c, expected] of cases) {
    const message = assertSameRejection(input, c, name);
    assert(message.includes(expected), `${name}: ${message}`);
  }
});

/** Deterministic pseudo-random numbers (xorshift32). */
function rng(seed: number): (n: number) => number {
  let s = seed >>> 0 || 1;
  return (n: number) => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s % n;
  };
}

Deno.test("fuzz: mutated transactions are accepted iff createTxFromRLP accepts them, and decode the same", () => {
  const r = rng(0x7ec0de);
  let accepted = 0;
  let rejected = 0;
  for (const [name, tx] of Object.entries(samples())) {
    const raw = tx.serialize();
    for (let i = 0; i < 150; i++) {
      const bad = Uint8Array.from(raw);
      // half of the edits hit the envelope and the first fields, where the structure is
      const at = r(2) === 0 ? r(Math.min(raw.length, 24)) : r(raw.length);
      const kind = r(3);
      if (kind === 0) bad[at] ^= 1 << r(8);
      else if (kind === 1) bad[at] = [0x00, 0x01, 0x7f, 0x80, 0x81, 0xb8, 0xc0, 0xf8, 0xff][r(9)];
      else bad[at] = r(256);
      const label = `${name} byte ${at}`;
      const ours = thrown(() => decodeSignedTx(bad, common));
      const theirs = thrown(() => createTxFromRLP(bad, { common }));
      assertEquals(
        ours === undefined,
        theirs === undefined,
        `${label}: ${ours?.message} / ${theirs?.message}`,
      );
      if (ours === undefined) {
        accepted++;
        const [a, b] = [decodeSignedTx(bad, common), createTxFromRLP(bad, { common })];
        assertSameTx(a, b, label);
        const senders = [a, b].map((t) => {
          const e = thrown(() => t.getSenderAddress());
          return e === undefined ? t.getSenderAddress().toString() : `error: ${e.message}`;
        });
        assertEquals(senders[0], senders[1], label);
      } else {
        rejected++;
        assertSameRejection(bad, common, label);
      }
    }
  }
  assert(accepted > 300 && rejected > 300, `accepted ${accepted}, rejected ${rejected}`);
});

/** The same own properties, in the same order, with equal values, on the same prototype. */
function assertSameObject(ours: TypedTransaction, theirs: TypedTransaction, name: string): void {
  assert(Object.getPrototypeOf(ours) === Object.getPrototypeOf(theirs), name);
  assertEquals(Object.keys(ours), Object.keys(theirs), name);
  for (const key of Object.keys(theirs) as (keyof TypedTransaction)[]) {
    if (key === "common") {
      assertEquals(ours.common.hardfork(), theirs.common.hardfork(), name);
      assertEquals(ours.common.chainId(), theirs.common.chainId(), name);
      assertEquals(ours.common.param("txGas"), theirs.common.param("txGas"), name);
    } else if (key === "txOptions") {
      assertEquals(Object.keys(ours.txOptions).sort(), Object.keys(theirs.txOptions).sort(), name);
    } else assertEquals(ours[key], theirs[key], `${name}: ${key}`);
  }
  assertEquals(Object.isFrozen(ours), Object.isFrozen(theirs), name);
}

Deno.test("decodeSignedTx: EIP-1559 calls without an access list build the constructor's very object", () => {
  const r = rng(1559);
  const big = (bytes: number) => {
    let x = 0n;
    for (let i = 0; i < bytes; i++) x = (x << 8n) | BigInt(r(256));
    return x;
  };
  for (const c of [common, plain]) {
    for (let i = 0; i < 60; i++) {
      const tip = big(r(9));
      const tx = createFeeMarket1559Tx(
        {
          chainId: 900n,
          nonce: i === 0 ? 0n : big(r(9)) % ((1n << 64n) - 1n),
          maxPriorityFeePerGas: tip,
          maxFeePerGas: tip + big(r(9)),
          gasLimit: 21_000n + big(r(4)),
          to: `0x${bytesToHex(Uint8Array.from({ length: 20 }, () => r(256))).slice(2)}`,
          value: i === 1 ? (1n << 256n) - 1n : big(r(33)),
          data: Uint8Array.from({ length: r(3) === 0 ? 0 : r(600) }, () => r(256)),
        },
        { common: plain },
      ).sign(KEY);
      const raw = tx.serialize();
      const name = `tx ${i}`;
      assertSameObject(decodeSignedTx(raw, c), createTxFromRLP(raw, { common: c }), name);
      const unfrozen = decodeSignedTx(raw, c, { freeze: false });
      assertSameObject(unfrozen, createTxFromRLP(raw, { common: c, freeze: false }), `${name}, not frozen`);
      assertEquals(unfrozen.getSenderAddress().toString(), tx.getSenderAddress().toString(), name);
    }
  }
  // The edges of its checks, where the constructor throws (or accepts) instead.
  const raw = samples()["EIP-1559"].serialize();
  const n = (x: bigint) =>
    hexToBytes(`0x${x.toString(16).padStart(x.toString(16).length + (x.toString(16).length % 2), "0")}`);
  const edges: [string, Uint8Array][] = [
    ["nonce 2^64-1", withField(raw, 1, n((1n << 64n) - 1n))],
    ["nonce 2^64-2", withField(raw, 1, n((1n << 64n) - 2n))],
    ["maxFee below the tip", withField(raw, 3, n(1n))],
    ["gasLimit * maxFee above 2^256-1", withField(withField(raw, 3, n(1n << 250n)), 4, n(1n << 10n))],
    ["chain id with a leading zero", withField(raw, 0, new Uint8Array([0, 0x03, 0x84]))],
    ["high s", withField(raw, 11, n(0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a1n))],
    [
      "s at the bound",
      withField(raw, 11, n(0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n)),
    ],
    ["empty r", withField(raw, 10, new Uint8Array())],
    ["contract creation", withField(raw, 5, new Uint8Array())],
    ["19-byte to", withField(raw, 5, new Uint8Array(19).fill(1))],
    ["33-byte value", withField(raw, 6, new Uint8Array(33).fill(1))],
  ];
  for (const [name, input] of edges) {
    const ours = thrown(() => decodeSignedTx(input, common));
    const theirs = thrown(() => createTxFromRLP(input, { common }));
    assertEquals(ours?.message, theirs?.message, name);
    if (theirs === undefined) {
      assertSameObject(decodeSignedTx(input, common), createTxFromRLP(input, { common }), name);
    }
  }
});
