/**
 * EIP-7685 execution-layer requests of a plain (L1) chain from Prague:
 * - type 0, EIP-6110 deposits: parsed from the `DepositEvent` logs of the chain's deposit contract;
 * - type 1, EIP-7002 withdrawal requests and type 2, EIP-7251 consolidation requests: the output of a
 *   system call (caller SYSTEM_ADDRESS, 30M gas, no value, not counted in the block's gas) to each queue
 *   contract after the block's transactions.
 * A contract without code or a failing system call makes the block invalid (EIP-7002/EIP-7251 "System
 * call"; go-ethereum core/state_processor.go processRequestsSystemCall: "empty system contract").
 * `requestsHash` = sha256(sha256(r_0) ++ sha256(r_1) ++ ...) over the requests whose data is non-empty.
 * OP chains have no requests (isthmus/exec-engine.md: requestsHash is always sha256("")).
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { Account, Address } from "@ethereumjs/util";
import type { Block as EjsBlock } from "@ethereumjs/block";
import type { VM } from "@ethereumjs/vm";
import { bytesToBigInt, bytesToHex, concatBytes, equalBytes, hexToBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import type { Log } from "../../protocol/receipt.ts";

/** EIP-6110 deposit request type. */
export const DEPOSIT_REQUEST_TYPE = 0x00;
/** EIP-7002 withdrawal request type. */
export const WITHDRAWAL_REQUEST_TYPE = 0x01;
/** EIP-7251 consolidation request type. */
export const CONSOLIDATION_REQUEST_TYPE = 0x02;

/** EIP-4788 SYSTEM_ADDRESS: the caller of system calls. */
export const SYSTEM_ADDRESS = hexToBytes("0xfffffffffffffffffffffffffffffffffffffffe");
/** EIP-7002 WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS. */
export const WITHDRAWAL_REQUEST_ADDRESS = hexToBytes("0x00000961Ef480Eb55e80D19ad83579A64c007002");
/** EIP-7251 CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS. */
export const CONSOLIDATION_REQUEST_ADDRESS = hexToBytes("0x0000BBdDc7CE488642fb579F8B00f3a590007251");
/** Mainnet's deposit contract (EIP-6110 DEPOSIT_CONTRACT_ADDRESS; geth params.MainnetChainConfig). */
export const MAINNET_DEPOSIT_CONTRACT_ADDRESS = hexToBytes("0x00000000219ab540356cBB839Cbe05303d7705Fa");
/** keccak256("DepositEvent(bytes,bytes,bytes,bytes,bytes)") (EIP-6110 DEPOSIT_EVENT_SIGNATURE_HASH). */
export const DEPOSIT_EVENT_TOPIC = hexToBytes(
  "0x649bbc62d0e31342afea4e5cd82d4049e7e1ee912fc0889aa790803be39038c5",
);
/** EIP-4788 / EIP-7002 system call gas. */
export const SYSTEM_CALL_GAS = 30_000_000n;

/** EIP-7685: sha256 over sha256 of each request with non-empty data (no requests: sha256("")). */
export function computeRequestsHash(requests: readonly Uint8Array[]): Uint8Array {
  return sha256(concatBytes(...requests.filter((r) => r.length > 1).map((r) => sha256(r))));
}

function requestError(message: string, meta: Record<string, unknown> = {}): BaseError {
  return new BaseError("INVALID_REQUESTS", message, { meta });
}

/**
 * Checks an Engine API `executionRequests` list (execution-apis prague.md "engine_newPayloadV4"): each
 * element has a type byte and data, types strictly ascending (so no type twice). Throws INVALID_REQUESTS.
 */
export function checkRequestList(requests: readonly Uint8Array[]): void {
  let last = -1;
  requests.forEach((r, i) => {
    if (r.length <= 1) {
      throw requestError(
        `Invalid execution requests: request ${i} has ${r.length} bytes, want type and data`,
        {
          index: i,
        },
      );
    }
    if (r[0] <= last) {
      throw requestError(
        `Invalid execution requests: request ${i} has type ${r[0]} after type ${last} (types must ascend)`,
        { index: i },
      );
    }
    last = r[0];
  });
}

