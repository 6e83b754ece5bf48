/**
 * The unsafe-block gossip codec against specs/protocol/rollup-node-p2p.md and op-node's SSZ layout
 * (op-service/eth/ssz.go): fixed parts of 508/512/528/560 bytes, offsets, little-endian integers,
 * op-node's malicious-data checks (OPB01 and the offset rules), the signing hash and signer, the
 * message id formula, topic names and versions, and the validation order.
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import * as snappy from "snappyjs";
import { bigIntToBytes, bytesToHex, concatBytes, hexToBytes } from "../../../lib/common/bytes.ts";
import { isErrorCode } from "../../../lib/common/errors.ts";
import { keccak256 } from "../../../lib/common/hash.ts";
import type { ExecutionPayload } from "../../../lib/protocol/engine.ts";
import {
  blocksTopic,
  type BlocksTopicVersion,
  blocksTopicVersion,
  decodeGossipBlock,
  decodePayloadSsz,
  encodeGossipBlock,
  encodePayloadSsz,
  gossipMessageId,
  gossipSigningHash,
} from "../../../lib/protocol/gossip_block.ts";
import type { RollupConfig } from "../../../lib/protocol/rollup_config.ts";
import { assert, assertEquals, assertThrows } from "../../assert.ts";

const KEY = hexToBytes("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const SIGNER = hexToBytes("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
const CHAIN = 901n;

function payload(version: BlocksTopicVersion, extra: Partial<ExecutionPayload> = {}): ExecutionPayload {
  return {
    parentHash: new Uint8Array(32).fill(1),
    feeRecipient: new Uint8Array(20).fill(2),
    stateRoot: new Uint8Array(32).fill(3),
    receiptsRoot: new Uint8Array(32).fill(4),
    logsBloom: new Uint8Array(256).fill(5),
    prevRandao: new Uint8Array(32).fill(6),
    blockNumber: 0x0102030405n,
    gasLimit: 30_000_000n,
    gasUsed: 21_000n,
    timestamp: 1_700_000_000n,
    extraData: Uint8Array.of(0, 0, 0, 0, 250, 0, 0, 0, 6),
    baseFeePerGas: 0x0102n,
    blockHash: new Uint8Array(32).fill(7),
    transactions: [Uint8Array.of(0x7e, 1, 2, 3), new Uint8Array(), Uint8Array.of(2, 9, 9)],
    ...(version >= 1 ? { withdrawals: [] } : {}),
    ...(version >= 2 ? { blobGasUsed: 0n, excessBlobGas: 0n } : {}),
    ...(version >= 3 ? { withdrawalsRoot: new Uint8Array(32).fill(8) } : {}),
    ...extra,
  };
}

const u32 = (b: Uint8Array, at: number) => new DataView(b.buffer, b.byteOffset).getUint32(at, true);

Deno.test("gossip SSZ: op-node's layout for each topic version, round-tripped", () => {
  const fixed = [508, 512, 528, 560];
  for (const version of [0, 1, 2, 3] as BlocksTopicVersion[]) {
    const p = payload(version);
    const b = encodePayloadSsz(p, version);
    const f = fixed[version];
    assertEquals(b.length, f + 9 + 3 * 4 + 4 + 0 + 3, `v${version} size`);
    assertEquals(u32(b, 436), f, "extraData offset = fixed part");
    assertEquals(u32(b, 504), f + 9, "transactions offset after extraData");
    if (version >= 1) assertEquals(u32(b, 508), b.length, "withdrawals offset at the end (none)");
    // Little-endian integers: block number at 404, base fee (uint256) at 440.
    assertEquals([...b.subarray(404, 409)], [5, 4, 3, 2, 1]);
    assertEquals([...b.subarray(440, 443)], [2, 1, 0]);
    if (version >= 3) assertEquals(b.subarray(528, 560), new Uint8Array(32).fill(8));
    // Transactions: offsets 12, 16, 16 relative to the list, then the bytes.
    assertEquals([u32(b, f + 9), u32(b, f + 13), u32(b, f + 17)], [12, 16, 16]);
    assertEquals(decodePayloadSsz(b, version), p);
  }
  // Withdrawals: 44 bytes each (index, validator index, address, amount).
  const w = { index: 3n, validatorIndex: 4n, address: new Uint8Array(20).fill(9), amount: 5n };
  const withW = payload(1, { withdrawals: [w, w] });
  const b = encodePayloadSsz(withW, 1);
  assertEquals(b.length - u32(b, 508), 88);
  assertEquals(decodePayloadSsz(b, 1), withW);
});

Deno.test("gossip SSZ: op-node's checks against malicious data", () => {
  const b = encodePayloadSsz(payload(0, { extraData: new Uint8Array(32) }), 0);
  const reject = (data: Uint8Array, version: BlocksTopicVersion, what: string) => {
    const e = assertThrows(() => decodePayloadSsz(data, version));
    assert(isErrorCode(e, "GOSSIP_BLOCK_INVALID"), `${what}: ${e}`);
  };
  // TestOPB01: a transactions offset below the extraData offset.
  const opb01 = b.slice();
  opb01.set(new Uint8Array(4), 504);
  reject(opb01, 0, "OPB01");
  reject(b.subarray(0, 507), 0, "shorter than the fixed part");
  const badExtra = b.slice();
  new DataView(badExtra.buffer).setUint32(436, 509, true);
  reject(badExtra, 0, "extraData offset not at the fixed part");
  const long = encodePayloadSsz(payload(0, { extraData: new Uint8Array(32) }), 0);
  new DataView(long.buffer).setUint32(504, 508 + 33, true);
  reject(long, 0, "extraData above 32 bytes");
  const txs = encodePayloadSsz(payload(0), 0);
  new DataView(txs.buffer).setUint32(517, 13, true);
  reject(txs, 0, "first transaction offset not a multiple of 4");
  const order = encodePayloadSsz(payload(0), 0);
  new DataView(order.buffer).setUint32(521, 11, true);
  reject(order, 0, "transaction offsets out of order");
  const w = encodePayloadSsz(payload(1), 1);
  reject(concatBytes(w, new Uint8Array(43)), 1, "withdrawals not a whole number");
  const many = payload(1, {
    withdrawals: Array.from({ length: 17 }, () => ({
      index: 0n,
      validatorIndex: 0n,
      address: new Uint8Array(20),
      amount: 0n,
    })),
  });
  reject(encodePayloadSsz(many, 1), 1, "17 withdrawals");
  assertThrows(() => encodePayloadSsz(payload(0, { extraData: new Uint8Array(33) }), 0));
});

Deno.test("gossip block: signed over keccak256(domain ++ chain id ++ keccak256(payload)), the signer recovered", () => {
  for (const version of [0, 1, 2, 3] as BlocksTopicVersion[]) {
    const p = payload(version);
    const pbbr = version >= 2 ? new Uint8Array(32).fill(0xbb) : undefined;
    const msg = encodeGossipBlock(p, pbbr, version, CHAIN, KEY);
    const raw = snappy.uncompress(msg);
    // signature(65) ++ [parentBeaconBlockRoot] ++ payload
    const signed = raw.subarray(65);
    assertEquals(
      signed,
      pbbr === undefined ? encodePayloadSsz(p, version) : concatBytes(pbbr, encodePayloadSsz(p, version)),
    );
    const hash = gossipSigningHash(CHAIN, signed);
    assertEquals(
      hash,
      keccak256(concatBytes(new Uint8Array(32), bigIntToBytes(CHAIN, 32), keccak256(signed))),
    );
    // r ++ s ++ y_parity, and r, s as secp256k1 signs the hash with the key (RFC 6979).
    const expected = secp256k1.sign(hash, KEY, { prehash: false, format: "recovered" });
    assertEquals(raw.subarray(0, 64), expected.subarray(1));
    assertEquals(raw[64], expected[0]);
    const { block, signer } = decodeGossipBlock(msg, version, CHAIN);
    assertEquals(bytesToHex(signer), bytesToHex(SIGNER).toLowerCase());
    assertEquals(block.payload, p);
    assertEquals(block.parentBeaconBlockRoot, pbbr);
    // Another chain id recovers another signer.
    assert(bytesToHex(decodeGossipBlock(msg, version, 10n).signer) !== bytesToHex(SIGNER).toLowerCase());
  }
});

Deno.test("gossip block: the validation rules of each topic version, in order", () => {
  const reject = (fn: () => unknown, what: string) => {
    const e = assertThrows(fn);
    assert(isErrorCode(e, "GOSSIP_BLOCK_INVALID"), `${what}: ${e}`);
    return (e as Error).message;
  };
  const pbbr = new Uint8Array(32);
  reject(() => decodeGossipBlock(Uint8Array.of(1, 2, 3), 2, CHAIN), "bad snappy");
  reject(() => decodeGossipBlock(snappy.compress(new Uint8Array(80)), 2, CHAIN), "too short");
  const ok = encodeGossipBlock(payload(2), pbbr, 2, CHAIN, KEY);
  const t = payload(2).timestamp;
  decodeGossipBlock(ok, 2, CHAIN, { now: t + 60n });
  decodeGossipBlock(ok, 2, CHAIN, { now: t - 5n });
  assert(reject(() => decodeGossipBlock(ok, 2, CHAIN, { now: t + 61n }), "old").includes("60 s"));
  assert(reject(() => decodeGossipBlock(ok, 2, CHAIN, { now: t - 6n }), "future").includes("5 s"));
  // --p2p.gossip.timestamp.threshold moves the age limit.
  decodeGossipBlock(ok, 2, CHAIN, { now: t + 120n, maxAge: 120n });
  assert(
    reject(() => decodeGossipBlock(ok, 2, CHAIN, { now: t + 11n, maxAge: 10n }), "old").includes("10 s"),
  );
  const w = { index: 0n, validatorIndex: 0n, address: new Uint8Array(20), amount: 0n };
  reject(
    () =>
      decodeGossipBlock(
        encodeGossipBlock(payload(1, { withdrawals: [w] }), undefined, 1, CHAIN, KEY),
        1,
        CHAIN,
      ),
    "withdrawals",
  );
  const blob = encodeGossipBlock(payload(2, { blobGasUsed: 1n }), pbbr, 2, CHAIN, KEY);
  reject(() => decodeGossipBlock(blob, 2, CHAIN), "blobGasUsed");
  decodeGossipBlock(blob, 2, CHAIN, { jovian: true }); // the DA footprint from Jovian
  reject(
    () =>
      decodeGossipBlock(encodeGossipBlock(payload(2, { excessBlobGas: 1n }), pbbr, 2, CHAIN, KEY), 2, CHAIN),
    "excessBlobGas",
  );
  // A y_parity other than 0 or 1.
  const raw = snappy.uncompress(ok);
  raw[64] = 27;
  reject(() => decodeGossipBlock(snappy.compress(raw), 2, CHAIN), "y_parity");
  // A v3+ block must carry the parent beacon block root.
  assertThrows(() => encodeGossipBlock(payload(2), undefined, 2, CHAIN, KEY));
});

Deno.test("gossip: message ids (SHA256 of a domain and the data, 20 bytes) and topics", () => {
  const data = snappy.compress(new TextEncoder().encode("block"));
  assertEquals(
    gossipMessageId(data),
    sha256(concatBytes(Uint8Array.of(1, 0, 0, 0), new TextEncoder().encode("block"))).slice(0, 20),
  );
  const bad = Uint8Array.of(0xff, 0xff, 0xff);
  assertEquals(gossipMessageId(bad), sha256(concatBytes(new Uint8Array(4), bad)).slice(0, 20));
  assertEquals(blocksTopic(10n, 3), "/optimism/10/3/blocks");
  const cfg = {
    forks: { regolith: 0n, canyon: 100n, delta: 100n, ecotone: 200n, fjord: 200n, isthmus: 300n },
  } as unknown as RollupConfig;
  assertEquals([0n, 100n, 199n, 200n, 299n, 300n].map((t) => blocksTopicVersion(cfg, t)), [0, 1, 1, 2, 2, 3]);
});
