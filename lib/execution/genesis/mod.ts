/** Genesis: op-geth `genesis.json` parsing, the genesis state and block, and the L2 / `--dev` genesis. */
export * from "./genesis.ts";
export * from "./l2_genesis.ts";
export * from "./preinstalls.ts";
export * from "./dev_genesis.ts";
export {
  type Artifact,
  type ArtifactName,
  ARTIFACTS,
  BEDROCK_PREDEPLOYS,
  KEEL_PREDEPLOYS,
} from "./artifacts.ts";
export { immutableNames, type ImmutableValue, runtimeCode } from "./bytecode.ts";
export { packStorage, type SlotLocation, slotOf, type StorageValue, unpackWord } from "./storage_layout.ts";
export * from "./l1_system_contracts.ts";
export * from "./l1_dev_genesis.ts";
export * from "./op_l1_deployment.ts";
