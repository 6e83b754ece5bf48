import { Address, bigIntToBytes, setLengthLeft } from "@ethereumjs/util";
import { assert, assertEquals, assertNotEquals } from "../../../assert.ts";
import { EMPTY_REQUESTS_HASH, EMPTY_TRIE_ROOT, hashHeader } from "../../../../lib/protocol/block.ts";
import type { OpFork } from "../../../../lib/protocol/hardforks.ts";
import {
  BEACON_ROOTS_ADDRESS,
  CREATE2_DEPLOYER_ADDRESS,
  CREATE2_DEPLOYER_CODE,
  HISTORY_STORAGE_ADDRESS,
  L2_TO_L1_MESSAGE_PASSER_ADDRESS,
} from "../../../../lib/protocol/predeploys.ts";
import { encodeReceipt } from "../../../../lib/protocol/receipt.ts";
import { keccak256 } from "../../../../lib/common/hash.ts";
import { createBlob4844Tx } from "@ethereumjs/tx";
import { BlockBuilder, configureCrypto, forkRules } from "../../../../lib/execution/evm/mod.ts";
import { orderedTrieRoot } from "../../../../lib/protocol/ordered_trie.ts";
import { jumpAnalysisStats } from "../../../../lib/execution/evm/fast_opcodes.ts";
import {
  atLeast,
  attributes,
  balanceOf,
  ETHER,
  FEES,
  fund,
  genesisHeader,
  GWEI,
  installL1SystemContracts,
  l1Config,
  newState,
  opConfig,
  RECIPIENT,
  SENDER,
  setL1Block,
  setStorage,
  transfer,
} from "./helpers.ts";

const SYSTEM_CODE = new Uint8Array([0x00]);

for (const fork of ["bedrock", "canyon", "ecotone", "holocene", "isthmus", "jovian"] as OpFork[]) {
  Deno.test(`block builder (${fork}): header fields of the fork`, async () => {
    const config = opConfig(fork);
    const sm = newState();
    await setL1Block(sm, FEES);
    await fund(sm, SENDER, ETHER);
    await sm.putCode(new Address(BEACON_ROOTS_ADDRESS), SYSTEM_CODE);
    await sm.putCode(new Address(HISTORY_STORAGE_ADDRESS), SYSTEM_CODE);
    await setStorage(sm, L2_TO_L1_MESSAGE_PASSER_ADDRESS, 0n, 1n);
    const parent = genesisHeader(config, fork);
    const attrs = attributes(fork);
    const b = await BlockBuilder.open(config, parent, attrs, { stateManager: sm });
    await b.addTransaction(transfer(config, 2n, 0n));
    await b.addTransaction(transfer(config, 2n, 1n));
    const { block, receipts, stateRoot, hash } = await b.seal();
    const h = block.header;
    assertEquals(h.parentHash, hashHeader(parent));
    assertEquals(h.number, 1n);
    assertEquals(h.timestamp, 2n);
    assertEquals(h.coinbase, attrs.coinbase);
    assertEquals(h.mixHash, attrs.prevRandao);
    assertEquals(h.difficulty, 0n);
    assertEquals(h.nonce, new Uint8Array(8));
    assertEquals(h.gasUsed, 42_000n);
    assertEquals(h.stateRoot, stateRoot);
    assertEquals(h.stateRoot, await sm.getStateRoot());
    assertEquals(hash, hashHeader(h));
    assertEquals(h.transactionsRoot, orderedTrieRoot(block.transactions));
    assertEquals(h.receiptsRoot, orderedTrieRoot(receipts.map((r) => encodeReceipt(r.receipt))));
    assertEquals(receipts[1].receipt.cumulativeGasUsed, 42_000n);
    // Base fee: parent at 1 gwei and empty, elasticity 6, denominator 50 (250 from Canyon).
    const denominator = atLeast(fork, "canyon") ? 250n : 50n;
    assertEquals(h.baseFeePerGas, 1_000_000_000n - 1_000_000_000n / denominator);
    assertEquals(h.withdrawalsRoot === undefined, !atLeast(fork, "canyon"));
    if (atLeast(fork, "isthmus")) {
      const passer = await sm.getAccount(new Address(L2_TO_L1_MESSAGE_PASSER_ADDRESS));
      assertEquals(h.withdrawalsRoot, passer!.storageRoot);
      assertNotEquals(h.withdrawalsRoot, EMPTY_TRIE_ROOT);
      assertEquals(h.requestsHash, EMPTY_REQUESTS_HASH);
    } else if (atLeast(fork, "canyon")) {
      assertEquals(h.withdrawalsRoot, EMPTY_TRIE_ROOT);
      assertEquals(h.requestsHash, undefined);
    }
    assertEquals(block.withdrawals, atLeast(fork, "canyon") ? [] : undefined);
    if (atLeast(fork, "ecotone")) {
      assertEquals(h.excessBlobGas, 0n);
      assertEquals(h.parentBeaconBlockRoot, attrs.parentBeaconBlockRoot);
      if (atLeast(fork, "jovian")) {
        assert(h.blobGasUsed! > 0n, "Jovian blobGasUsed is the DA footprint");
        assertEquals(h.blobGasUsed, receipts.reduce((s, r) => s + (r.l1Fee?.blobGasUsed ?? 0n), 0n));
      } else {
        assertEquals(h.blobGasUsed, 0n);
      }
      // EIP-4788: timestamp and root in the ring buffers.
      const a = new Address(BEACON_ROOTS_ADDRESS);
      assertEquals(await sm.getStorage(a, setLengthLeft(bigIntToBytes(2n), 32)), new Uint8Array([2]));
      assertEquals(
        await sm.getStorage(a, setLengthLeft(bigIntToBytes(2n + 8191n), 32)),
        attrs.parentBeaconBlockRoot,
      );
    } else {
      assertEquals(h.blobGasUsed, undefined);
      assertEquals(h.parentBeaconBlockRoot, undefined);
    }
    const history = await sm.getStorage(new Address(HISTORY_STORAGE_ADDRESS), new Uint8Array(32));
    assertEquals(history.length > 0, atLeast(fork, "isthmus"));
    if (atLeast(fork, "isthmus")) assertEquals(history, hashHeader(parent));
    if (atLeast(fork, "jovian")) assertEquals(h.extraData.length, 17);
    else if (atLeast(fork, "holocene")) {
      assertEquals(h.extraData, new Uint8Array([0, 0, 0, 0, 250, 0, 0, 0, 6]));
    } else assertEquals(h.extraData.length, 0);
  });
}

