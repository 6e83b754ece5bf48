/** The rollup node's driver: derivation applied to the L2 engine, heads and outputs. */
export * from "./driver.ts";
export * from "./find_heads.ts";
export * from "./safe_db.ts";
