/** The rollup node's L1 side: transactions and blocks as the L1 node serves them. */
export * from "./l1_tx.ts";
export * from "./l1_client.ts";
export * from "./beacon_client.ts";
export * from "./l1_receipts.ts";