// EIP-6110 "Deposit log layout": five dynamic `bytes` fields at fixed offsets with fixed sizes.
const DEPOSIT_FIELDS = [
  { name: "pubkey", offset: 160, size: 48 },
  { name: "withdrawal_credentials", offset: 256, size: 32 },
  { name: "amount", offset: 320, size: 8 },
  { name: "signature", offset: 384, size: 96 },
  { name: "index", offset: 512, size: 8 },
] as const;
const DEPOSIT_LOG_SIZE = 576;

/**
 * The 192-byte deposit request (pubkey ++ withdrawal_credentials ++ amount ++ signature ++ index) of a
 * `DepositEvent` log's data. Any other layout is invalid (EIP-6110 `is_valid_deposit_event_data`).
 */
export function depositRequestFromLog(data: Uint8Array): Uint8Array {
  if (data.length !== DEPOSIT_LOG_SIZE) {
    throw requestError(`Cannot parse deposit log: data length is ${data.length}, want ${DEPOSIT_LOG_SIZE}`);
  }
  const parts: Uint8Array[] = [];
  DEPOSIT_FIELDS.forEach((f, i) => {
    const offset = bytesToBigInt(data.subarray(i * 32, i * 32 + 32));
    if (offset !== BigInt(f.offset)) {
      throw requestError(`Cannot parse deposit log: ${f.name} offset is ${offset}, want ${f.offset}`);
    }
    const size = bytesToBigInt(data.subarray(f.offset, f.offset + 32));
    if (size !== BigInt(f.size)) {
      throw requestError(`Cannot parse deposit log: ${f.name} size is ${size}, want ${f.size}`);
    }
    parts.push(data.subarray(f.offset + 32, f.offset + 32 + f.size));
  });
  return concatBytes(...parts);
}

/** The type-0 request of a block's logs (undefined when it has no deposit), in log order. */
export function depositRequests(
  logs: Iterable<Log>,
  depositContract: Uint8Array,
): Uint8Array | undefined {
  const parts: Uint8Array[] = [];
  for (const log of logs) {
    if (
      equalBytes(log.address, depositContract) && log.topics.length > 0 &&
      equalBytes(log.topics[0], DEPOSIT_EVENT_TOPIC)
    ) {
      parts.push(depositRequestFromLog(log.data));
    }
  }
  if (parts.length === 0) return undefined;
  return concatBytes(new Uint8Array([DEPOSIT_REQUEST_TYPE]), ...parts);
}

/**
 * Runs the EIP-7002/EIP-7251 system call to `contract` and returns `type ++ output`, or undefined when
 * the output is empty. SYSTEM_ADDRESS's account is left as it was (EIP-4788 system call rules).
 */
export async function systemCallRequests(
  vm: VM,
  block: EjsBlock,
  type: number,
  contract: Uint8Array,
): Promise<Uint8Array | undefined> {
  const to = new Address(contract);
  const sm = vm.stateManager;
  if ((await sm.getCode(to)).length === 0) {
    throw requestError(`Cannot process requests: empty system contract, no code at ${bytesToHex(contract)}`, {
      contract: bytesToHex(contract),
    });
  }
  const caller = new Address(SYSTEM_ADDRESS);
  const before = await sm.getAccount(caller);
  await vm.evm.journal.cleanup();
  await vm.evm.journal.checkpoint();
  let output: Uint8Array;
  try {
    const res = await vm.evm.runCall({
      block,
      caller,
      origin: caller,
      to,
      gasLimit: SYSTEM_CALL_GAS,
      gasPrice: 0n,
      value: 0n,
      data: new Uint8Array(),
    });
    const failure = res.execResult.exceptionError?.error;
    if (failure !== undefined) {
      throw requestError(
        `Cannot process requests: system call to ${bytesToHex(contract)} failed: ${failure}`,
        {
          contract: bytesToHex(contract),
        },
      );
    }
    output = res.execResult.returnValue;
    await vm.evm.journal.commit();
  } catch (e) {
    await vm.evm.journal.revert();
    throw e;
  }
  await vm.evm.journal.cleanup();
  (vm.evm.stateManager as { originalStorageCache?: { clear(): void } }).originalStorageCache?.clear();
  if (before === undefined) await sm.deleteAccount(caller);
  else {await sm.putAccount(
      caller,
      new Account(before.nonce, before.balance, before.storageRoot, before.codeHash),
    );}
  if (output.length === 0) return undefined;
  return concatBytes(new Uint8Array([type]), output);
}
