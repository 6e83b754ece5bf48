/**
 * The OptimismPortal's `TransactionDeposited` event and the user deposits derived from it
 * (specs/protocol/deposits.md "Deposit Contract", "User-Deposited Transactions" and "Source hash
 * computation"; op-node `derive.UnmarshalDepositLogEvent`, `MarshalDepositLogEvent`, `UserDeposits`).
 *
 * ```solidity
 * event TransactionDeposited(address indexed from, address indexed to, uint256 indexed version, bytes opaqueData);
 * ```
 *
 * Version 0 `opaqueData` is `abi.encodePacked(uint256 mint, uint256 value, uint64 gasLimit, bool isCreation, bytes data)`,
 * wrapped once more as an ABI `bytes` in the log data: `offset (= 32) ++ length ++ opaqueData ++ zero padding`.
 */
import { bigIntToBytes, bytesToBigInt, bytesToHex, concatBytes, equalBytes } from "../common/bytes.ts";
import { BaseError } from "../common/errors.ts";
import { keccak256 } from "../common/hash.ts";
import { type DepositTx, userDepositSourceHash } from "./deposit_tx.ts";

/** The event signature whose keccak256 is topic 0. */
export const TRANSACTION_DEPOSITED_SIGNATURE = "TransactionDeposited(address,address,uint256,bytes)";

/** `keccak256("TransactionDeposited(address,address,uint256,bytes)")`. */
export const TRANSACTION_DEPOSITED_TOPIC: Uint8Array = keccak256(
  new TextEncoder().encode(TRANSACTION_DEPOSITED_SIGNATURE),
);

/** Topic 3 of a version-0 deposit event: `uint256(0)`. */
export const DEPOSIT_EVENT_VERSION_0: Uint8Array = new Uint8Array(32);

/** An L1 log as derivation needs it: emitter, topics (32 bytes each) and data. */
export interface L1Log {
  address: Uint8Array;
  topics: readonly Uint8Array[];
  data: Uint8Array;
}

/** An L1 receipt as derivation needs it: status (1 success, 0 failure) and logs, in block order. */
export interface L1Receipt {
  status: 0 | 1;
  logs: readonly L1Log[];
}

/** The deposit fields an event carries (a DepositTx without sourceHash and isSystemTx). */
export interface DepositEventFields {
  from: Uint8Array;
  /** null for a contract creation. */
  to: Uint8Array | null;
  mint: bigint;
  value: bigint;
  gas: bigint;
  data: Uint8Array;
}

/** mint(32) ++ value(32) ++ gas(8) ++ isCreation(1). */
const OPAQUE_HEADER_LENGTH = 73;
const UINT64_MAX = (1n << 64n) - 1n;
const UINT256_MAX = (1n << 256n) - 1n;

function invalid(reason: string, meta: Record<string, unknown> = {}): BaseError {
  return new BaseError("INVALID_DEPOSIT_LOG", `Cannot decode deposit log: ${reason}`, { meta });
}

/**
 * Decode one `TransactionDeposited` log into the user-deposited transaction (deposits.md
 * "User-Deposited Transactions"). `logIndex` is the log's index among all logs of the L1 block
 * (the `l1LogIndex` of the user-deposit source hash). The emitter address is not checked here:
 * `depositsFromReceipts` filters by it.
 *
 * Checks as op-node's `UnmarshalDepositLogEvent`: 4 topics, topic 0 the event, data at least 64
 * bytes and a multiple of 32, ABI offset exactly 32, ABI length a uint64 that fits the data with
 * minimal padding (fewer than 32 padding bytes), version 0, opaqueData at least 73 bytes. As there,
 * `from`/`to` are the low 20 bytes of their topics, and any non-zero isCreation byte means creation.
 */
export function decodeDepositLog(log: L1Log, l1BlockHash: Uint8Array, logIndex: bigint): DepositTx {
  const { topics, data } = log;
  if (topics.length !== 4) {
    throw invalid(
      `expected 4 event topics (event identity, indexed from, indexed to, indexed version), got ${topics.length}`,
      { topics: topics.length },
    );
  }
  topics.forEach((topic, i) => {
    if (topic.length !== 32) throw invalid(`topic ${i} is ${topic.length} bytes, expected 32`);
  });
  if (!equalBytes(topics[0], TRANSACTION_DEPOSITED_TOPIC)) {
    throw invalid("topic 0 is not the TransactionDeposited event");
  }
  if (data.length < 64) {
    throw invalid(`incomplete opaqueData slice header (${data.length} bytes)`, { length: data.length });
  }
  if (data.length % 32 !== 0) {
    throw invalid(`log data is ${data.length} bytes, not a multiple of 32`, { length: data.length });
  }
  const offset = bytesToBigInt(data.subarray(0, 32));
  if (offset !== 32n) throw invalid(`invalid opaqueData slice header offset: ${offset}`, { offset });
  const length = bytesToBigInt(data.subarray(32, 64));
  const available = BigInt(data.length - 64);
  // A uint64 that fits, with minimal padding: adding 32 bytes must exceed the data.
  if (length > UINT64_MAX || length > available || length + 32n <= available) {
    throw invalid(`invalid opaqueData slice header length: ${length}`, { length });
  }
  const opaqueData = data.subarray(64, 64 + Number(length));
  if (!equalBytes(topics[3], DEPOSIT_EVENT_VERSION_0)) {
    throw invalid(`unsupported deposit version ${bytesToHex(topics[3])}`);
  }
  if (opaqueData.length < OPAQUE_HEADER_LENGTH) {
    throw invalid(`version 0 opaqueData is ${opaqueData.length} bytes, at least 73 expected`);
  }
  const isCreation = opaqueData[72] !== 0;
  return {
    sourceHash: userDepositSourceHash(l1BlockHash, logIndex),
    from: topics[1].slice(12),
    to: isCreation ? null : topics[2].slice(12),
    mint: bytesToBigInt(opaqueData.subarray(0, 32)),
    value: bytesToBigInt(opaqueData.subarray(32, 64)),
    gas: bytesToBigInt(opaqueData.subarray(64, 72)),
    isSystemTx: false,
    data: opaqueData.slice(OPAQUE_HEADER_LENGTH),
  };
}