Deno.test("block builder: the create2deployer appears at the Canyon activation block only", async () => {
  const config = opConfig("regolith");
  config.op!.forks.canyon = 2n;
  const sm = newState();
  const parent = genesisHeader(config, "regolith");
  const b = await BlockBuilder.open(config, parent, attributes("canyon", 2n), { stateManager: sm });
  const { block } = await b.seal();
  assertEquals(await sm.getCode(new Address(CREATE2_DEPLOYER_ADDRESS)), CREATE2_DEPLOYER_CODE);
  assertEquals(block.header.withdrawalsRoot, EMPTY_TRIE_ROOT);
  // A later Canyon block does not touch it again.
  await sm.putCode(new Address(CREATE2_DEPLOYER_ADDRESS), new Uint8Array([1]));
  const b2 = await BlockBuilder.open(config, block.header, attributes("canyon", 4n), { stateManager: sm });
  await b2.seal();
  assertEquals(await sm.getCode(new Address(CREATE2_DEPLOYER_ADDRESS)), new Uint8Array([1]));
});

Deno.test("block builder: abort returns the state to the parent's", async () => {
  const config = opConfig("ecotone");
  const sm = newState();
  await setL1Block(sm, FEES);
  await fund(sm, SENDER, ETHER);
  const root = await sm.getStateRoot();
  const b = await BlockBuilder.open(config, genesisHeader(config, "ecotone"), attributes("ecotone"), {
    stateManager: sm,
  });
  await b.addTransaction(transfer(config, 2n, 0n));
  await b.abort();
  assertEquals(await sm.getStateRoot(), root);
});

