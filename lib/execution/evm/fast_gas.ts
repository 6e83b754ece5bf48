/**
 * Synchronous dynamic-gas handlers for the hot @ethereumjs/evm opcodes. The stock ones are async
 * functions even where nothing is awaited (memory expansion, the EIP-2929 warm check of SLOAD), so
 * each costs a promise and a microtask in the fast loop (fast_loop.ts); and SLOAD and SSTORE turn
 * their key and values into bytes through hex strings (`bigIntToBytes`, `setLengthLeft`). These
 * compute the same gas by the same rules, in the same order, with the same traps:
 * - memory expansion: Yellow Paper eq. 326 (C_mem(a) = 3a + a²/512), charged as the rise over the
 *   frame's highest cost so far (@ethereumjs `subMemUsage`);
 * - KECCAK256, CALLDATACOPY, CODECOPY, MCOPY: the word gas of their length;
 * - LOG: refused in a static frame (EIP-214), 375 a topic and 8 a data byte;
 * - SLOAD: EIP-2929 cold 2,100 / warm 100;
 * - SSTORE: EIP-2200 with the EIP-2929 warm prices and EIP-3529 refunds (the `sstore*EIP2200Gas`
 *   parameters of the active Common), then the EIP-2929 cold surcharge.
 * Where the stock handlers add rules of other EIPs (EIP-6800/7864 stateless access, EIP-7928 block
 * access lists, EIP-8038 SSTORE gate) or of old forks (before Istanbul), the stock handler runs.
 * tests/unit/execution/evm/fast_opcodes_test.ts compares them step by step with the stock ones.
 */
import { EVMError, type EVMInterface, getOpcodesForHF } from "@ethereumjs/evm";
import { Hardfork } from "@ethereumjs/common";
import { wordBytes } from "./words.ts";

interface Common {
  param(name: string): bigint;
  isActivatedEIP(eip: number): boolean;
  hardfork(): string;
  gteHardfork(hardfork: string): boolean;
}

interface RunState {
  opCode: number;
  memoryWordCount: bigint;
  highestMemCost: bigint;
  stack: { peek(n?: number): bigint[] };
  interpreter: {
    isStatic(): boolean;
    getAddress(): { bytes: Uint8Array };
    getGasLeft(): bigint;
    getReturnDataSize(): bigint;
    refundGas(amount: bigint, context?: string): void;
    subRefund(amount: bigint, context?: string): void;
    storageLoad(key: Uint8Array, original?: boolean, trackBAL?: boolean): Promise<Uint8Array>;
    journal: {
      isWarmedStorage(address: Uint8Array, slot: Uint8Array): boolean;
      addWarmedStorage(address: Uint8Array, slot: Uint8Array): void;
    };
  };
}

type GasHandler = (runState: RunState, gas: bigint, common: Common) => bigint | Promise<bigint>;

interface OpcodeEntry {
  opcodeInfo: { name: string };
  gasHandler?: GasHandler;
}

function trap(message: string): never {
  throw new EVMError(message as never);
}

/** ceil(a / 32) for a >= 0. */
function words(a: bigint): bigint {
  return (a + 31n) >> 5n;
}

/** The memory expansion gas of touching [offset, offset + length) (@ethereumjs `subMemUsage`). */
export function memoryGas(runState: RunState, offset: bigint, length: bigint, common: Common): bigint {
  if (length === 0n) return 0n;
  const count = words(offset + length);
  if (count <= runState.memoryWordCount) return 0n;
  let cost = count * common.param("memoryGas") + (count * count) / common.param("quadCoefficientDivGas");
  if (cost > runState.highestMemCost) {
    const before = runState.highestMemCost;
    runState.highestMemCost = cost;
    cost -= before;
  }
  runState.memoryWordCount = count;
  return cost;
}

/** EIP-2929: warms the slot; the cold or warm price (an SSTORE pays no warm read). */
function accessStorage(runState: RunState, key: Uint8Array, isSstore: boolean, common: Common): bigint {
  if (!common.isActivatedEIP(2929)) return 0n;
  const address = runState.interpreter.getAddress().bytes;
  const journal = runState.interpreter.journal;
  if (!journal.isWarmedStorage(address, key)) {
    journal.addWarmedStorage(address, key);
    return common.param("coldsloadGas");
  }
  return isSstore ? 0n : common.param("warmstoragereadGas");
}

