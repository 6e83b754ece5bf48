/**
 * TransactionDeposited vectors. op-node's deposit_log_test.go has no fixed vectors (it round-trips
 * random deposits through MarshalDepositLogEvent / UnmarshalDepositLogEvent, as the unit tests do),
 * so the pinned values here are: the event topic (op-node `DepositEventABIHash`, kona
 * `DEPOSIT_EVENT_ABI_HASH`), the opaqueData example of viem's `opaqueDataToDepositData` docs, and
 * viem's independent op-stack code (`getL2TransactionHash`, which derives the L2 deposit tx hash
 * from a portal log and its block hash and log index).
 */
import { decodeEventLog, type Hex, parseAbiItem } from "viem";
import { getL2TransactionHash, opaqueDataToDepositData } from "viem/op-stack";
import { bigIntToBytes, bytesToHex, concatBytes, hexToBytes } from "../../lib/common/bytes.ts";
import {
  decodeDepositLog,
  encodeDepositLog,
  TRANSACTION_DEPOSITED_TOPIC,
} from "../../lib/protocol/deposit_event.ts";
import { depositTxHash } from "../../lib/protocol/deposit_tx.ts";
import { assertEquals } from "../assert.ts";

const PORTAL = hexToBytes("0xbEb5Fc579115071764c7423A4f12eDde41f106Ed");
const EVENT = parseAbiItem(
  "event TransactionDeposited(address indexed from, address indexed to, uint256 indexed version, bytes opaqueData)",
);

Deno.test("deposit_event vectors: TransactionDeposited topic", () => {
  assertEquals(
    bytesToHex(TRANSACTION_DEPOSITED_TOPIC),
    "0xb3813568d9991fc951961fcb4c784893574240a28925604d09fc577c55bb7c32",
  );
});

Deno.test("deposit_event vectors: viem docs opaqueData (mint 420, value 69, gas 21100, creation, 0xdeadbeef)", () => {
  const opaque = hexToBytes(
    "0x00000000000000000000000000000000000000000000000000000000000001a4" +
      "0000000000000000000000000000000000000000000000000000000000000045" +
      "000000000000526c01deadbeef",
  );
  const data = concatBytes(bigIntToBytes(32n, 32), bigIntToBytes(77n, 32), opaque, new Uint8Array(19));
  const log = {
    ...encodeDepositLog(PORTAL, { from: PORTAL, to: null, mint: 0n, value: 0n, gas: 0n, data: opaque }),
    data,
  };
  const tx = decodeDepositLog(log, new Uint8Array(32), 0n);
  assertEquals([tx.mint, tx.value, tx.gas, tx.to, bytesToHex(tx.data)], [
    420n,
    69n,
    21100n,
    null,
    "0xdeadbeef",
  ]);
  assertEquals(opaqueDataToDepositData(bytesToHex(opaque)), {
    mint: 420n,
    value: 69n,
    gas: 21100n,
    isCreation: true,
    data: "0xdeadbeef",
  });
});

Deno.test("deposit_event vectors: the L2 tx hash of a decoded log equals viem's getL2TransactionHash", () => {
  const blockHash = hexToBytes("0x9ba3933dc6ce43c145349770a39c30f9b647f17668f004bd2e05c80a2e7262f7");
  const deposits = [
    {
      from: hexToBytes("0x36bde71c97b33cc4729cf772ae268934f7ab70b2"),
      to: hexToBytes("0x4200000000000000000000000000000000000007"),
      mint: 10n ** 17n,
      value: 10n ** 17n,
      gas: 287_624n,
      data: hexToBytes("0xd764ad0b0001000000000000000000000000000000000000"),
    },
    { from: PORTAL, to: null, mint: 0n, value: 0n, gas: 1_000_000n, data: hexToBytes("0x60806040") },
    { from: PORTAL, to: PORTAL, mint: 1n, value: 0n, gas: 21_000n, data: new Uint8Array(0) },
  ];
  deposits.forEach((deposit, i) => {
    const log = encodeDepositLog(PORTAL, deposit);
    const logIndex = 3 + 40 * i;
    const topics = log.topics.map(bytesToHex) as [Hex, ...Hex[]];
    const decoded = decodeEventLog({ abi: [EVENT], data: bytesToHex(log.data), topics });
    const viemLog = {
      address: bytesToHex(log.address),
      topics,
      data: bytesToHex(log.data),
      blockHash: bytesToHex(blockHash),
      logIndex,
      args: decoded.args,
      eventName: decoded.eventName,
    } as unknown as Parameters<typeof getL2TransactionHash>[0]["log"];
    const ours = depositTxHash(decodeDepositLog(log, blockHash, BigInt(logIndex)));
    assertEquals(bytesToHex(ours), getL2TransactionHash({ log: viemLog }));
  });
});