function checkAddress(name: string, address: Uint8Array): void {
  if (address.length !== 20) {
    throw new BaseError(
      "INVALID_DEPOSIT_LOG",
      `Cannot encode deposit log: ${name} is ${address.length} bytes, expected 20`,
    );
  }
}

function checkRange(name: string, value: bigint, max: bigint): void {
  if (value < 0n || value > max) {
    throw new BaseError("INVALID_DEPOSIT_LOG", `Cannot encode deposit log: ${name} ${value} is out of range`);
  }
}

function leftPad32(address: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  out.set(address, 12);
  return out;
}

/**
 * The version-0 `TransactionDeposited` log the portal at `depositContract` emits for `deposit`
 * (op-node `MarshalDepositLogEvent`): a creation has the zero address in the `to` topic and
 * isCreation = 1; the data is the ABI `bytes` of the packed opaqueData, zero-padded to 32 bytes.
 */
export function encodeDepositLog(depositContract: Uint8Array, deposit: DepositEventFields): L1Log {
  checkAddress("deposit contract", depositContract);
  checkAddress("from", deposit.from);
  if (deposit.to !== null) checkAddress("to", deposit.to);
  checkRange("mint", deposit.mint, UINT256_MAX);
  checkRange("value", deposit.value, UINT256_MAX);
  checkRange("gas", deposit.gas, UINT64_MAX);
  const opaqueData = concatBytes(
    bigIntToBytes(deposit.mint, 32),
    bigIntToBytes(deposit.value, 32),
    bigIntToBytes(deposit.gas, 8),
    new Uint8Array([deposit.to === null ? 1 : 0]),
    deposit.data,
  );
  const padding = (32 - (opaqueData.length % 32)) % 32;
  return {
    address: depositContract.slice(),
    topics: [
      TRANSACTION_DEPOSITED_TOPIC.slice(),
      leftPad32(deposit.from),
      deposit.to === null ? new Uint8Array(32) : leftPad32(deposit.to),
      DEPOSIT_EVENT_VERSION_0.slice(),
    ],
    data: concatBytes(
      bigIntToBytes(32n, 32),
      bigIntToBytes(BigInt(opaqueData.length), 32),
      opaqueData,
      new Uint8Array(padding),
    ),
  };
}

/**
 * The user deposits of one L1 block, in log order (op-node `UserDeposits`): every log of a
 * successful receipt that `depositContract` emitted with topic 0 = TransactionDeposited. Each
 * log's index counts all logs of the block before it, over every receipt passed (pass all the
 * block's receipts, in order; failed receipts carry no logs on L1).
 *
 * Deposits may never be skipped: like op-node, every malformed deposit log is reported, and the
 * error (code `INVALID_DEPOSIT_LOG`, severity `critical`, `meta.errors` listing each) is thrown
 * after all logs were read.
 */
export function depositsFromReceipts(
  receipts: readonly L1Receipt[],
  depositContract: Uint8Array,
  l1BlockHash: Uint8Array,
): DepositTx[] {
  const out: DepositTx[] = [];
  const errors: { receipt: number; log: number; error: BaseError }[] = [];
  let logIndex = 0n;
  receipts.forEach((receipt, i) => {
    receipt.logs.forEach((log, j) => {
      const index = logIndex++;
      if (receipt.status !== 1) return;
      if (!equalBytes(log.address, depositContract)) return;
      if (log.topics.length === 0 || !equalBytes(log.topics[0], TRANSACTION_DEPOSITED_TOPIC)) return;
      try {
        out.push(decodeDepositLog(log, l1BlockHash, index));
      } catch (error) {
        if (!(error instanceof BaseError)) throw error;
        errors.push({ receipt: i, log: j, error });
      }
    });
  });
  if (errors.length > 0) {
    const first = errors[0];
    throw new BaseError(
      "INVALID_DEPOSIT_LOG",
      `Cannot derive deposits: ${errors.length} malformed deposit log(s); receipt ${first.receipt}, log ${first.log}: ${first.error.message}`,
      { meta: { errors }, severity: "critical", cause: first.error },
    );
  }
  return out;
}
