/**
 * Random EVM programs for differential runs (keel against anvil's revm, tests/e2e/evm_differential_anvil_test.ts
 * and scripts/fuzz_evm.ts): straight-line code over arithmetic, memory, transient and persistent
 * storage, calldata, return data, logs, hashing, calls (to the precompiles, to a helper contract and to
 * an empty account), creates and forward jumps, with the stack depth tracked so that programs do not
 * stop on a stack underflow at their first opcode. Memory offsets and sizes stay small (with a few
 * large ones for the quadratic memory cost). The program ends by returning what it leaves on the stack
 * with GAS, MSIZE and RETURNDATASIZE: any difference in a value or in a gas charge shows in the result.
 *
 * Opcodes whose value differs between two chains (BLOCKHASH, BALANCE of accounts the chains fund
 * differently) are left out, and value calls go only to accounts both chains hold alike. The block's
 * NUMBER, TIMESTAMP, COINBASE, PREVRANDAO, GASLIMIT and CHAINID come in with `blockContext` (for calls
 * with BLOCK_OVERRIDES on chains of the same id); BASEFEE and BLOBBASEFEE never (a fee-less eth_call
 * reads a base fee of 0 in geth, the block's in anvil).
 */

/** The address the program runs at (given its code by a state override). */
export const PROGRAM = "0x00000000000000000000000000000000000f0220";
/** A helper contract the program calls: stores its calldata's first word at slot 1, logs, returns it. */
export const HELPER = "0x00000000000000000000000000000000000f0221";
/** CALLDATALOAD(0) DUP1 PUSH1 1 SSTORE DUP1 PUSH1 0 MSTORE PUSH1 32 PUSH1 0 LOG0 PUSH1 32 PUSH1 0 RETURN */
export const HELPER_CODE = "0x600035806001558060005260206000a060206000f3";
/** An account neither chain has: a value call to it pays for a new account on both. */
const EMPTY_ACCOUNT = "0x00000000000000000000000000000000000f0222";
/** The precompiles both chains have at Prague (RIP-7212's P256VERIFY only on OP chains then). */
const PRECOMPILES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11];

/** The block a call with `blockContext` opcodes runs in (eth_call's block overrides, as geth takes them). */
export const BLOCK_OVERRIDES = {
  number: "0x1234",
  time: "0x6b000000",
  gasLimit: "0x1c9c380",
  feeRecipient: "0x00000000000000000000000000000000000c0b0e",
  prevRandao: "0x" + "ab".repeat(32),
};

/** NUMBER, TIMESTAMP, COINBASE, PREVRANDAO, GASLIMIT, CHAINID. */
const CONTEXT_OPS: [number, number, number][] = [
  [0x43, 0, 1],
  [0x42, 0, 1],
  [0x41, 0, 1],
  [0x44, 0, 1],
  [0x45, 0, 1],
  [0x46, 0, 1],
];

export interface Program {
  /** Runtime code, 0x hex. */
  code: string;
  /** Calldata, 0x hex. */
  data: string;
}

/** Opcodes taking only stack words: [byte, inputs, outputs]. */
const STACK_OPS: [number, number, number][] = [
  [0x01, 2, 1], // ADD
  [0x02, 2, 1], // MUL
  [0x03, 2, 1], // SUB
  [0x04, 2, 1], // DIV
  [0x05, 2, 1], // SDIV
  [0x06, 2, 1], // MOD
  [0x07, 2, 1], // SMOD
  [0x08, 3, 1], // ADDMOD
  [0x09, 3, 1], // MULMOD
  [0x0a, 2, 1], // EXP
  [0x0b, 2, 1], // SIGNEXTEND
  [0x10, 2, 1], // LT
  [0x11, 2, 1], // GT
  [0x12, 2, 1], // SLT
  [0x13, 2, 1], // SGT
  [0x14, 2, 1], // EQ
  [0x15, 1, 1], // ISZERO
  [0x16, 2, 1], // AND
  [0x17, 2, 1], // OR
  [0x18, 2, 1], // XOR
  [0x19, 1, 1], // NOT
  [0x1a, 2, 1], // BYTE
  [0x1b, 2, 1], // SHL
  [0x1c, 2, 1], // SHR
  [0x1d, 2, 1], // SAR
  [0x30, 0, 1], // ADDRESS
  [0x32, 0, 1], // ORIGIN
  [0x33, 0, 1], // CALLER
  [0x34, 0, 1], // CALLVALUE
  [0x36, 0, 1], // CALLDATASIZE
  [0x38, 0, 1], // CODESIZE
  [0x3d, 0, 1], // RETURNDATASIZE
  [0x47, 0, 1], // SELFBALANCE
  [0x58, 0, 1], // PC
  [0x59, 0, 1], // MSIZE
  [0x5a, 0, 1], // GAS
  [0x50, 1, 0], // POP
];

