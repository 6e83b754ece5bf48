/**
 * The @ethereumjs block a VM runs transactions in (block building, import, replays): the header fields
 * execution reads (number, timestamp, coinbase, gas limit, base fee, prevRandao, the blob fields).
 *
 * @ethereumjs's BlockHeader constructor copies its Common and merges the block parameters into the copy
 * (`updateParams`: a JSON round trip of every parameter set, then the parameter cache rebuilt), about
 * 0.35 ms of a ~5 ms dev block (measured, CPU profile of anvil_mine). The header of every block of one
 * fork has the same Common and the same defaults, so the first one is made by the constructor and the
 * next ones are copies of it with their own fields: the same object as the constructor would build
 * (tested field by field and by serialization).
 */
import { Block, type BlockHeader, createBlock, createBlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { Address } from "@ethereumjs/util";
import type { Header } from "../../protocol/block.ts";
import type { ForkRules } from "./common.ts";

/** The header fields keel gives the VM; the others keep their defaults. */
type Fields = Pick<
  Header,
  | "parentHash"
  | "coinbase"
  | "number"
  | "gasLimit"
  | "timestamp"
  | "extraData"
  | "mixHash"
  | "difficulty"
  | "baseFeePerGas"
  | "withdrawalsRoot"
  | "blobGasUsed"
  | "excessBlobGas"
  | "parentBeaconBlockRoot"
  | "requestsHash"
>;

const OPTIONAL = [
  "baseFeePerGas",
  "withdrawalsRoot",
  "blobGasUsed",
  "excessBlobGas",
  "parentBeaconBlockRoot",
  "requestsHash",
] as const;

/**
 * Headers made by the constructor, per cached Common and per set of optional fields given (a field left
 * out takes a default that depends on the fork, which the template then holds).
 */
const templates = new WeakMap<Common, Map<number, BlockHeader>>();

function fieldsOf(h: Header): Fields {
  return {
    parentHash: h.parentHash,
    coinbase: h.coinbase,
    number: h.number,
    gasLimit: h.gasLimit,
    timestamp: h.timestamp,
    extraData: h.extraData,
    mixHash: h.mixHash,
    difficulty: 0n,
    baseFeePerGas: h.baseFeePerGas,
    withdrawalsRoot: h.withdrawalsRoot,
    blobGasUsed: h.blobGasUsed,
    excessBlobGas: h.excessBlobGas,
    parentBeaconBlockRoot: h.parentBeaconBlockRoot,
    requestsHash: h.requestsHash,
  };
}

/** The header as the constructor would make it, copied from the template of its Common and field set. */
function headerFor(common: Common, fields: Fields): BlockHeader {
  let shape = 0;
  for (let i = 0; i < OPTIONAL.length; i++) if (fields[OPTIONAL[i]] !== undefined) shape |= 1 << i;
  let byShape = templates.get(common);
  if (byShape === undefined) templates.set(common, byShape = new Map());
  const template = byShape.get(shape);
  if (template === undefined) {
    const made = createBlockHeader(fields, { common, skipConsensusFormatValidation: true });
    byShape.set(shape, made);
    return made;
  }
  const header = Object.create(Object.getPrototypeOf(template)) as BlockHeader;
  Object.assign(header, template);
  const h = header as unknown as Record<string, unknown>;
  h.cache = { hash: undefined };
  h.parentHash = fields.parentHash;
  h.coinbase = new Address(fields.coinbase);
  h.number = fields.number;
  h.gasLimit = fields.gasLimit;
  h.timestamp = fields.timestamp;
  h.extraData = fields.extraData;
  h.mixHash = fields.mixHash;
  h.difficulty = fields.difficulty;
  for (const k of OPTIONAL) if (fields[k] !== undefined) h[k] = fields[k];
  Object.freeze(header);
  return header;
}

/** The header fields keel gives the VM (`ejsBlockWith`). */
export type EjsBlockFields = Fields;

/**
 * The @ethereumjs block of `fields` on `common` (eth_call's blocks, with their overrides): a copy of the
 * template header of that Common; `blobBaseFee` replaces what BLOBBASEFEE answers.
 */
export function ejsBlockWith(common: Common, fields: Fields, blobBaseFee?: bigint): Block {
  if (blobBaseFee !== undefined) {
    // Unfrozen, for the replaced method (eth_simulateV1's and eth_call's block override).
    const block = createBlock({ header: fields }, {
      common,
      skipConsensusFormatValidation: true,
      freeze: false,
    });
    block.header.getBlobGasPrice = () => blobBaseFee;
    return block;
  }
  const header = headerFor(common, fields);
  return new Block(header, [], [], undefined, { common: header.common });
}

/**
 * The @ethereumjs block the VM runs transactions in: the header fields execution reads; `blobBaseFee`
 * replaces what BLOBBASEFEE answers.
 */
export function ejsBlockFor(rules: ForkRules, h: Header, blobBaseFee?: bigint): Block {
  return ejsBlockWith(rules.common, fieldsOf(h), blobBaseFee);
}
