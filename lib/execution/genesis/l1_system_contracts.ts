/**
 * The system contracts a Prague L1 needs in its genesis: EIP-4788 beacon roots, EIP-2935 block-hash
 * history, EIP-7002 withdrawal requests and EIP-7251 consolidation requests. The runtime code is the
 * code each EIP's "Deployment" initcode returns (it copies the tail of the initcode after a short
 * prologue); the accounts get nonce 1 and no storage, as go-ethereum's developer genesis places them
 * (core/genesis.go DeveloperGenesisBlock). The EIP-7002/EIP-7251 initcode also stores the excess
 * inhibitor in slot 0, which a genesis alloc leaves out (the first system call would clear it).
 */
import { bytesToHex, hexToBytes } from "../../common/bytes.ts";
import {
  BEACON_ROOTS_ADDRESS,
  BEACON_ROOTS_DEPLOYMENT,
  HISTORY_STORAGE_ADDRESS,
  HISTORY_STORAGE_DEPLOYMENT,
} from "../../protocol/predeploys.ts";
import { CONSOLIDATION_REQUEST_ADDRESS, WITHDRAWAL_REQUEST_ADDRESS } from "../evm/mod.ts";
import type { GenesisAccountJson } from "./genesis.ts";

/** One system contract: where it lives, its EIP deployment initcode and where the runtime code starts in it. */
export interface L1SystemContract {
  eip: number;
  name: string;
  address: Uint8Array;
  initcode: Uint8Array;
  /** The CODECOPY offset of the initcode prologue: runtime code = initcode[codeOffset:]. */
  codeOffset: number;
}

/** EIP-7002 "Deployment": the withdrawal request contract's creation input. */
const WITHDRAWAL_REQUEST_INITCODE = hexToBytes(
  "0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff5f556101f880602d5f395ff33373fffffffffffffffffffffffffffffffffffffffe1460cb5760115f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff146101f457600182026001905f5b5f82111560685781019083028483029004916001019190604d565b909390049250505036603814608857366101f457346101f4575f5260205ff35b34106101f457600154600101600155600354806003026004013381556001015f35815560010160203590553360601b5f5260385f601437604c5fa0600101600355005b6003546002548082038060101160df575060105b5f5b8181146101835782810160030260040181604c02815460601b8152601401816001015481526020019060020154807fffffffffffffffffffffffffffffffff00000000000000000000000000000000168252906010019060401c908160381c81600701538160301c81600601538160281c81600501538160201c81600401538160181c81600301538160101c81600201538160081c81600101535360010160e1565b910180921461019557906002556101a0565b90505f6002555f6003555b5f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff14156101cd57505f5b6001546002828201116101e25750505f6101e8565b01600290035b5f555f600155604c025ff35b5f5ffd",
);

/** EIP-7251 "Deployment": the consolidation request contract's creation input. */
const CONSOLIDATION_REQUEST_INITCODE = hexToBytes(
  "0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff5f5561019e80602d5f395ff33373fffffffffffffffffffffffffffffffffffffffe1460d35760115f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff1461019a57600182026001905f5b5f82111560685781019083028483029004916001019190604d565b9093900492505050366060146088573661019a573461019a575f5260205ff35b341061019a57600154600101600155600354806004026004013381556001015f358155600101602035815560010160403590553360601b5f5260605f60143760745fa0600101600355005b6003546002548082038060021160e7575060025b5f5b8181146101295782810160040260040181607402815460601b815260140181600101548152602001816002015481526020019060030154905260010160e9565b910180921461013b5790600255610146565b90505f6002555f6003555b5f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff141561017357505f5b6001546001828201116101885750505f61018e565b01600190035b5f555f6001556074025ff35b5f5ffd",
);

/** The four contracts, in EIP order (EIP-4788 and EIP-2935 initcode as in protocol/predeploys.ts). */
export const L1_SYSTEM_CONTRACTS: readonly L1SystemContract[] = [
  {
    eip: 4788,
    name: "BeaconRoots",
    address: BEACON_ROOTS_ADDRESS,
    initcode: BEACON_ROOTS_DEPLOYMENT.data,
    codeOffset: 9,
  },
  {
    eip: 2935,
    name: "HistoryStorage",
    address: HISTORY_STORAGE_ADDRESS,
    initcode: HISTORY_STORAGE_DEPLOYMENT.data,
    codeOffset: 9,
  },
  {
    eip: 7002,
    name: "WithdrawalRequests",
    address: WITHDRAWAL_REQUEST_ADDRESS,
    initcode: WITHDRAWAL_REQUEST_INITCODE,
    codeOffset: 45,
  },
  {
    eip: 7251,
    name: "ConsolidationRequests",
    address: CONSOLIDATION_REQUEST_ADDRESS,
    initcode: CONSOLIDATION_REQUEST_INITCODE,
    codeOffset: 45,
  },
];

/** The runtime code of a system contract (what its deployment initcode returns). */
export function systemContractCode(c: L1SystemContract): Uint8Array {
  return c.initcode.subarray(c.codeOffset);
}

/**
 * Genesis alloc entries (op-geth JSON form, keyed by lower-case address) for the four system contracts:
 * code, nonce 1, balance 0. Merge them into an L1 genesis.json `alloc` whose chain activates Prague.
 */
export function l1SystemContractAlloc(): Record<string, GenesisAccountJson> {
  const out: Record<string, GenesisAccountJson> = {};
  for (const c of L1_SYSTEM_CONTRACTS) {
    out[bytesToHex(c.address).toLowerCase()] = {
      balance: "0x0",
      nonce: "0x1",
      code: bytesToHex(systemContractCode(c)),
    };
  }
  return out;
}
