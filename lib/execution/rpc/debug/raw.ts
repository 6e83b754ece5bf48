/**
 * debug_getRawHeader, debug_getRawBlock, debug_getRawReceipts, debug_getRawTransaction (geth
 * internal/ethapi DebugAPI): the consensus encodings as hex. A block is
 * rlp([header, transactions, ommers, withdrawals?]) with typed transactions as byte strings and
 * legacy ones as lists; receipts and transactions are typed envelopes.
 */
import { bytesToHex, type Hex } from "../../../common/mod.ts";
import { encodeHeader, encodeReceipt } from "../../../protocol/mod.ts";
import { encodeBlock } from "../../chain/mod.ts";
import { type BlockSpec, defineMethod, RpcError, s } from "../../../rpc/mod.ts";
import { resolveBlock, type TraceBackend } from "./backend.ts";

/**
 * A block named by number (or tag) that the chain does not have yet: geth answers nothing rather than an
 * error (DebugAPI GetRaw*: `block == nil` returns nil, since go-ethereum #31157), "0x" for bytes.
 */
function beyondChain(backend: TraceBackend, spec: BlockSpec): boolean {
  return spec.kind === "number" && backend.chain.getCanonicalHash(spec.number) === undefined;
}

export function getRawHeader(backend: TraceBackend) {
  return defineMethod({
    name: "debug_getRawHeader",
    params: [s.blockTag()] as const,
    handler: ([tag]): Hex =>
      beyondChain(backend, tag) ? "0x" : bytesToHex(encodeHeader(resolveBlock(backend, tag).header)),
  });
}

export function getRawBlock(backend: TraceBackend) {
  return defineMethod({
    name: "debug_getRawBlock",
    params: [s.blockTag()] as const,
    handler: ([tag]): Hex => {
      if (beyondChain(backend, tag)) return "0x";
      const { hash } = resolveBlock(backend, tag);
      const block = backend.chain.getBlockByHash(hash);
      if (block === undefined) throw RpcError.server(`block ${bytesToHex(hash)} not found`);
      return bytesToHex(encodeBlock(block));
    },
  });
}

/** debug_getRawTransactions [block] (reth): the block's transactions in their consensus (EIP-2718) encodings. */
export function getRawTransactions(backend: TraceBackend) {
  return defineMethod({
    name: "debug_getRawTransactions",
    params: [s.blockTag()] as const,
    handler: ([tag]): Hex[] => {
      if (beyondChain(backend, tag)) return [];
      const { hash } = resolveBlock(backend, tag);
      const block = backend.chain.getBlockByHash(hash);
      if (block === undefined) throw RpcError.server(`block ${bytesToHex(hash)} not found`);
      return block.transactions.map(bytesToHex);
    },
  });
}

export function getRawReceipts(backend: TraceBackend) {
  return defineMethod({
    name: "debug_getRawReceipts",
    params: [s.blockTag()] as const,
    handler: ([tag]): Hex[] | null => {
      if (beyondChain(backend, tag)) return null;
      const { hash } = resolveBlock(backend, tag);
      const receipts = backend.chain.getReceipts(hash);
      if (receipts === undefined) throw RpcError.server(`receipts of block ${bytesToHex(hash)} not found`);
      return receipts.map((r) => bytesToHex(encodeReceipt(r)));
    },
  });
}

export function getRawTransaction(backend: TraceBackend) {
  return defineMethod({
    name: "debug_getRawTransaction",
    params: [s.hash()] as const,
    handler: ([hash]): Hex => {
      const loc = backend.chain.getTransactionLocation(hash);
      if (loc === undefined) return "0x";
      const block = backend.chain.getBlockByHash(loc.blockHash);
      const tx = block?.transactions[loc.index];
      return tx === undefined ? "0x" : bytesToHex(tx);
    },
  });
}
