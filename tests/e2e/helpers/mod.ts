/** Shared parts of the e2e compatibility suite: a real keel process, npm-installed tools, BenchToken. */
export * from "./keel_process.ts";
export * from "./npm_tool.ts";
export * from "./bench_token.ts";
export * from "./anvil.ts";
export * from "./op_chain.ts";
export * from "./sequencer.ts";
export * from "./p2p.ts";
