/**
 * The Engine API payload attributes as the block builder takes them, with the OP rules checked
 * (specs/protocol/exec-engine.md "Extended PayloadAttributesV1": gasLimit required on OP chains;
 * holocene/exec-engine.md eip1559Params and jovian/exec-engine.md minBaseFee, validated here so that
 * bad ones are attribute errors, not build failures).
 */
import { BaseError } from "../../common/errors.ts";
import {
  type ChainConfig,
  type Header,
  type PayloadAttributes,
  payloadExtraData,
} from "../../protocol/mod.ts";
import type { BlockAttributes } from "../evm/mod.ts";
import { ENGINE_ERRORS } from "./engine_types.ts";

/** ENGINE_INVALID_ATTRIBUTES "Invalid payload attributes: <message>". */
export function attrsError(message: string, cause?: unknown): BaseError {
  return new BaseError(ENGINE_ERRORS.INVALID_ATTRIBUTES, `Invalid payload attributes: ${message}`, { cause });
}

/** Internal attributes of the builder, with the OP rules applied to the Engine API attributes. */
export function toBlockAttributes(
  config: ChainConfig,
  parent: Header,
  attrs: PayloadAttributes,
): BlockAttributes {
  if (attrs.timestamp <= parent.timestamp) {
    throw attrsError(`timestamp ${attrs.timestamp} is not after the parent's ${parent.timestamp}`);
  }
  const out: BlockAttributes = {
    timestamp: attrs.timestamp,
    coinbase: attrs.suggestedFeeRecipient,
    prevRandao: attrs.prevRandao,
    gasLimit: attrs.gasLimit ?? parent.gasLimit,
    parentBeaconBlockRoot: attrs.parentBeaconBlockRoot,
  };
  if (config.op !== undefined) {
    // exec-engine.md "Extended PayloadAttributesV1": gasLimit is required on OP chains.
    if (attrs.gasLimit === undefined) throw attrsError("gasLimit is required on an OP chain");
    try {
      // Validated here so bad eip1559Params/minBaseFee are attribute errors, not build failures.
      payloadExtraData(
        config.op.forks,
        attrs.timestamp,
        config.op.eip1559,
        attrs.eip1559Params,
        attrs.minBaseFee,
      );
    } catch (e) {
      throw attrsError((e as Error).message, e);
    }
    if (attrs.eip1559Params !== undefined) out.eip1559Params = attrs.eip1559Params;
    if (attrs.minBaseFee !== undefined) out.minBaseFee = attrs.minBaseFee;
  }
  return out;
}
