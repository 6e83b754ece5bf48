/**
 * eth_simulateV1's `traceTransfers` (execution-apis docs-api ethsimulatev1-notes, "ETH transfer logs";
 * geth internal/ethapi/logtracer.go): every ETH transfer of a call appears among its logs as an ERC-20
 * Transfer event emitted by 0xeeee...eeee, in execution order with the contract logs: the value of the
 * transaction itself, of each CALL/CALLCODE/CREATE with value, and the balance a SELFDESTRUCT sends.
 * Gas fees and balance overrides are no transfers; a transfer in a frame that fails is dropped with
 * the frame's logs. These logs are not in the receipts nor the bloom.
 *
 * From the EVM's events: each message opens a frame (its transfer first), LOG steps mark where the
 * contract logs fall, a successful frame's entries join its parent's, a failed frame's are dropped.
 * At the end the marks are replaced by the transaction's logs, in order.
 */
import type { EVMResult, InterpreterStep, Message } from "@ethereumjs/evm";
import type { VM } from "@ethereumjs/vm";
import { hexToBytes } from "../../common/mod.ts";
import { BaseError } from "../../common/errors.ts";
import type { Log } from "../../protocol/mod.ts";

/** The address transfer logs come from. */
export const TRANSFER_LOG_ADDRESS = hexToBytes("0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee");
/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = hexToBytes(
  "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
);

type Entry = { kind: "log" } | {
  kind: "transfer";
  from: Uint8Array;
  to: Uint8Array | undefined;
  value: bigint;
};

function word(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  out.set(bytes, 32 - bytes.length);
  return out;
}

function uintWord(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0 && v > 0n; i--, v >>= 8n) out[i] = Number(v & 0xffn);
  return out;
}

/** The transfer log of `value` from `from` to `to`. */
export function transferLog(from: Uint8Array, to: Uint8Array, value: bigint): Log {
  return {
    address: TRANSFER_LOG_ADDRESS,
    topics: [TRANSFER_TOPIC, word(from), word(to)],
    data: uintWord(value),
  };
}

/** Records one transaction at a time on a VM's EVM events (attach once, `begin` before each transaction). */
export class TransferTracer {
  #frames: Entry[][] = [[]];
  /** The opcode last run at each depth: tells CALLCODE apart (its transfer goes to the code's address). */
  #lastOp: string[] = [];

  /** Listens on `vm`'s EVM (which then runs every step through the listeners: no fast paths). */
  attach(vm: VM): void {
    const events = vm.evm.events!;
    events.on("step", (step: InterpreterStep, resolve?: (r?: unknown) => void) => {
      void this.#step(step).then(() => resolve?.(), () => resolve?.());
    });
    events.on("beforeMessage", (msg: Message) => this.#enter(msg));
    events.on("afterMessage", (result: EVMResult) => this.#exit(result));
  }

  /** Starts a transaction. */
  begin(): void {
    this.#frames = [[]];
    this.#lastOp = [];
  }

  async #step(step: InterpreterStep): Promise<void> {
    const name = step.opcode.name;
    this.#lastOp[step.depth] = name;
    const frame = this.#frames.at(-1)!;
    if (name.startsWith("LOG")) frame.push({ kind: "log" });
    else if (name === "SELFDESTRUCT") {
      const beneficiary = step.stack[step.stack.length - 1];
      const balance = (await step.stateManager.getAccount(step.address))?.balance ?? 0n;
      if (balance > 0n) {
        frame.push({
          kind: "transfer",
          from: step.address.bytes,
          to: hexToBytes(`0x${beneficiary.toString(16).padStart(40, "0").slice(-40)}`),
          value: balance,
        });
      }
    }
  }

  #enter(msg: Message): void {
    const frame: Entry[] = [];
    if (msg.value > 0n && !msg.delegatecall) {
      const callcode = msg.depth > 0 && this.#lastOp[msg.depth - 1] === "CALLCODE";
      const to = callcode
        ? (msg as { _codeAddress?: { bytes: Uint8Array } })._codeAddress?.bytes
        : msg.to?.bytes;
      frame.push({ kind: "transfer", from: msg.caller.bytes, to, value: msg.value });
    }
    this.#frames.push(frame);
  }

  #exit(result: EVMResult): void {
    const frame = this.#frames.pop()!;
    if (result.execResult.exceptionError !== undefined) return;
    const first = frame[0];
    if (first?.kind === "transfer" && first.to === undefined) first.to = result.createdAddress?.bytes;
    this.#frames.at(-1)!.push(...frame);
  }

  /** The transaction's logs with its transfers among them, in execution order. */
  logs(contractLogs: readonly Log[]): Log[] {
    const out: Log[] = [];
    let next = 0;
    for (const e of this.#frames[0]) {
      if (e.kind === "log") {
        const log = contractLogs[next++];
        if (log === undefined) break;
        out.push(log);
      } else if (e.to !== undefined) out.push(transferLog(e.from, e.to, e.value));
    }
    if (next !== contractLogs.length) {
      throw new BaseError(
        "SIMULATE_TRACE_MISMATCH",
        `Cannot place transfer logs: ${next} LOG steps succeeded but the transaction has ${contractLogs.length} logs`,
      );
    }
    return out;
  }
}
