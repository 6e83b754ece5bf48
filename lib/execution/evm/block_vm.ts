/**
 * The VM a block runs on (block_builder.ts): made per fork on a copy of the fork's cached Common, with
 * the OP precompiles and keel's fast opcode handlers, and kept on its state manager for the next block
 * of the same fork once a block commits.
 */
import type { Common, StateManagerInterface } from "@ethereumjs/common";
import { createVM, type VM } from "@ethereumjs/vm";
import { hashHeader, type Header } from "../../protocol/block.ts";
import type { ForkRules } from "./common.ts";
import { installFastOpcodes } from "./fast_opcodes.ts";
import { opPrecompiles } from "./precompiles.ts";
import { shareEmptyWarmSlotSets } from "./warm_journal.ts";

const ZERO32 = new Uint8Array(32);

/** What a block's VM is made from (BlockBuilderDeps). */
export interface BlockVmDeps {
  stateManager: StateManagerInterface;
  /** Hash of an earlier canonical block, for BLOCKHASH (unknown: zero). */
  getBlockHash?: (number: bigint) => Promise<Uint8Array | undefined>;
  /** Set when the caller changes the VM: it then gets a VM of its own, never kept. */
  onVm?: (vm: VM) => void;
}

/** What BLOCKHASH answers from: the parent of the block the VM runs, set anew for each block. */
interface VmChain {
  parent: Header;
  parentHash: Uint8Array;
  getBlockHash?: (number: bigint) => Promise<Uint8Array | undefined>;
}

/** A block VM with the Common it was made for (a cached Common of one chain and fork) and its chain link. */
export interface BlockVm {
  vm: VM;
  base: Common;
  chain: VmChain;
}

/**
 * The VM of the last block committed on a state manager, for the next block on it under the same
 * fork: making one (the Common's parameters, the EVM and its opcode table, and then the jump analysis
 * of every contract again, memoized per table) cost ~1 ms of a ~10 ms dev block (measured,
 * anvil_mine). Taken out while a block runs and put back only when that block commits: a VM a failed
 * block left mid-transaction is dropped. Not for callers that change the VM (`onVm`).
 */
const keptVms = new WeakMap<StateManagerInterface, BlockVm>();

/** The VM for a block on `parent`: the one kept on the state manager when it fits, else a new one. */
export async function blockVm(rules: ForkRules, deps: BlockVmDeps, parent: Header): Promise<BlockVm> {
  const kept = deps.onVm === undefined ? keptVms.get(deps.stateManager) : undefined;
  if (kept !== undefined) {
    keptVms.delete(deps.stateManager);
    if (kept.base === rules.common) {
      kept.chain.parent = parent;
      kept.chain.parentHash = hashHeader(parent);
      kept.chain.getBlockHash = deps.getBlockHash;
      return kept;
    }
  }
  return await makeVm(rules, deps, parent);
}

/** Per-fork VM/EVM parameters, on a copy of the cached Common. */
async function makeVm(rules: ForkRules, deps: BlockVmDeps, parent: Header): Promise<BlockVm> {
  const chain: VmChain = { parent, parentHash: hashHeader(parent), getBlockHash: deps.getBlockHash };
  const blockchain = {
    getBlock: async (n: number) => {
      const num = BigInt(n);
      const hash = num === chain.parent.number
        ? chain.parentHash
        : (await chain.getBlockHash?.(num)) ?? ZERO32;
      return { hash: () => hash };
    },
    putBlock: async () => {},
    shallowCopy() {
      return blockchain;
    },
  };
  // A shallow copy per VM: each EVM subscribes to its Common's events, which would otherwise keep
  // every block's VM alive through the shared cached Common.
  const common = rules.common.copy();
  const vm = await createVM({
    common,
    stateManager: deps.stateManager,
    blockchain,
    evmOpts: { customPrecompiles: opPrecompiles(rules.opFork, common) },
  });
  // The DataView word handlers (fast_opcodes.ts; equal to the stock ones step by step, tested),
  // without the KECCAK256 memo: block keys are mostly distinct.
  installFastOpcodes(vm.evm, { keccakMemo: false });
  shareEmptyWarmSlotSets(vm.evm.journal);
  return { vm, base: rules.common, chain };
}

/** Keeps `blockVm` on `sm` for the next block (called once its block committed). */
export function keepBlockVm(sm: StateManagerInterface, blockVm: BlockVm): void {
  keptVms.set(sm, blockVm);
}
