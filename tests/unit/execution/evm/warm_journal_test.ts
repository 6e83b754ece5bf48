import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createEVM } from "@ethereumjs/evm";
import { hexToBytes } from "../../../../lib/common/bytes.ts";
import { shareEmptyWarmSlotSets } from "../../../../lib/execution/evm/warm_journal.ts";
import { assert, assertEquals } from "../../../assert.ts";

const A = "0x" + "aa".repeat(20);
const B = "0x" + "bb".repeat(20);
const S1 = "0x" + "01".repeat(32);
const S2 = "0x" + "02".repeat(32);

Deno.test("warm journal: always-warm addresses share no slots; a slot warms only its own address", async () => {
  const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) });
  shareEmptyWarmSlotSets(evm.journal);
  shareEmptyWarmSlotSets(evm.journal); // idempotent
  const j = evm.journal;
  j.addAlwaysWarmAddress(A);
  j.addAlwaysWarmAddress(B);
  j.addAlwaysWarmSlot(A, S1);
  assert(j.isWarmedAddress(hexToBytes(A)) && j.isWarmedAddress(hexToBytes(B)));
  assert(j.isWarmedStorage(hexToBytes(A), hexToBytes(S1)));
  assert(!j.isWarmedStorage(hexToBytes(B), hexToBytes(S1)));
  assert(!j.isWarmedStorage(hexToBytes(A), hexToBytes(S2)));
  j.addAlwaysWarmSlot(B, S2);
  assert(j.isWarmedStorage(hexToBytes(B), hexToBytes(S2)));
  assert(!j.isWarmedStorage(hexToBytes(A), hexToBytes(S2)));
  // A new transaction starts cold, and another EVM's journal behaves the same.
  j.cleanJournal();
  assert(!j.isWarmedAddress(hexToBytes(A)));
  const other =
    (await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) })).journal;
  other.addAlwaysWarmAddress(A);
  assert(!other.isWarmedStorage(hexToBytes(A), hexToBytes(S1)));
});

Deno.test("warm journal: the access list being reported (eth_createAccessList) gets the addresses and slots", async () => {
  const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) });
  shareEmptyWarmSlotSets(evm.journal);
  const j = evm.journal;
  j.startReportingAccessList();
  j.addAlwaysWarmAddress(A, true);
  j.addAlwaysWarmSlot(B, S1, true);
  j.addAlwaysWarmAddress(B, true);
  assertEquals([...j.accessList!.keys()], [A.slice(2), B.slice(2)]);
  assertEquals([...j.accessList!.get(A.slice(2))!], []);
  assertEquals([...j.accessList!.get(B.slice(2))!], [S1.slice(2)]);
});