Deno.test("block builder (L1 mode): blob transactions count blob gas and burn the blob fee", async () => {
  // Only the KZG object's presence is needed here: versioned hashes without blobs are never verified.
  const kzg = {} as NonNullable<Parameters<typeof configureCrypto>[0]>["kzg"];
  configureCrypto({ kzg });
  try {
    const config = l1Config();
    const sm = newState();
    await installL1SystemContracts(sm);
    await fund(sm, SENDER, ETHER);
    const parent = genesisHeader(config, "l1");
    const b = await BlockBuilder.open(config, parent, attributes("l1"), { stateManager: sm });
    const tx = createBlob4844Tx({
      chainId: config.chainId,
      to: RECIPIENT,
      gasLimit: 21000n,
      maxFeePerGas: 3n * GWEI,
      maxPriorityFeePerGas: 1n,
      maxFeePerBlobGas: 10n,
      blobVersionedHashes: [`0x01${"00".repeat(31)}`, `0x01${"11".repeat(31)}`],
    }, { common: forkRules(config, 2n).common }).sign(new Uint8Array(32).fill(1));
    const r = await b.addTransaction(tx);
    assertEquals(r.blobGasUsed, 2n * 131072n);
    const { block } = await b.seal();
    assertEquals(block.header.blobGasUsed, 2n * 131072n);
    assertEquals(block.header.excessBlobGas, 0n);
    // blob base fee 1 wei (excess 0): sender pays value + gas + blob gas.
    const baseFee = block.header.baseFeePerGas!;
    assertEquals(
      await balanceOf(sm, SENDER),
      ETHER - 21_000n * (baseFee + 1n) - 2n * 131072n,
    );
  } finally {
    configureCrypto(undefined);
  }
});

Deno.test("block builder: BLOCKHASH sees the parent hash and older hashes from getBlockHash", async () => {
  const config = opConfig("canyon");
  const sm = newState();
  await setL1Block(sm, FEES);
  await fund(sm, SENDER, ETHER);
  const probe = new Address(new Uint8Array(20).fill(0x44));
  // SSTORE(0, BLOCKHASH(NUMBER - 1)); SSTORE(1, BLOCKHASH(NUMBER - 2)); STOP
  await sm.putCode(
    probe,
    new Uint8Array([
      0x60,
      1,
      0x43,
      0x03,
      0x40,
      0x60,
      0,
      0x55,
      0x60,
      2,
      0x43,
      0x03,
      0x40,
      0x60,
      1,
      0x55,
      0x00,
    ]),
  );
  const parent = { ...genesisHeader(config, "canyon"), number: 5n };
  const older = new Uint8Array(32).fill(0x77);
  const b = await BlockBuilder.open(config, parent, attributes("canyon"), {
    stateManager: sm,
    getBlockHash: (n) => Promise.resolve(n === 4n ? older : undefined),
  });
  await b.addTransaction(transfer(config, 2n, 0n, { to: probe.bytes, value: 0n, gasLimit: 100_000n }));
  assertEquals(await sm.getStorage(probe, new Uint8Array(32)), hashHeader(parent));
  assertEquals(await sm.getStorage(probe, setLengthLeft(bigIntToBytes(1n), 32)), older);
  await b.abort();
});

