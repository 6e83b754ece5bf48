/**
 * Header fields that follow from the parent and the payload attributes, shared by the builder and the
 * importer: base fee and extraData (protocol/eip1559.ts: exec-engine.md "1559 Parameters",
 * holocene/exec-engine.md, jovian/exec-engine.md "Minimum Base Fee") and the blob gas fields.
 */
import { createBlockHeader } from "@ethereumjs/block";
import { Hardfork } from "@ethereumjs/common";
import { BaseError } from "../../common/errors.ts";
import type { Header } from "../../protocol/block.ts";
import type { ChainConfig } from "../../protocol/chain_config.ts";
import { nextBaseFee, payloadExtraData, validateExtraData } from "../../protocol/eip1559.ts";
import { forkRules } from "./common.ts";

export interface ExtraDataAttributes {
  timestamp: bigint;
  eip1559Params?: Uint8Array;
  minBaseFee?: bigint;
  extraData?: Uint8Array;
}

/** Ethereum's EIP-1559 parameters (plain chains). */
const L1_EIP1559 = { elasticity: 2n, denominator: 8n, denominatorCanyon: 8n };

/** extraData of a new block: Holocene/Jovian fee parameters on OP chains, the attributes' bytes elsewhere. */
export function expectedExtraData(config: ChainConfig, attrs: ExtraDataAttributes): Uint8Array {
  if (config.op === undefined) return attrs.extraData ?? new Uint8Array();
  return payloadExtraData(
    config.op.forks,
    attrs.timestamp,
    config.op.eip1559,
    attrs.eip1559Params,
    attrs.minBaseFee,
  );
}

/**
 * Checks a header's extraData: at most 32 bytes; on OP chains empty before Holocene, version 0 (9 bytes)
 * under Holocene, version 1 (17 bytes) from Jovian, with a non-zero denominator.
 */
export function checkExtraData(config: ChainConfig, timestamp: bigint, extraData: Uint8Array): void {
  if (extraData.length > 32) {
    throw new BaseError("INVALID_EXTRA_DATA", `Invalid extraData: ${extraData.length} bytes, max 32`);
  }
  if (config.op !== undefined) validateExtraData(config.op.forks, timestamp, extraData);
}

/** The base fee of the child of `parent` at `timestamp` (protocol/eip1559.ts nextBaseFee). */
export function nextBlockBaseFee(config: ChainConfig, parent: Header, timestamp: bigint): bigint {
  const p = {
    gasUsed: parent.gasUsed,
    gasLimit: parent.gasLimit,
    baseFee: parent.baseFeePerGas ?? 0n,
    extraData: parent.extraData,
    timestamp: parent.timestamp,
    blobGasUsed: parent.blobGasUsed,
  };
  if (config.op === undefined) return nextBaseFee(p, L1_EIP1559, {}, timestamp);
  return nextBaseFee(p, config.op.eip1559, config.op.forks, timestamp);
}

/** Blob gas fields: always 0 on OP chains (Ecotone..Isthmus); EIP-4844 excess blob gas on plain chains. */
export function expectedBlobFields(
  config: ChainConfig,
  parent: Header,
  timestamp: bigint,
): { excessBlobGas: bigint } {
  if (config.op !== undefined) return { excessBlobGas: 0n };
  const child = forkRules(config, timestamp);
  const parentRules = forkRules(config, parent.timestamp);
  if (!parentRules.common.gteHardfork(Hardfork.Cancun)) return { excessBlobGas: 0n };
  const ph = createBlockHeader(
    {
      number: parent.number,
      timestamp: parent.timestamp,
      gasLimit: parent.gasLimit,
      baseFeePerGas: parent.baseFeePerGas,
      blobGasUsed: parent.blobGasUsed ?? 0n,
      excessBlobGas: parent.excessBlobGas ?? 0n,
      parentBeaconBlockRoot: parent.parentBeaconBlockRoot ?? new Uint8Array(32),
      withdrawalsRoot: parent.withdrawalsRoot,
      requestsHash: parent.requestsHash,
    },
    { common: parentRules.common, skipConsensusFormatValidation: true },
  );
  return { excessBlobGas: ph.calcNextExcessBlobGas(child.common) };
}

/**
 * The blob base fee of a block with `excessBlobGas` at `timestamp` on a plain chain (EIP-4844
 * fake_exponential with the fork's update fraction: 3338477 on Cancun, 5007716 from Prague, EIP-7691);
 * 1 wei before Cancun and on OP chains, which carry no blobs.
 */
export function blobBaseFee(config: ChainConfig, timestamp: bigint, excessBlobGas: bigint): bigint {
  const common = forkRules(config, timestamp).common;
  if (config.op !== undefined || !common.gteHardfork(Hardfork.Cancun)) return 1n;
  const fraction = common.param("blobGasPriceUpdateFraction");
  // EIP-4844 fake_exponential(MIN_BASE_FEE_PER_BLOB_GAS = 1, excess, fraction).
  let i = 1n;
  let output = 0n;
  let acc = fraction;
  while (acc > 0n) {
    output += acc;
    acc = (acc * excessBlobGas) / (fraction * i);
    i++;
  }
  return output / fraction;
}