const TWO_256 = 1n << 256n;
const INTERESTING = [
  0n,
  1n,
  2n,
  3n,
  7n,
  8n,
  31n,
  32n,
  33n,
  255n,
  256n,
  257n,
  (1n << 64n) - 1n,
  1n << 128n,
  (1n << 255n) - 1n,
  1n << 255n,
  TWO_256 - 1n,
  TWO_256 - 2n,
];

class Writer {
  readonly bytes: number[] = [];
  depth = 0;
  /**
   * Forward jumps whose target is still to place: where to patch it, how many operations remain before
   * it, and the stack depth after the JUMPI (the target is reached with it on both paths).
   */
  readonly jumps: { at: number; after: number; depth: number }[] = [];

  op(byte: number, inputs = 0, outputs = 0): void {
    this.bytes.push(byte);
    this.depth += outputs - inputs;
  }

  push(value: bigint): void {
    const v = ((value % TWO_256) + TWO_256) % TWO_256;
    let hex = v.toString(16);
    if (hex.length % 2 === 1) hex = "0" + hex;
    const n = v === 0n ? 0 : hex.length / 2;
    if (n === 0) {
      this.op(0x5f, 0, 1); // PUSH0
      return;
    }
    this.bytes.push(0x5f + n);
    for (let i = 0; i < n; i++) this.bytes.push(parseInt(hex.slice(2 * i, 2 * i + 2), 16));
    this.depth++;
  }
}

/**
 * Places a forward jump's JUMPDEST. The straight path first pops or pushes to the depth the jump left
 * (so that both paths reach the target with the same stack depth).
 */
function land(w: Writer, j: { at: number; depth: number }): void {
  while (w.depth > j.depth) w.op(0x50, 1, 0);
  while (w.depth < j.depth) w.push(0x5bn);
  const target = w.bytes.length;
  w.bytes[j.at] = target >> 8;
  w.bytes[j.at + 1] = target & 0xff;
  w.op(0x5b); // JUMPDEST
}

/**
 * A random program; `size` is about how many operations it has. `blockContext` lets it read the block
 * (to run with BLOCK_OVERRIDES).
 */
