/** The sequencer: unsafe L2 blocks from the engine's pool on the L1 origins it selects. */
export * from "./sequencer.ts";
