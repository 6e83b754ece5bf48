import { Address } from "@ethereumjs/util";
import { sha256 } from "@noble/hashes/sha2.js";
import { assertEquals, assertRejects, assertThrows } from "../../../assert.ts";
import { bigIntToBytes, concatBytes } from "../../../../lib/common/bytes.ts";
import { BaseError } from "../../../../lib/common/errors.ts";
import { EMPTY_REQUESTS_HASH } from "../../../../lib/protocol/block.ts";
import type { ChainConfig } from "../../../../lib/protocol/chain_config.ts";
import {
  BlockBuilder,
  checkRequestList,
  computeRequestsHash,
  CONSOLIDATION_REQUEST_ADDRESS,
  DEPOSIT_EVENT_TOPIC,
  depositRequestFromLog,
  depositRequests,
  importBlock,
  SYSTEM_ADDRESS,
  WITHDRAWAL_REQUEST_ADDRESS,
} from "../../../../lib/execution/evm/mod.ts";
import {
  attributes,
  ETHER,
  FEES,
  fund,
  genesisHeader,
  installL1SystemContracts,
  l1Config,
  newState,
  opConfig,
  SENDER,
  setL1Block,
  transfer,
} from "./helpers.ts";

const DEPOSIT_CONTRACT = new Uint8Array(20).fill(0xdc);
const PUBKEY = new Uint8Array(48).fill(0xab);
const CREDENTIALS = new Uint8Array(32).fill(0x01);
const SIGNATURE = new Uint8Array(96).fill(0x5e);

/** ABI encoding of DepositEvent(bytes pubkey, bytes withdrawal_credentials, bytes amount, bytes signature, bytes index). */
function depositLogData(amount: Uint8Array, index: Uint8Array): Uint8Array {
  const word = (n: number) => bigIntToBytes(BigInt(n), 32);
  const field = (b: Uint8Array) => {
    const padded = new Uint8Array(Math.ceil(b.length / 32) * 32);
    padded.set(b);
    return concatBytes(word(b.length), padded);
  };
  return concatBytes(
    word(160),
    word(256),
    word(320),
    word(384),
    word(512),
    field(PUBKEY),
    field(CREDENTIALS),
    field(amount),
    field(SIGNATURE),
    field(index),
  );
}

/** CALLDATACOPY the whole input to memory, LOG1(0, size, DepositEvent topic), STOP. */
const DEPOSIT_EMITTER = concatBytes(
  new Uint8Array([0x36, 0x5f, 0x5f, 0x37, 0x7f]),
  DEPOSIT_EVENT_TOPIC,
  new Uint8Array([0x36, 0x5f, 0xa1, 0x00]),
);

function l1WithDeposits(): ChainConfig {
  return {
    ...l1Config(),
    extras: { blockForks: {}, depositContractAddress: DEPOSIT_CONTRACT },
  } as ChainConfig;
}

async function l1State(config: ChainConfig) {
  const sm = newState();
  await installL1SystemContracts(sm);
  await fund(sm, SENDER, ETHER);
  await sm.putCode(new Address(DEPOSIT_CONTRACT), DEPOSIT_EMITTER);
  await sm.getStateRoot();
  return { sm, parent: genesisHeader(config, "l1", await sm.getStateRoot()) };
}

Deno.test("requests: EIP-7685 hash skips empty requests; no requests is sha256 of nothing", () => {
  assertEquals(computeRequestsHash([]), EMPTY_REQUESTS_HASH);
  assertEquals(computeRequestsHash([new Uint8Array([1])]), EMPTY_REQUESTS_HASH);
  const a = new Uint8Array([0, 1, 2]);
  const b = new Uint8Array([2, 9]);
  assertEquals(computeRequestsHash([a, b]), sha256(concatBytes(sha256(a), sha256(b))));
});

Deno.test("requests: the Engine API list must ascend by type with data in each element", () => {
  checkRequestList([new Uint8Array([0, 1]), new Uint8Array([2, 1])]);
  assertThrows(() => checkRequestList([new Uint8Array([1])]), BaseError, "request 0 has 1 bytes");
  assertThrows(
    () => checkRequestList([new Uint8Array([1, 5]), new Uint8Array([1, 6])]),
    BaseError,
    "types must ascend",
  );
  assertThrows(
    () => checkRequestList([new Uint8Array([2, 5]), new Uint8Array([0, 6])]),
    BaseError,
    "type 0 after type 2",
  );
});

Deno.test("requests: a DepositEvent log becomes pubkey ++ credentials ++ amount ++ signature ++ index", () => {
  const amount = new Uint8Array(8).fill(3);
  const index = new Uint8Array(8).fill(4);
  const request = depositRequestFromLog(depositLogData(amount, index));
  assertEquals(request, concatBytes(PUBKEY, CREDENTIALS, amount, SIGNATURE, index));
  assertEquals(request.length, 192);
  const bad = depositLogData(amount, index);
  bad[31] = 161; // pubkey offset
  assertThrows(() => depositRequestFromLog(bad), BaseError, "pubkey offset is 161");
  assertThrows(() => depositRequestFromLog(new Uint8Array(575)), BaseError, "data length is 575");
  const logs = [
    { address: DEPOSIT_CONTRACT, topics: [DEPOSIT_EVENT_TOPIC], data: depositLogData(amount, index) },
    { address: new Uint8Array(20), topics: [DEPOSIT_EVENT_TOPIC], data: new Uint8Array(3) },
  ];
  assertEquals(depositRequests(logs, DEPOSIT_CONTRACT), concatBytes(new Uint8Array([0]), request));
  assertEquals(depositRequests(logs.slice(1), DEPOSIT_CONTRACT), undefined);
});