export function randomProgram(rand: () => number, size = 40, blockContext = false): Program {
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  const word = (): bigint => {
    const r = rand();
    if (r < 0.5) return pick(INTERESTING);
    if (r < 0.75) return BigInt(int(1000));
    let v = 0n;
    for (let i = 0; i < 4; i++) {
      v = (v << 64n) | BigInt(Math.floor(rand() * 2 ** 32)) << 32n | BigInt(int(2 ** 32));
    }
    return v % TWO_256;
  };
  /** A memory offset or size: mostly small, sometimes large enough for the quadratic cost. */
  const small = (max = 200): bigint => BigInt(rand() < 0.03 ? 1000 + int(20_000) : int(max));
  const w = new Writer();
  const ensure = (n: number) => {
    while (w.depth < n) w.push(word());
  };
  const args = (...values: bigint[]) => {
    // Pushed last-first, so that the first is on top.
    for (let i = values.length - 1; i >= 0; i--) w.push(values[i]);
  };
  const address = (hex: string) => BigInt(hex);

  for (let i = 0; i < size; i++) {
    const r = rand();
    if (w.depth > 12) {
      w.op(0x50, 1, 0); // POP: keep the stack short
      continue;
    }
    if (blockContext && r < 0.03) {
      const [b, ins, outs] = pick(CONTEXT_OPS);
      w.op(b, ins, outs);
    } else if (r < 0.3) {
      const [b, ins, outs] = pick(STACK_OPS);
      ensure(ins);
      w.op(b, ins, outs);
    } else if (r < 0.36) {
      w.push(word());
    } else if (r < 0.42) {
      const n = 1 + int(Math.min(16, Math.max(1, w.depth)));
      ensure(n);
      w.op(0x7f + n, n, n + 1); // DUPn
    } else if (r < 0.47) {
      const n = 1 + int(Math.min(16, Math.max(1, w.depth - 1)));
      ensure(n + 1);
      w.op(0x8f + n, n + 1, n + 1); // SWAPn
    } else if (r < 0.55) {
      // MSTORE / MSTORE8 / MLOAD
      const k = int(3);
      if (k === 0) {
        ensure(1);
        args(small());
        w.op(0x52, 2, 0);
      } else if (k === 1) {
        ensure(1);
        args(small());
        w.op(0x53, 2, 0);
      } else {
        args(small());
        w.op(0x51, 1, 1);
      }
    } else if (r < 0.6) {
      // SSTORE / SLOAD on a few keys; TSTORE / TLOAD
      const key = BigInt(int(4));
      const k = int(4);
      if (k === 0) {
        w.push(rand() < 0.3 ? 0n : word());
        args(key);
        w.op(0x55, 2, 0);
      } else if (k === 1) {
        args(key);
        w.op(0x54, 1, 1);
      } else if (k === 2) {
        w.push(word());
        args(key);
        w.op(0x5d, 2, 0);
      } else {
        args(key);
        w.op(0x5c, 1, 1);
      }
    } else if (r < 0.64) {
      // KECCAK256, CALLDATALOAD, CALLDATACOPY, CODECOPY, MCOPY, RETURNDATACOPY
      const k = int(6);
      if (k === 0) (args(small(), small(100)), w.op(0x20, 2, 1));
      else if (k === 1) (args(small(80)), w.op(0x35, 1, 1));
      else if (k === 2) (args(small(), small(80), small(80)), w.op(0x37, 3, 0));
      else if (k === 3) (args(small(), small(80), small(80)), w.op(0x39, 3, 0));
      else if (k === 4) (args(small(), small(), small(100)), w.op(0x5e, 3, 0));
      // (Past the end of the return data it halts: mostly within the 32 bytes most calls return.)
      else (args(small(), BigInt(int(8)), BigInt(int(24))), w.op(0x3e, 3, 0));
    } else if (r < 0.68) {
      // LOG0..LOG4
      const topics = int(5);
      for (let t = 0; t < topics; t++) w.push(word());
      args(small(), small(100));
      w.op(0xa0 + topics, 2 + topics, 0);
    } else if (r < 0.78) {
      // CALL / STATICCALL / DELEGATECALL to a precompile, the helper or the empty account
      const kind = int(4); // CALL, STATICCALL, DELEGATECALL, CALLCODE
      const target = rand() < 0.6
        ? BigInt(pick(PRECOMPILES))
        : address(rand() < 0.7 ? HELPER : EMPTY_ACCOUNT);
      // Mostly a bounded amount: a failing precompile burns what it is given, and all-but-1/64 twice
      // would leave the program nothing to finish with.
      const gas = rand() < 0.05 ? undefined : BigInt(int(100_000));
      const ret = [small(), small(100)];
      const input = [small(), small(200)];
      if (kind === 0 || kind === 3) {
        // Value only to the helper and the empty account (the chains fund precompiles differently).
        const value = target > 0xffn && rand() < 0.4 ? 1n : 0n;
        args(...ret.reverse());
        args(...input.reverse());
        w.push(value);
        w.push(target);
        if (gas === undefined) w.op(0x5a, 0, 1);
        else w.push(gas);
        w.op(kind === 0 ? 0xf1 : 0xf2, 7, 1);
      } else {
        args(...ret.reverse());
        args(...input.reverse());
        w.push(target);
        if (gas === undefined) w.op(0x5a, 0, 1);
        else w.push(gas);
        w.op(kind === 1 ? 0xfa : 0xf4, 6, 1);
      }
    } else if (r < 0.81) {
      // EXTCODESIZE / EXTCODEHASH / BALANCE / EXTCODECOPY of the helper, the program or an empty account
      const who = address(pick([HELPER, EMPTY_ACCOUNT, PROGRAM]));
      const k = int(4);
      if (k === 3) {
        args(small(), small(40), small(40));
        w.push(who);
        w.op(0x3c, 4, 0);
      } else {
        w.push(who);
        w.op([0x3b, 0x3f, 0x31][k], 1, 1);
      }
    } else if (r < 0.84) {
      // CREATE / CREATE2 of init code that returns 1..3 bytes (written to memory first)
      const n = 1 + int(3);
      // PUSHn <random bytes> PUSH1 0 MSTORE PUSHn n PUSH1 32-n RETURN... kept simple: return n zero bytes
      const init = BigInt(`0x60${n.toString(16).padStart(2, "0")}6000f3`); // PUSH1 n PUSH1 0 RETURN
      w.push(init);
      w.push(0n);
      w.op(0x52, 2, 0); // MSTORE: init code at bytes 27..31
      if (rand() < 0.5) {
        args(0n, 27n, 5n);
        w.op(0xf0, 3, 1);
      } else {
        args(0n, 27n, 5n, word());
        w.op(0xf5, 4, 1);
      }
    } else if (r < 0.87) {
      // A forward jump over a few bytes: PUSH2 target JUMPI (a random condition) ... JUMPDEST
      ensure(1);
      const at = w.bytes.length + 1;
      w.bytes.push(0x61, 0, 0); // PUSH2 target, patched below
      w.depth++;
      w.op(0x57, 2, 0); // JUMPI
      w.jumps.push({ at, after: 1 + int(4), depth: w.depth });
    } else {
      const [b, ins, outs] = pick(STACK_OPS);
      ensure(ins);
      w.op(b, ins, outs);
    }
    // Place the jump targets whose distance ran out (the innermost first).
    while (w.jumps.length > 0 && --w.jumps[w.jumps.length - 1].after <= 0) land(w, w.jumps.pop()!);
  }
  while (w.jumps.length > 0) land(w, w.jumps.pop()!);
  // The epilogue: RETURNDATASIZE, MSIZE, GAS and up to 8 stack words to memory at 0x2000.., returned.
  w.op(0x3d, 0, 1);
  w.op(0x59, 0, 1);
  w.op(0x5a, 0, 1);
  const n = Math.min(w.depth, 11);
  for (let i = 0; i < n; i++) {
    w.push(BigInt(0x2000 + 32 * i));
    w.op(0x52, 2, 0);
  }
  args(0x2000n, BigInt(32 * n));
  // Mostly RETURN; sometimes REVERT with the same data (the revert data is compared too); now and then
  // SELFDESTRUCT to the helper instead (its gas shows in the transaction's receipt).
  const end = rand();
  if (end < 0.03) {
    w.push(address(HELPER));
    w.op(0xff, 1, 0);
  } else w.op(end < 0.18 ? 0xfd : 0xf3, 2, 0);
  const data = Array.from({ length: int(100) }, () => int(256));
  const hex = (xs: number[]) => "0x" + xs.map((b) => b.toString(16).padStart(2, "0")).join("");
  return { code: hex(w.bytes), data: hex(data) };
}
