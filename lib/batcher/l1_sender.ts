/**
 * What the batch submitter and the output proposer share: an L1 account that sends EIP-1559
 * transactions (nonce from the pending state, gas estimated with a 25% margin, fee cap twice the gas
 * price plus the tip) or EIP-4844 blob transactions (the same fees, a blob fee cap twice the blob base
 * fee, sent in the network form with the blobs, commitments and proofs), and waits for each receipt;
 * and the loop that runs a step again at once while it has work, or after a poll interval, until
 * stopped.
 */
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createBlob4844Tx, createFeeMarket1559Tx } from "@ethereumjs/tx";
import { createAddressFromPrivateKey, type KZG } from "@ethereumjs/util";
import { kzgToVersionedHash } from "../protocol/blob_data.ts";
import { blobNetworkEncoding, blobSidecar } from "../protocol/blob_tx.ts";
import { bytesToHex } from "../common/bytes.ts";
import { BaseError } from "../common/errors.ts";
import type { JsonRpcClient } from "../common/json_rpc_client.ts";

/** 1 gwei: the tip when the L1 node has no eth_maxPriorityFeePerGas. */
const DEFAULT_TIP = "0x3b9aca00";
/** How often a transaction waiting for its receipt is looked for in the L1 node (and sent again if gone). */
const REBROADCAST_MS = 2_000;

/** How long to wait for the receipt, and when to give up early. */
export interface SendOptions {
  timeoutMs: number;
  stopped?: () => boolean;
}

/** A mined transaction: its hash and the L1 block that included it. */
export interface Sent {
  hash: string;
  block: { number: bigint; hash: string };
}

export class L1TxSender {
  readonly l1: JsonRpcClient;
  /** The sender address, hex. */
  readonly from: string;
  readonly #key: Uint8Array;
  readonly #common: Common;
  readonly #chainId: bigint;

  constructor(l1: JsonRpcClient, chainId: bigint, key: Uint8Array) {
    this.l1 = l1;
    this.#key = key;
    this.#chainId = chainId;
    this.#common = new Common({ chain: { ...Mainnet, chainId: Number(chainId) }, hardfork: Hardfork.Prague });
    this.from = bytesToHex(createAddressFromPrivateKey(key).bytes);
  }

