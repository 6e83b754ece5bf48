/**
 * The output proposer (op-proposer; specs/protocol/proposals.md "L2 Output Root Proposals"): every
 * `submissionInterval` L2 blocks, once the block is safe, it submits the block's output root to the
 * L2OutputOracle (`proposeL2Output(outputRoot, l2BlockNumber, l1BlockHash, l1BlockNumber)`, from the
 * proposer address), so withdrawals from L2 can be proven on L1. The L1 block hash is left zero (the
 * oracle then skips its check of a recent L1 block).
 */
import { decodeFunctionResult, encodeFunctionData, type Hex, parseAbi } from "viem";
import { bytesToHex, hexToBytes } from "../common/bytes.ts";
import type { JsonRpcClient } from "../common/json_rpc_client.ts";
import { getLogger } from "../common/logger.ts";
import { L1TxSender, StepLoop } from "./l1_sender.ts";

const ORACLE_ABI = parseAbi([
  "function nextBlockNumber() view returns (uint256)",
  "function proposeL2Output(bytes32 _outputRoot, uint256 _l2BlockNumber, bytes32 _l1BlockHash, uint256 _l1BlockNumber) payable",
]);

export interface ProposerDeps {
  l1: JsonRpcClient;
  l1ChainId: bigint;
  /** The proposer's key (the oracle's proposer). */
  key: Uint8Array;
  oracle: Uint8Array;
  /** The safe L2 head's number. */
  safeNumber: () => bigint;
  /** The output root of an L2 block. */
  outputRoot: (number: bigint) => Promise<Uint8Array>;
}

export interface ProposerOptions {
  pollIntervalMs: number;
}

export class Proposer {
  readonly #deps: ProposerDeps;
  readonly options: ProposerOptions;
  readonly #log = getLogger(["proposer"]);
  readonly #sender: L1TxSender;
  readonly #loop: StepLoop;
  /** Outputs proposed. */
  proposed = 0;

  constructor(deps: ProposerDeps, options: Partial<ProposerOptions> = {}) {
    this.#deps = deps;
    this.options = { pollIntervalMs: 2_000, ...options };
    this.#sender = new L1TxSender(deps.l1, deps.l1ChainId, deps.key);
    this.#loop = new StepLoop(
      () => this.step(),
      this.options.pollIntervalMs,
      (e) => this.#log.warn("Output proposal failed: {message}", { message: e.message }),
    );
  }

  start(): void {
    this.#loop.start();
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** Proposes the next output when its block is safe; true when it did. */
  async step(): Promise<boolean> {
    const { l1 } = this.#deps;
    const oracle = bytesToHex(this.#deps.oracle);
    const raw = await l1.call<Hex>("eth_call", [
      { to: oracle, data: encodeFunctionData({ abi: ORACLE_ABI, functionName: "nextBlockNumber" }) },
      "latest",
    ]);
    const next = decodeFunctionResult({
      abi: ORACLE_ABI,
      functionName: "nextBlockNumber",
      data: raw,
    }) as bigint;
    if (this.#deps.safeNumber() < next) return false;
    const root = await this.#deps.outputRoot(next);
    const data = encodeFunctionData({
      abi: ORACLE_ABI,
      functionName: "proposeL2Output",
      args: [bytesToHex(root) as Hex, next, `0x${"00".repeat(32)}`, 0n],
    });
    await this.#sender.send(this.#deps.oracle, hexToBytes(data), "Output proposal", {
      timeoutMs: 120_000,
      stopped: () => this.#loop.stopped,
    });
    this.proposed++;
    this.#log.info("Proposed output", { l2Block: Number(next), outputRoot: bytesToHex(root) });
    return true;
  }
}
