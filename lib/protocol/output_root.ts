/**
 * L2 output roots (specs/protocol/proposals.md "L2 Output Commitment Construction"):
 * `keccak256(version ++ state_root ++ withdrawal_storage_root ++ latest_block_hash)`, version 0 being
 * 32 zero bytes; the withdrawal storage root is the L2ToL1MessagePasser's storage root (from Isthmus
 * the block header's withdrawalsRoot).
 */
import { BaseError } from "../common/errors.ts";
import { keccak256 } from "../common/hash.ts";

export const OUTPUT_VERSION_V0: Uint8Array = new Uint8Array(32);

export function outputRootV0(
  stateRoot: Uint8Array,
  messagePasserStorageRoot: Uint8Array,
  blockHash: Uint8Array,
): Uint8Array {
  for (
    const [name, v] of [["stateRoot", stateRoot], ["messagePasserStorageRoot", messagePasserStorageRoot], [
      "blockHash",
      blockHash,
    ]] as const
  ) {
    if (v.length !== 32) {
      throw new BaseError("OUTPUT_INVALID", `Cannot compute the output root: ${name} is ${v.length} bytes`);
    }
  }
  const preimage = new Uint8Array(128);
  preimage.set(OUTPUT_VERSION_V0, 0);
  preimage.set(stateRoot, 32);
  preimage.set(messagePasserStorageRoot, 64);
  preimage.set(blockHash, 96);
  return keccak256(preimage);
}