Deno.test("block builder: the next block on a state manager reuses its VM, with BLOCKHASH on the new parent", async () => {
  const config = opConfig("canyon");
  const sm = newState();
  await setL1Block(sm, FEES);
  await fund(sm, SENDER, ETHER);
  const probe = new Address(new Uint8Array(20).fill(0x46));
  // MSTORE(0, 0); JUMP to 8; JUMPDEST; SSTORE(NUMBER, BLOCKHASH(NUMBER - 1));
  // SSTORE(NUMBER + 100, BLOCKHASH(NUMBER - 2)); STOP
  await sm.putCode(
    probe,
    new Uint8Array([
      ...[0x60, 0, 0x60, 0, 0x52, 0x60, 8, 0x56, 0x5b],
      ...[0x60, 1, 0x43, 0x03, 0x40, 0x43, 0x55],
      ...[0x60, 2, 0x43, 0x03, 0x40, 0x60, 100, 0x43, 0x01, 0x55, 0x00],
    ]),
  );
  const slot = (n: bigint) => setLengthLeft(bigIntToBytes(n), 32);
  const older = new Uint8Array(32).fill(0x78);
  const getBlockHash = (n: bigint) => Promise.resolve(n === 0n ? older : undefined);
  const call = (timestamp: bigint, nonce: bigint) =>
    transfer(config, timestamp, nonce, { to: probe.bytes, value: 0n, gasLimit: 100_000n });
  const parent = genesisHeader(config, "canyon");
  const b1 = await BlockBuilder.open(config, parent, attributes("canyon", 2n), {
    stateManager: sm,
    getBlockHash,
  });
  await b1.addTransaction(call(2n, 0n));
  const one = await b1.seal();
  const analyses = jumpAnalysisStats.computed;
  const b2 = await BlockBuilder.open(config, one.block.header, attributes("canyon", 4n), {
    stateManager: sm,
    getBlockHash,
  });
  await b2.addTransaction(call(4n, 1n));
  const two = await b2.seal();
  // The same VM (its opcode table's jump analyses are kept), BLOCKHASH on block 1 and through block 2's lookup.
  assertEquals(jumpAnalysisStats.computed, analyses);
  assertEquals(await sm.getStorage(probe, slot(1n)), hashHeader(parent));
  assertEquals(await sm.getStorage(probe, slot(2n)), one.hash);
  assertEquals(await sm.getStorage(probe, slot(102n)), older);
  // A block that fails drops its VM: the next one makes a new VM (and analyses the code again).
  const b3 = await BlockBuilder.open(config, two.block.header, attributes("canyon", 6n), {
    stateManager: sm,
  });
  await b3.addTransaction(call(6n, 2n));
  await b3.abort();
  const b4 = await BlockBuilder.open(config, two.block.header, attributes("canyon", 6n), {
    stateManager: sm,
  });
  await b4.addTransaction(call(6n, 2n));
  await b4.seal();
  assertEquals(jumpAnalysisStats.computed, analyses + 1);
  assertEquals(await sm.getStorage(probe, slot(3n)), two.hash);
  // A caller that changes the VM (onVm) gets a VM of its own.
  let seen: unknown;
  const b5 = await BlockBuilder.open(config, two.block.header, attributes("canyon", 6n), {
    stateManager: sm,
    onVm: (vm) => (seen = vm),
  });
  await b5.abort();
  assert(seen !== undefined);
  const b6 = await BlockBuilder.open(config, two.block.header, attributes("canyon", 6n), {
    stateManager: sm,
  });
  await b6.addTransaction(call(6n, 3n));
  await b6.abort();
  assertEquals(jumpAnalysisStats.computed, analyses + 1);
});

Deno.test("block builder: CALLDATALOAD, SLOAD, MSTORE, KECCAK256 and MLOAD give the stock words in a block", async () => {
  const config = opConfig("isthmus");
  const sm = newState();
  await setL1Block(sm, FEES);
  await fund(sm, SENDER, ETHER);
  const probe = new Address(new Uint8Array(20).fill(0x45));
  const slot5 = (0xdeadbeefn << 200n) | 0x1234n;
  await setStorage(sm, probe.bytes, 5n, slot5);
  // MSTORE(0, CALLDATALOAD(0)); MSTORE(32, SLOAD(5)); SSTORE(0, KECCAK256(0, 64));
  // SSTORE(1, MLOAD(32)); STOP
  await sm.putCode(
    probe,
    new Uint8Array([
      ...[0x60, 0, 0x35, 0x60, 0, 0x52],
      ...[0x60, 5, 0x54, 0x60, 32, 0x52],
      ...[0x60, 64, 0x60, 0, 0x20, 0x60, 0, 0x55],
      ...[0x60, 32, 0x51, 0x60, 1, 0x55, 0x00],
    ]),
  );
  const b = await BlockBuilder.open(config, genesisHeader(config, "isthmus"), attributes("isthmus"), {
    stateManager: sm,
  });
  // 20 bytes of call data: CALLDATALOAD(0) pads them on the right.
  const data = new Uint8Array(20).fill(0xab);
  await b.addTransaction(transfer(config, 2n, 0n, { to: probe.bytes, value: 0n, gasLimit: 200_000n, data }));
  const word0 = new Uint8Array(32);
  word0.set(data);
  const word5 = setLengthLeft(bigIntToBytes(slot5), 32);
  const key = (k: bigint) => setLengthLeft(bigIntToBytes(k), 32);
  assertEquals(await sm.getStorage(probe, key(0n)), keccak256(new Uint8Array([...word0, ...word5])));
  assertEquals(await sm.getStorage(probe, key(1n)), bigIntToBytes(slot5));
  await b.abort();
});
