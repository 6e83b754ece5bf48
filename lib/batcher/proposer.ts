/**
 * The output proposer (op-proposer; specs/protocol/proposals.md "L2 Output Root Proposals"): every
 * `submissionInterval` L2 blocks, once the block is safe, it submits the block's output root to the
 * L2OutputOracle (`proposeL2Output(outputRoot, l2BlockNumber, l1BlockHash, l1BlockNumber)`, from the
 * proposer address), so withdrawals from L2 can be proven on L1. The L1 block hash is left zero (the
 * oracle then skips its check of a recent L1 block).
 */
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { createAddressFromPrivateKey } from "@ethereumjs/util";
import { decodeFunctionResult, encodeFunctionData, type Hex, parseAbi } from "viem";
import { bytesToHex, hexToBytes } from "../common/bytes.ts";
import { BaseError } from "../common/errors.ts";
import type { JsonRpcClient } from "../common/json_rpc_client.ts";
import { getLogger } from "../common/logger.ts";

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
  readonly #common: Common;
  readonly #from: string;
  #stopped = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  /** Outputs proposed. */
  proposed = 0;

  constructor(deps: ProposerDeps, options: Partial<ProposerOptions> = {}) {
    this.#deps = deps;
    this.options = { pollIntervalMs: 2_000, ...options };
    this.#common = new Common({
      chain: { ...Mainnet, chainId: Number(deps.l1ChainId) },
      hardfork: Hardfork.Prague,
    });
    this.#from = bytesToHex(createAddressFromPrivateKey(deps.key).bytes);
  }

  start(): void {
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    await this.#loop;
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      let more = false;
      try {
        more = await this.step();
      } catch (e) {
        this.#log.warn("Output proposal failed: {message}", { message: (e as Error).message });
      }
      if (!more && !this.#stopped) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, this.options.pollIntervalMs);
          this.#wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
    }
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
    const [nonce, gasPrice] = await Promise.all([
      l1.call<string>("eth_getTransactionCount", [this.#from, "pending"]),
      l1.call<string>("eth_gasPrice"),
    ]);
    const gas = await l1.call<string>("eth_estimateGas", [{ from: this.#from, to: oracle, data }]);
    const tx = createFeeMarket1559Tx({
      chainId: this.#deps.l1ChainId,
      nonce: BigInt(nonce),
      to: this.#deps.oracle,
      data: hexToBytes(data),
      gasLimit: (BigInt(gas) * 5n) / 4n,
      maxFeePerGas: BigInt(gasPrice) * 2n + 1_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    }, { common: this.#common }).sign(this.#deps.key);
    const hash = await l1.call<string>("eth_sendRawTransaction", [bytesToHex(tx.serialize())]);
    for (let i = 0;; i++) {
      const r = await l1.call<{ status: string } | null>("eth_getTransactionReceipt", [hash]);
      if (r !== null) {
        if (r.status !== "0x1") {
          throw new BaseError("PROPOSER_TX_FAILED", `Output proposal ${hash} failed on L1`);
        }
        break;
      }
      if (i > 600 || this.#stopped) {
        throw new BaseError("PROPOSER_TX_TIMEOUT", `Output proposal ${hash} was not mined`);
      }
      await new Promise((res) => setTimeout(res, 200));
    }
    this.proposed++;
    this.#log.info("Proposed output", { l2Block: Number(next), outputRoot: bytesToHex(root) });
    return true;
  }
}
