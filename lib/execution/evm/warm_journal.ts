/**
 * @ethereumjs/evm's Journal keeps the "always warm" addresses of a transaction (EIP-2929: the
 * precompiles, 18 of them from Prague, the sender, the recipient, the coinbase; EIP-2930 access list
 * entries) in a map from address to the set of its warm slots, and makes a new, nearly always empty,
 * Set for each of them in every transaction (a fifth of the Sets a transfer allocates, measured with
 * the sampling heap profiler). Here those addresses share one empty set until a slot of theirs is
 * added. The journal's readers only ask `has`; `addAlwaysWarmSlot`, the one writer, is replaced too.
 */
import { stripHexPrefix } from "@ethereumjs/util";
import { BaseError } from "../../common/errors.ts";

/** The slots of an always-warm address without warm slots (shared: never written). */
const NO_SLOTS = new Set<string>();
Object.defineProperty(NO_SLOTS, "add", {
  value: () => {
    throw new BaseError("SHARED_WARM_SET", "Cannot add a slot to the shared empty warm-slot set");
  },
});

interface JournalLike {
  alwaysWarmJournal: Map<string, Set<string>>;
  accessList?: Map<string, Set<string>>;
  addAlwaysWarmAddress(addressStr: string, addToAccessList?: boolean): void;
  addAlwaysWarmSlot(addressStr: string, slotStr: string, addToAccessList?: boolean): void;
}

const PATCHED = Symbol("keel.sharedWarmSlots");

/** Patches the Journal class of `journal` (once per class; every EVM's journal then shares it). */
export function shareEmptyWarmSlotSets(journal: object): void {
  const proto = Object.getPrototypeOf(journal) as JournalLike & { [PATCHED]?: true };
  if (proto[PATCHED]) return;
  proto[PATCHED] = true;
  proto.addAlwaysWarmAddress = function (this: JournalLike, addressStr: string, addToAccessList = false) {
    const address = stripHexPrefix(addressStr);
    if (!this.alwaysWarmJournal.has(address)) this.alwaysWarmJournal.set(address, NO_SLOTS);
    if (addToAccessList && this.accessList !== undefined && !this.accessList.has(address)) {
      this.accessList.set(address, new Set());
    }
  };
  proto.addAlwaysWarmSlot = function (
    this: JournalLike,
    addressStr: string,
    slotStr: string,
    addToAccessList = false,
  ) {
    const address = stripHexPrefix(addressStr);
    this.addAlwaysWarmAddress(address, addToAccessList);
    let slots = this.alwaysWarmJournal.get(address)!;
    if (slots === NO_SLOTS) this.alwaysWarmJournal.set(address, slots = new Set());
    const slot = stripHexPrefix(slotStr);
    slots.add(slot);
    if (addToAccessList && this.accessList !== undefined) this.accessList.get(address)!.add(slot);
  };
}

/**
 * An always-warm journal map holding `addresses` (unprefixed hex) with the shared empty slot set: a call
 * starts from a copy (`new Map(template)`) instead of adding each precompile again.
 */
export function warmAddressTemplate(addresses: readonly string[]): ReadonlyMap<string, Set<string>> {
  return new Map(addresses.map((a) => [stripHexPrefix(a), NO_SLOTS]));
}
