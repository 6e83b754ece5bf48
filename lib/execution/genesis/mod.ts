/** Genesis: op-geth `genesis.json` parsing, the genesis state and block, and the `--dev` L2 genesis. */
export * from "./genesis.ts";
