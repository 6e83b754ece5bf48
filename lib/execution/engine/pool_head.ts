/**
 * What the transaction pool reads of the chain's head: the accounts of its state (one state manager
 * shared until the head or its state changes), the L1 data fee under its L1Block values (read once per
 * head and fork), and the rules of the next block (chain id, gas limit, base fee, transaction types).
 */
import { Hardfork } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import { Address } from "@ethereumjs/util";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import { equalBytes } from "../../common/bytes.ts";
import type { KvStore } from "../../db/mod.ts";
import type { ChainConfig, Header } from "../../protocol/mod.ts";
import {
  encodingOf,
  forkRules,
  hasNoCode,
  type L1FeeSource,
  loadL1FeeSource,
  maxInitCodeSize,
  nextBlockBaseFee,
} from "../evm/mod.ts";
import { createStateManager } from "../state/mod.ts";
import type { PoolAccount, PoolHead } from "../txpool/mod.ts";
import type { IrregularState } from "./irregular_state.ts";

export interface PoolHeadDeps {
  config: ChainConfig;
  store: KvStore;
  irregular: IrregularState;
  head(): { hash: Uint8Array; header: Header };
  /** Unix seconds. */
  now(): number;
}

export class PoolHeadView {
  readonly #deps: PoolHeadDeps;
  #state: { hash: Uint8Array; root: Uint8Array; sm: Promise<MerkleStateManager> } | undefined;
  #l1Fees: { hash: Uint8Array; fork: string; source: Promise<L1FeeSource> } | undefined;

  constructor(deps: PoolHeadDeps) {
    this.#deps = deps;
  }

  /** Forgets what was read (the head's state changed without a new head, or the engine closes). */
  forget(): void {
    this.#state = undefined;
    this.#l1Fees = undefined;
  }

  /** The head state, shared by the pool's account reads until the head or its state moves. */
  #stateManager(): Promise<MerkleStateManager> {
    const head = this.#deps.head();
    const root = this.#deps.irregular.rootOf(head.header, head.hash);
    const cached = this.#state;
    if (cached === undefined || !equalBytes(cached.hash, head.hash) || !equalBytes(cached.root, root)) {
      const sm = createStateManager(this.#deps.store, root);
      this.#state = { hash: head.hash, root, sm };
      return sm;
    }
    return cached.sm;
  }

  async account(address: Uint8Array): Promise<PoolAccount> {
    const sm = await this.#stateManager();
    const a = new Address(address);
    const account = await sm.getAccount(a);
    const out: PoolAccount = { nonce: account?.nonce ?? 0n, balance: account?.balance ?? 0n };
    if (account !== undefined && !hasNoCode(account)) out.code = await sm.getCode(a);
    return out;
  }

  /** The L1 data fee (and the Isthmus operator fee at the gas limit) of `tx` in the next block. */
  async l1Cost(tx: TypedTransaction): Promise<bigint> {
    const config = this.#deps.config;
    if (config.op === undefined) return 0n;
    const fork = forkRules(config, this.rules().timestamp).opFork ?? "bedrock";
    const hash = this.#deps.head().hash;
    let cached = this.#l1Fees;
    if (cached === undefined || cached.fork !== fork || !equalBytes(cached.hash, hash)) {
      const source = this.#stateManager().then((sm) => loadL1FeeSource(sm, fork));
      const entry = cached = this.#l1Fees = { hash, fork, source };
      // A failed read is not kept: the next transaction reads again.
      source.catch(() => {
        if (this.#l1Fees === entry) this.#l1Fees = undefined;
      });
    }
    const source = await cached.source;
    return source.l1Fee(encodingOf(tx)).l1Fee + source.operatorFee(tx.gasLimit);
  }

  /** The rules of the next block on the head (the pool validates against them). */
  rules(): PoolHead {
    const config = this.#deps.config;
    const head = this.#deps.head().header;
    const timestamp = BigInt(Math.max(this.#deps.now(), Number(head.timestamp) + 1));
    const common = forkRules(config, timestamp).common;
    const prague = common.gteHardfork(Hardfork.Prague);
    const types = [0, 1, 2];
    if (config.op === undefined && common.gteHardfork(Hardfork.Cancun)) types.push(3);
    if (prague) types.push(4);
    return {
      chainId: config.chainId,
      gasLimit: head.gasLimit,
      nextBaseFee: nextBlockBaseFee(config, head, timestamp),
      allowedTypes: new Set(types),
      timestamp,
      isShanghai: common.gteHardfork(Hardfork.Shanghai),
      maxInitCodeSize: maxInitCodeSize(config),
      isPrague: prague,
    };
  }
}
