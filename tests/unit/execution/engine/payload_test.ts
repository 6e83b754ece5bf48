import { hexToBytes } from "../../../../lib/common/bytes.ts";
import {
  blockToPayload,
  callableL1InfoFormat,
  payloadToBlock,
  requestsHash,
} from "../../../../lib/execution/engine/mod.ts";
import {
  EMPTY_REQUESTS_HASH,
  EMPTY_TRIE_ROOT,
  hashHeader,
  L1_INFO_SELECTORS,
} from "../../../../lib/protocol/mod.ts";
import { assert, assertEquals } from "../../../assert.ts";

Deno.test("payload: block -> payload -> block keeps the header and its hash", () => {
  const payload = {
    parentHash: new Uint8Array(32).fill(1),
    feeRecipient: new Uint8Array(20).fill(2),
    stateRoot: new Uint8Array(32).fill(3),
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: new Uint8Array(256),
    prevRandao: new Uint8Array(32).fill(5),
    blockNumber: 9n,
    gasLimit: 30_000_000n,
    gasUsed: 0n,
    timestamp: 100n,
    extraData: new Uint8Array(),
    baseFeePerGas: 7n,
    blockHash: new Uint8Array(32),
    transactions: [],
    withdrawals: [{ index: 1n, validatorIndex: 2n, address: new Uint8Array(20).fill(9), amount: 3n }],
    blobGasUsed: 0n,
    excessBlobGas: 0n,
  };
  const block = payloadToBlock(payload, { parentBeaconBlockRoot: new Uint8Array(32), executionRequests: [] });
  assertEquals(block.header.transactionsRoot, EMPTY_TRIE_ROOT);
  assert(block.header.withdrawalsRoot !== undefined);
  assert(
    !block.header.withdrawalsRoot!.every((b, i) => b === EMPTY_TRIE_ROOT[i]),
    "a non-empty withdrawals root",
  );
  assertEquals(block.header.requestsHash, EMPTY_REQUESTS_HASH);
  const hash = hashHeader(block.header);
  const again = blockToPayload(block, hash);
  assertEquals(again.withdrawals, payload.withdrawals);
  assertEquals(again.blockHash, hash);
  assertEquals(
    hashHeader(
      payloadToBlock(again, {
        parentBeaconBlockRoot: new Uint8Array(32),
        executionRequests: [],
      }).header,
    ),
    hash,
  );
});

Deno.test("payload: EIP-7685 requests hash", () => {
  assertEquals(requestsHash([]), EMPTY_REQUESTS_HASH);
  // A request with only a type byte is skipped (EIP-7685: empty requests are excluded).
  assertEquals(requestsHash([new Uint8Array([1])]), EMPTY_REQUESTS_HASH);
  assert(requestsHash([hexToBytes("0x0001")]).length === 32);
});

Deno.test("dev miner: the L1-info format falls back to what the deployed L1Block can call", () => {
  const code = (sel: Uint8Array) => new Uint8Array([0x60, 0x00, 0x63, ...sel, 0x14]);
  assertEquals(callableL1InfoFormat(code(L1_INFO_SELECTORS.ecotone), "isthmus"), "ecotone");
  assertEquals(callableL1InfoFormat(code(L1_INFO_SELECTORS.isthmus), "isthmus"), "isthmus");
  assertEquals(callableL1InfoFormat(code(L1_INFO_SELECTORS.jovian), "ecotone"), "bedrock");
  assertEquals(callableL1InfoFormat(new Uint8Array(), "jovian"), "bedrock");
});
