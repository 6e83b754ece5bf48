/** The rollup node's p2p layer: the libp2p host gossiping unsafe blocks, and their way into the engine. */
export * from "./host.ts";
export * from "./unsafe_blocks.ts";
export * from "./payload_queue.ts";
export * from "./payload_by_number.ts";
export * from "./peers.ts";
export * from "./identity.ts";
export * from "./discovery.ts";
export * from "./scoring.ts";
export * from "./peerstore.ts";
export * from "./peer_policy.ts";
export * from "./el_sync.ts";
