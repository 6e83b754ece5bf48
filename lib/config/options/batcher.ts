/**
 * `keel batcher`: the batch submitter on its own, as op-batcher runs beside op-node (flag names as
 * op-batcher's: --l1-eth-rpc, --l2-eth-rpc, --rollup-rpc, --private-key, --poll-interval,
 * --max-l1-tx-size-bytes, --batch-type, --data-availability-type, --network-timeout). Environment: KEEL_BATCHER_<NAME>.
 */
import { envSuffixOf, KEEL, option, optional, type OptionTable } from "../option.ts";
import { bool, duration, hex32, HTTP_SCHEMES, int, oneOf, RPC_SCHEMES, url } from "../values.ts";
import { LOG_OPTIONS } from "./log.ts";

const group = "Batcher";
const OP_BATCHER = "op-batcher";

function named(name: string): { name: string; env: string } {
  return { name, env: envSuffixOf(`batcher.${name}`) };
}

export const BATCHER_OPTIONS = {
  l1EthRpc: option({
    ...named("l1-eth-rpc"),
    kind: url(RPC_SCHEMES),
    default: "http://127.0.0.1:8545",
    origin: OP_BATCHER,
    group,
    description: "the L1 JSON-RPC the batcher transactions go to",
  }),
  l2EthRpc: optional({
    ...named("l2-eth-rpc"),
    kind: url(RPC_SCHEMES),
    origin: OP_BATCHER,
    group,
    description: "the sequencer's L2 execution JSON-RPC (blocks read with eth_getBlockByNumber); required",
  }),
  rollupRpc: optional({
    ...named("rollup-rpc"),
    kind: url(RPC_SCHEMES),
    origin: OP_BATCHER,
    group,
    description:
      "the sequencer's rollup node RPC (rollup config and safe head: rollupnode_* of keel, optimism_* of op-node); required",
  }),
  privateKey: optional({
    ...named("private-key"),
    kind: hex32,
    origin: OP_BATCHER,
    group,
    secret: true,
    description: "the batcher's key (its address must be the SystemConfig's batcher); required",
  }),
  pollInterval: option({
    ...named("poll-interval"),
    kind: duration,
    default: 6_000,
    origin: OP_BATCHER,
    group,
    description: "how often the L2 head is read for new blocks",
  }),
  maxL1TxSizeBytes: option({
    ...named("max-l1-tx-size-bytes"),
    kind: int(1_000, 130_000, "<bytes>"),
    default: 120_000,
    origin: OP_BATCHER,
    group,
    description: "largest frame of a batcher transaction's calldata (one frame per transaction)",
  }),
  maxBlocksPerChannel: option({
    ...named("max-blocks-per-channel"),
    kind: int(1, 10_000, "<blocks>"),
    default: 100,
    origin: KEEL,
    group,
    description: "most L2 blocks in one channel",
  }),
  batchType: option({
    ...named("batch-type"),
    kind: int(0, 1, "<0|1>"),
    default: 0,
    origin: OP_BATCHER,
    group,
    description: "0: singular batches; 1: one span batch per channel (from Delta)",
  }),
  dataAvailabilityType: option({
    ...named("data-availability-type"),
    kind: oneOf(["calldata", "blobs", "auto"] as const),
    default: "calldata",
    origin: OP_BATCHER,
    group,
    description:
      "calldata: one frame in each transaction's calldata; blobs: one frame in each blob of an EIP-4844 transaction (once L1 is past Ecotone); auto: whichever costs less per byte at L1's fees",
  }),
  targetNumFrames: option({
    ...named("target-num-frames"),
    kind: int(1, 6, "<frames>"),
    default: 1,
    origin: OP_BATCHER,
    group,
    description: "with blobs: frames (blobs) per blob transaction, at most (6 fit any L1 from Cancun)",
  }),
  networkTimeout: option({
    ...named("network-timeout"),
    kind: duration,
    default: 10_000,
    origin: OP_BATCHER,
    group,
    description: "timeout of each JSON-RPC request",
  }),
  txTimeout: option({
    ...named("txmgr.receipt-timeout"),
    kind: duration,
    default: 120_000,
    origin: KEEL,
    group,
    description: "how long to wait for a batcher transaction's receipt before sending it again",
  }),
  altdaEnabled: option({
    ...named("altda.enabled"),
    kind: bool,
    default: false,
    origin: OP_BATCHER,
    group,
    description: "Alt-DA: store each frame on the DA server and send its commitment to the batch inbox",
  }),
  altdaDaServer: optional({
    ...named("altda.da-server"),
    kind: url(HTTP_SCHEMES),
    origin: OP_BATCHER,
    group,
    description: "HTTP address of the DA server; required with --altda.enabled",
  }),
  altdaDaService: option({
    ...named("altda.da-service"),
    kind: bool,
    default: false,
    origin: OP_BATCHER,
    group,
    description: "the DA server makes the commitments (generic); else keccak256 commitments",
  }),
  altdaVerifyOnRead: option({
    ...named("altda.verify-on-read"),
    kind: bool,
    default: true,
    origin: OP_BATCHER,
    group,
    description: "verify input data against commitments",
  }),
  altdaGetTimeoutMs: option({
    ...named("altda.get-timeout"),
    kind: duration,
    default: 0,
    origin: OP_BATCHER,
    group,
    description: "get timeout; 0 means none",
  }),
  altdaPutTimeoutMs: option({
    ...named("altda.put-timeout"),
    kind: duration,
    default: 0,
    origin: OP_BATCHER,
    group,
    description: "put timeout; 0 means none",
  }),
  altdaMaxConcurrentDaRequests: option({
    ...named("altda.max-concurrent-da-requests"),
    kind: int(1, 2 ** 31 - 1),
    default: 1,
    origin: OP_BATCHER,
    group,
    description: "max concurrent DA requests",
  }),
} satisfies OptionTable;

export const BATCHER_OPTION_TABLE = { ...BATCHER_OPTIONS, ...LOG_OPTIONS };