/** EIP-2929's lower SSTORE prices for a warm slot (@ethereumjs `adjustSstoreGasEIP2929`). */
function warmSstore(
  runState: RunState,
  key: Uint8Array,
  cost: bigint,
  kind: "noop" | "initRefund" | "cleanRefund",
  common: Common,
): bigint {
  if (!common.isActivatedEIP(2929)) return cost;
  const address = runState.interpreter.getAddress().bytes;
  if (!runState.interpreter.journal.isWarmedStorage(address, key)) return cost;
  const warmRead = common.param("warmstoragereadGas");
  switch (kind) {
    case "noop":
      return warmRead;
    case "initRefund":
      return common.param("sstoreInitEIP2200Gas") - warmRead;
    case "cleanRefund":
      return common.param("sstoreResetGas") - common.param("coldsloadGas") - warmRead;
  }
}

const EMPTY = new Uint8Array(0);

/** A storage value as the stock gas rules compare it: empty when zero, else 32 bytes. */
function storageValue(v: Uint8Array): Uint8Array {
  let zero = true;
  for (let i = 0; i < v.length; i++) {
    if (v[i] !== 0) {
      zero = false;
      break;
    }
  }
  if (zero) return EMPTY;
  if (v.length === 32) return v;
  const out = new Uint8Array(32);
  out.set(v.length > 32 ? v.subarray(v.length - 32) : v, 32 - Math.min(v.length, 32));
  return out;
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** EIP-2200 net gas metering (@ethereumjs `updateSstoreGasEIP2200`); values as `storageValue`. */
function sstoreNetGas(
  runState: RunState,
  current: Uint8Array,
  original: Uint8Array,
  value: Uint8Array,
  key: Uint8Array,
  common: Common,
): bigint {
  const it = runState.interpreter;
  if (it.getGasLeft() <= common.param("sstoreSentryEIP2200Gas")) trap(EVMError.errorMessages.OUT_OF_GAS);
  if (equal(current, value)) {
    return warmSstore(runState, key, common.param("sstoreNoopEIP2200Gas"), "noop", common);
  }
  if (equal(original, current)) {
    if (original.length === 0) return common.param("sstoreInitEIP2200Gas");
    if (value.length === 0) {
      it.refundGas(common.param("sstoreClearRefundEIP2200Gas"), "EIP-2200 -> sstoreClearRefundEIP2200");
    }
    return common.param("sstoreCleanEIP2200Gas");
  }
  if (original.length > 0) {
    if (current.length === 0) {
      it.subRefund(common.param("sstoreClearRefundEIP2200Gas"), "EIP-2200 -> sstoreClearRefundEIP2200");
    } else if (value.length === 0) {
      it.refundGas(common.param("sstoreClearRefundEIP2200Gas"), "EIP-2200 -> sstoreClearRefundEIP2200");
    }
  }
  if (equal(original, value)) {
    if (original.length === 0) {
      const refund = common.param("sstoreInitRefundEIP2200Gas");
      it.refundGas(warmSstore(runState, key, refund, "initRefund", common), "EIP-2200 -> initRefund");
    } else {
      const refund = common.param("sstoreCleanRefundEIP2200Gas");
      it.refundGas(warmSstore(runState, key, refund, "cleanRefund", common), "EIP-2200 -> cleanRefund");
    }
  }
  return common.param("sstoreDirtyEIP2200Gas");
}

/** True where the stock SLOAD/SSTORE gas adds rules these handlers leave out. */
function storageRulesBeyond(common: Common): boolean {
  return common.isActivatedEIP(6800) || common.isActivatedEIP(7864) || common.isActivatedEIP(7928) ||
    common.isActivatedEIP(8038);
}

/** The gas handlers replaced, by opcode; `stock` is the library's (for the cases left to it). */
function handlers(stock: Map<number, GasHandler>): Map<number, [string, GasHandler]> {
  const memoryOp = (length: (rs: RunState) => [bigint, bigint]): GasHandler => (rs, gas, common) => {
    const [offset, size] = length(rs);
    return gas + memoryGas(rs, offset, size, common);
  };
  const copyOp: GasHandler = (rs, gas, common) => {
    const [memOffset, , length] = rs.stack.peek(3);
    gas += memoryGas(rs, memOffset, length, common);
    if (length !== 0n) gas += common.param("copyGas") * words(length);
    return gas;
  };
  const returnDataCopyStock = stock.get(0x3e)!;
  const sloadStock = stock.get(0x54)!;
  const sstoreStock = stock.get(0x55)!;
  return new Map<number, [string, GasHandler]>([
    [0x20, ["KECCAK256", (rs, gas, common) => {
      const [offset, length] = rs.stack.peek(2);
      gas += memoryGas(rs, offset, length, common);
      return gas + common.param("keccak256WordGas") * words(length);
    }]],
    [0x37, ["CALLDATACOPY", copyOp]],
    [0x39, ["CODECOPY", copyOp]],
    [0x3e, ["RETURNDATACOPY", (rs, gas, common) => {
      const env = (rs as unknown as { env: { eof?: unknown } }).env;
      if (env.eof !== undefined) return returnDataCopyStock(rs, gas, common);
      const [, offset, length] = rs.stack.peek(3);
      // EIP-211: reading past the return data halts. @ethereumjs calls it out of gas; geth
      // ErrReturnDataOutOfBounds ("return data out of bounds", which gethError names "value out of range").
      if (offset + length > rs.interpreter.getReturnDataSize()) trap(EVMError.errorMessages.OUT_OF_RANGE);
      return copyOp(rs, gas, common);
    }]],
    [0x51, ["MLOAD", memoryOp((rs) => [rs.stack.peek()[0], 32n])]],
    [0x52, ["MSTORE", memoryOp((rs) => [rs.stack.peek()[0], 32n])]],
    [0x53, ["MSTORE8", memoryOp((rs) => [rs.stack.peek()[0], 1n])]],
    [0x54, ["SLOAD", (rs, gas, common) => {
      if (storageRulesBeyond(common)) return sloadStock(rs, gas, common);
      return gas + accessStorage(rs, wordBytes(rs.stack.peek()[0]), false, common);
    }]],
    [0x55, ["SSTORE", (rs, gas, common) => {
      if (storageRulesBeyond(common) || !common.gteHardfork(Hardfork.Istanbul)) {
        return sstoreStock(rs, gas, common);
      }
      return sstoreGas(rs, gas, common);
    }]],
    [0x5e, ["MCOPY", (rs, gas, common) => {
      const [dst, src, length] = rs.stack.peek(3);
      gas += 3n * words(length);
      gas += memoryGas(rs, src, length, common);
      return gas + memoryGas(rs, dst, length, common);
    }]],
    [0xf3, ["RETURN", memoryOp((rs) => rs.stack.peek(2) as [bigint, bigint])]],
    [0xfd, ["REVERT", memoryOp((rs) => rs.stack.peek(2) as [bigint, bigint])]],
    ...[0, 1, 2, 3, 4].map((n): [number, [string, GasHandler]] => [0xa0 + n, ["LOG", logGas]]),
  ]);
}

const logGas: GasHandler = (rs, gas, common) => {
  if (rs.interpreter.isStatic()) trap(EVMError.errorMessages.STATIC_STATE_CHANGE);
  const [offset, length] = rs.stack.peek(2);
  const topics = rs.opCode - 0xa0;
  if (topics < 0 || topics > 4) trap(EVMError.errorMessages.OUT_OF_RANGE);
  gas += memoryGas(rs, offset, length, common);
  return gas + common.param("logTopicGas") * BigInt(topics) + length * common.param("logDataGas");
};

/** SSTORE (Istanbul on): EIP-2200 net metering, then the EIP-2929 cold surcharge. */
async function sstoreGas(rs: RunState, gas: bigint, common: Common): Promise<bigint> {
  if (rs.interpreter.isStatic()) trap(EVMError.errorMessages.STATIC_STATE_CHANGE);
  const [key, val] = rs.stack.peek(2);
  const keyBytes = wordBytes(key);
  const value = val === 0n ? EMPTY : wordBytes(val);
  const current = storageValue(await rs.interpreter.storageLoad(keyBytes, false, false));
  const original = storageValue(await rs.interpreter.storageLoad(keyBytes, true, false));
  gas += sstoreNetGas(rs, current, original, value, keyBytes, common);
  return gas + accessStorage(rs, keyBytes, true, common);
}

/**
 * Replaces the stock gas handlers of `evm`'s opcode table by these (entries whose handler is not the
 * stock one, and opcodes whose name differs, are kept). Returns how many were replaced.
 */
export function installFastGas(evm: EVMInterface): number {
  const common = (evm as unknown as { common: Parameters<typeof getOpcodesForHF>[0] }).common;
  const stock = getOpcodesForHF(common).dynamicGasHandlers as unknown as Map<number, GasHandler>;
  const table = (evm as unknown as { _opcodeMap: OpcodeEntry[] })._opcodeMap;
  let replaced = 0;
  for (const [op, [name, handler]] of handlers(stock)) {
    const entry = table[op];
    if (entry === undefined || entry.opcodeInfo.name !== name) continue;
    if (entry.gasHandler === undefined || entry.gasHandler !== stock.get(op)) continue;
    entry.gasHandler = handler;
    replaced++;
  }
  return replaced;
}
