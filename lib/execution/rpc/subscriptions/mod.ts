/** WebSocket `eth_subscribe` kinds of the execution client: newHeads, logs, newPendingTransactions. */
export * from "./eth_subscriptions.ts";
