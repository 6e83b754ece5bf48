/**
 * References to L1 and L2 blocks as the rollup node tracks them (op-node's eth.L1BlockRef and
 * eth.L2BlockRef): enough to follow a chain and its L1 origins without the whole blocks.
 */

/** A block by hash and number. */
export interface BlockId {
  hash: Uint8Array;
  number: bigint;
}

export interface L1BlockRef extends BlockId {
  parentHash: Uint8Array;
  /** Seconds. */
  timestamp: bigint;
}

export interface L2BlockRef extends BlockId {
  parentHash: Uint8Array;
  timestamp: bigint;
  /** The L1 block of the L2 block's epoch. */
  l1Origin: BlockId;
  /** The block's position in its epoch (0 for the first L2 block of an epoch). */
  sequenceNumber: bigint;
}

/** The fields of an L1 block header that derivation reads (L1 info deposit, payload attributes). */
export interface L1Header extends L1BlockRef {
  /** 0 before London. */
  baseFeePerGas: bigint;
  /** prevRandao after the Merge. */
  mixHash: Uint8Array;
  /** From Cancun. */
  excessBlobGas?: bigint;
  blobGasUsed?: bigint;
  parentBeaconBlockRoot?: Uint8Array;
}