  /**
   * Sends `data` to `to` and waits for the receipt: resolves with the hash and the L1 block that
   * included it once mined with status 1. A transaction the L1 node no longer knows (an L1 reorg took
   * its block and the node did not keep it, or its pool dropped it) is published again, as op-batcher's
   * txmgr resubmits; one whose nonce another transaction took, or that waits behind a nonce gap the
   * reorg left (the account's earlier transactions gone too), ends with L1_TX_DROPPED.
   * Throws L1_TX_FAILED when it reverted, L1_TX_TIMEOUT after `timeoutMs` or when `stopped()` turns true;
   * `what` names the transaction in those errors.
   */
  async send(
    to: Uint8Array,
    data: Uint8Array,
    what: string,
    opts: SendOptions,
  ): Promise<Sent> {
    const { l1, from } = this;
    const { nonce, gasPrice, tip } = await this.#fees();
    const gas = await l1.call<string>("eth_estimateGas", [{
      from,
      to: bytesToHex(to),
      data: bytesToHex(data),
    }]);
    const tx = createFeeMarket1559Tx({
      chainId: this.#chainId,
      nonce: BigInt(nonce),
      to,
      gasLimit: (BigInt(gas) * 5n) / 4n,
      maxPriorityFeePerGas: BigInt(tip),
      maxFeePerGas: BigInt(gasPrice) * 2n + BigInt(tip),
      data,
    }, { common: this.#common }).sign(this.#key);
    return await this.#publish(bytesToHex(tx.serialize()), nonce, what, opts);
  }

  /**
   * Sends a blob transaction to `to` carrying `blobs` (no calldata, 21,000 gas) and waits for it as
   * `send` does. `kzg` makes the commitments and proofs (EIP-4844); L1 must be at Cancun or later.
   */
  async sendBlobs(
    to: Uint8Array,
    blobs: Uint8Array[],
    kzg: KZG,
    what: string,
    opts: SendOptions,
  ): Promise<Sent> {
    const [{ nonce, gasPrice, tip }, blobBaseFee] = await Promise.all([
      this.#fees(),
      this.l1.call<string>("eth_blobBaseFee"),
    ]);
    const sidecar = blobSidecar(kzg, blobs);
    const common = new Common({
      chain: { ...Mainnet, chainId: Number(this.#chainId) },
      hardfork: Hardfork.Prague,
      customCrypto: { kzg },
    });
    const tx = createBlob4844Tx({
      chainId: this.#chainId,
      nonce: BigInt(nonce),
      to,
      gasLimit: 21_000n,
      maxPriorityFeePerGas: BigInt(tip),
      maxFeePerGas: BigInt(gasPrice) * 2n + BigInt(tip),
      maxFeePerBlobGas: BigInt(blobBaseFee) * 2n,
      blobVersionedHashes: sidecar.commitments.map((c) => bytesToHex(kzgToVersionedHash(c))),
    }, { common }).sign(this.#key);
    const network = blobNetworkEncoding(tx.serialize(), sidecar);
    return await this.#publish(bytesToHex(network), nonce, what, opts);
  }

  async #fees(): Promise<{ nonce: string; gasPrice: string; tip: string }> {
    const l1 = this.l1;
    const [nonce, gasPrice, tip] = await Promise.all([
      l1.call<string>("eth_getTransactionCount", [this.from, "pending"]),
      l1.call<string>("eth_gasPrice"),
      l1.call<string>("eth_maxPriorityFeePerGas").catch(() => DEFAULT_TIP),
    ]);
    return { nonce, gasPrice, tip };
  }

  /** Publishes `raw` and waits for its receipt, publishing it again while L1 does not know it (send). */
  async #publish(
    raw: string,
    nonce: string,
    what: string,
    opts: SendOptions,
  ): Promise<Sent> {
    const { l1, from } = this;
    const hash = await l1.call<string>("eth_sendRawTransaction", [raw]);
    const deadline = Date.now() + opts.timeoutMs;
    let nextLook = Date.now() + REBROADCAST_MS;
    let gapLooks = 0;
    for (;;) {
      const receipt = await l1.call<{ status: string; blockHash: string; blockNumber: string } | null>(
        "eth_getTransactionReceipt",
        [hash],
      );
      if (receipt !== null) {
        if (receipt.status !== "0x1") throw new BaseError("L1_TX_FAILED", `${what} ${hash} failed on L1`);
        return {
          hash,
          block: { number: BigInt(receipt.blockNumber), hash: receipt.blockHash.toLowerCase() },
        };
      }
      if (Date.now() > deadline || opts.stopped?.()) {
        throw new BaseError("L1_TX_TIMEOUT", `${what} ${hash} was not mined in time`);
      }
      if (Date.now() >= nextLook) {
        nextLook = Date.now() + REBROADCAST_MS;
        if ((await l1.call<unknown>("eth_getTransactionByHash", [hash])) === null) {
          gapLooks = 0;
          try {
            await l1.call<string>("eth_sendRawTransaction", [raw]);
          } catch (e) {
            throw new BaseError(
              "L1_TX_DROPPED",
              `${what} ${hash} was dropped by L1 and cannot be sent again: ${(e as Error).message}`,
              { cause: e },
            );
          }
        } else {
          // Known and waiting. When an L1 reorg took this account's earlier transactions too, its nonce went
          // back below this one's, which then waits behind the gap for good: end (the caller sends again
          // with the nonce L1 expects). Two looks apart, not to race a predecessor being mined.
          const latest = BigInt(await l1.call<string>("eth_getTransactionCount", [from, "latest"]));
          gapLooks = latest < BigInt(nonce) ? gapLooks + 1 : 0;
          if (gapLooks >= 2) {
            throw new BaseError(
              "L1_TX_DROPPED",
              `${what} ${hash} waits behind a nonce gap: its nonce is ${
                BigInt(nonce)
              }, the account's ${latest}`,
            );
          }
        }
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** Runs `step` until stopped: again at once when it returns true, else after `pollMs` (or a wake-up). */
export class StepLoop {
  #stopped = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;

  constructor(
    readonly step: () => Promise<boolean>,
    readonly pollMs: number,
    readonly onError: (e: Error) => void,
  ) {}

  get stopped(): boolean {
    return this.#stopped;
  }

  start(): void {
    this.#loop ??= this.#run();
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
        this.onError(e as Error);
      }
      if (!more && !this.#stopped) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, this.pollMs);
          this.#wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
    }
  }
}