Deno.test("block builder (L1 Prague): deposit and EIP-7002 withdrawal requests go into requestsHash; import agrees", async () => {
  const config = l1WithDeposits();
  const { sm, parent } = await l1State(config);
  const replica = await l1State(config);
  const b = await BlockBuilder.open(config, parent, attributes("l1"), { stateManager: sm });
  const amount = new Uint8Array(8).fill(7);
  const index = new Uint8Array(8).fill(0);
  await b.addTransaction(
    transfer(config, 2n, 0n, {
      to: DEPOSIT_CONTRACT,
      value: 0n,
      gasLimit: 200_000n,
      data: depositLogData(amount, index),
    }),
  );
  // EIP-7002 add request: 48-byte pubkey ++ 8-byte big-endian amount, value >= fee (1 wei at excess 0).
  const gwei = 32_000_000_000n;
  await b.addTransaction(
    transfer(config, 2n, 1n, {
      to: WITHDRAWAL_REQUEST_ADDRESS,
      value: 1n,
      gasLimit: 300_000n,
      data: concatBytes(PUBKEY, bigIntToBytes(gwei, 8)),
    }),
  );
  const sealed = await b.seal();
  const requests = sealed.requests!;
  assertEquals(requests.length, 2);
  assertEquals(requests[0], concatBytes(new Uint8Array([0]), PUBKEY, CREDENTIALS, amount, SIGNATURE, index));
  // EIP-7002 dequeue: source address ++ validator pubkey ++ amount (little-endian uint64), type 0x01.
  assertEquals(
    requests[1],
    concatBytes(new Uint8Array([1]), SENDER, PUBKEY, bigIntToBytes(gwei, 8).reverse()),
  );
  assertEquals(sealed.block.header.requestsHash, computeRequestsHash(requests));

  const imported = await importBlock(config, parent, sealed.block, { stateManager: replica.sm });
  assertEquals(imported.stateRoot, sealed.stateRoot);

  const third = await l1State(config);
  const forged = {
    ...sealed.block,
    header: { ...sealed.block.header, requestsHash: computeRequestsHash([requests[0]]) },
  };
  const err = await assertRejects(
    () => importBlock(config, parent, forged, { stateManager: third.sm }),
    BaseError,
    "requestsHash mismatch",
  );
  assertEquals((err as BaseError).meta?.field, "requestsHash");
  assertEquals(await third.sm.getStateRoot(), parent.stateRoot);
});

Deno.test("block builder (L1 Prague): no request leaves the empty requests hash, and the queue contracts run", async () => {
  const config = l1Config();
  const { sm, parent } = await l1State(config);
  const sealed = await (await BlockBuilder.open(config, parent, attributes("l1"), { stateManager: sm }))
    .seal();
  assertEquals(sealed.requests, []);
  assertEquals(sealed.block.header.requestsHash, EMPTY_REQUESTS_HASH);
  // The system calls leave no trace of SYSTEM_ADDRESS (EIP-4788 system call rules).
  assertEquals(await sm.getAccount(new Address(SYSTEM_ADDRESS)), undefined);
});

Deno.test("block builder (L1 Prague): a queue contract without code fails the block (geth: empty system contract)", async () => {
  const config = l1Config();
  const { sm, parent } = await l1State(config);
  await sm.putCode(new Address(CONSOLIDATION_REQUEST_ADDRESS), new Uint8Array());
  await sm.getStateRoot();
  const root = await sm.getStateRoot();
  const b = await BlockBuilder.open(config, parent, attributes("l1"), { stateManager: sm });
  await assertRejects(() => b.seal(), BaseError, "empty system contract");
  assertEquals(await sm.getStateRoot(), root);

  // Import of a block built where the contract exists: INVALID_BLOCK naming "requests".
  const good = await l1State(config);
  const sealed = await (await BlockBuilder.open(config, good.parent, attributes("l1"), {
    stateManager: good.sm,
  })).seal();
  const err = await assertRejects(
    () => importBlock(config, good.parent, sealed.block, { stateManager: sm }),
    BaseError,
    "no code at",
  );
  assertEquals((err as BaseError).meta?.field, "requests");
});

Deno.test("block builder (Isthmus): OP chains keep the empty requests hash and make no system calls", async () => {
  const config = opConfig("isthmus");
  const sm = newState();
  await setL1Block(sm, FEES);
  await fund(sm, SENDER, ETHER);
  await installL1SystemContracts(sm);
  const before = (await sm.getAccount(new Address(WITHDRAWAL_REQUEST_ADDRESS)))!.storageRoot;
  const sealed =
    await (await BlockBuilder.open(config, genesisHeader(config, "isthmus"), attributes("isthmus"), {
      stateManager: sm,
    })).seal();
  assertEquals(sealed.block.header.requestsHash, EMPTY_REQUESTS_HASH);
  assertEquals(sealed.requests, undefined);
  assertEquals((await sm.getAccount(new Address(WITHDRAWAL_REQUEST_ADDRESS)))!.storageRoot, before);
});
