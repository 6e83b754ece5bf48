/** Shared setup for the engine tests: genesis with forks at chosen times, stepping through the Engine API. */
import { createFeeMarket1559Tx, type TypedTransaction } from "@ethereumjs/tx";
import { Hardfork } from "@ethereumjs/common";
import { type Hex, hexToBytes } from "../../../../lib/common/bytes.ts";
import {
  buildDevGenesis,
  deriveDevAccounts,
  type GenesisJson,
  l1SystemContractAlloc,
} from "../../../../lib/execution/genesis/mod.ts";
import { forkRules } from "../../../../lib/execution/evm/mod.ts";
import { DevMiner, type ExecutionEngine, ExecutionEngineApi } from "../../../../lib/execution/engine/mod.ts";
import type {
  EngineVersion,
  ExecutionPayloadEnvelope,
  PayloadAttributes,
} from "../../../../lib/protocol/mod.ts";
import { assertEquals } from "../../../assert.ts";

export const GWEI = 1_000_000_000n;
export const ACCOUNTS = deriveDevAccounts(3);

/**
 * An OP dev genesis starting at Bedrock, with Regolith at 2, Canyon at 4, Ecotone at 6, Fjord and
 * Granite at 8, Holocene at 10 and Isthmus at 12 (one block per second from timestamp 1).
 */
export function forkStepGenesis(): GenesisJson {
  const g = buildDevGenesis({ upTo: "bedrock" });
  g.config = {
    ...g.config,
    regolithTime: 2,
    canyonTime: 4,
    shanghaiTime: 4,
    deltaTime: 4,
    ecotoneTime: 6,
    cancunTime: 6,
    fjordTime: 8,
    graniteTime: 8,
    holoceneTime: 10,
    isthmusTime: 12,
    pragueTime: 12,
  };
  return g;
}

/** The OP dev genesis with every fork up to Isthmus at 0. */
export function isthmusGenesis(): GenesisJson {
  return buildDevGenesis({ upTo: "isthmus" });
}

/** A plain Ethereum (L1) genesis on Prague, with the dev accounts funded and the Prague system contracts. */
export function l1Genesis(): GenesisJson {
  const alloc: GenesisJson["alloc"] = l1SystemContractAlloc();
  for (const a of ACCOUNTS) alloc[toHex(a.address)] = { balance: "0x" + (10n ** 22n).toString(16) };
  return {
    config: {
      chainId: 900,
      homesteadBlock: 0,
      eip150Block: 0,
      eip155Block: 0,
      eip158Block: 0,
      byzantiumBlock: 0,
      constantinopleBlock: 0,
      petersburgBlock: 0,
      istanbulBlock: 0,
      berlinBlock: 0,
      londonBlock: 0,
      mergeNetsplitBlock: 0,
      terminalTotalDifficulty: 0,
      shanghaiTime: 0,
      cancunTime: 0,
      pragueTime: 0,
    },
    gasLimit: "0x1c9c380",
    difficulty: "0x0",
    baseFeePerGas: "0x3b9aca00",
    alloc,
  };
}

function toHex(b: Uint8Array): string {
  return "0x" + [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
}

/** op-node's method versions for a block at `timestamp` (op-service/sources/engine_client.go). */
export function versionsAt(engine: ExecutionEngine, timestamp: bigint): {
  fcu: EngineVersion;
  get: EngineVersion;
  newPayload: EngineVersion;
} {
  const common = forkRules(engine.config, timestamp).common;
  if (common.gteHardfork(Hardfork.Prague)) return { fcu: 3, get: 4, newPayload: 4 };
  if (common.gteHardfork(Hardfork.Cancun)) return { fcu: 3, get: 3, newPayload: 3 };
  if (common.gteHardfork(Hardfork.Shanghai)) return { fcu: 2, get: 2, newPayload: 2 };
  return { fcu: 1, get: 2, newPayload: 2 };
}

/** Builds the next block through FCU + getPayload (as a sequencer does); does not make it canonical. */
export async function buildPayload(
  api: ExecutionEngineApi,
  miner: DevMiner,
  edit: (a: PayloadAttributes) => void = () => {},
  parentHash?: Uint8Array,
): Promise<{ envelope: ExecutionPayloadEnvelope; attrs: PayloadAttributes }> {
  const engine = api.engine;
  const head = parentHash ?? engine.head().hash;
  const parent = engine.chain.getHeaderByHash(head)!;
  const attrs = await miner.attributes(parent);
  attrs.noTxPool = true;
  edit(attrs);
  const v = versionsAt(engine, attrs.timestamp);
  const fcu = await api.forkchoiceUpdated(v.fcu, {
    headBlockHash: head,
    safeBlockHash: new Uint8Array(32),
    finalizedBlockHash: new Uint8Array(32),
  }, attrs);
  assertEquals(fcu.payloadStatus.status, "VALID");
  const envelope = await api.getPayload(v.get, fcu.payloadId!);
  return { envelope, attrs };
}

/** newPayload with the sidecar params of the payload's version. */
export async function sendPayload(api: ExecutionEngineApi, envelope: ExecutionPayloadEnvelope) {
  const p = envelope.executionPayload;
  const v = versionsAt(api.engine, p.timestamp);
  if (v.newPayload === 2) return await api.newPayload(2, p);
  if (v.newPayload === 3) return await api.newPayload(3, p, [], envelope.parentBeaconBlockRoot);
  return await api.newPayload(4, p, [], envelope.parentBeaconBlockRoot, envelope.executionRequests ?? []);
}

/** FCU to `hash` (no attributes). */
export async function setHead(api: ExecutionEngineApi, hash: Uint8Array, version: EngineVersion = 3) {
  return await api.forkchoiceUpdated(version, {
    headBlockHash: hash,
    safeBlockHash: new Uint8Array(32),
    finalizedBlockHash: new Uint8Array(32),
  });
}

/** A signed EIP-1559 transfer from dev account `from`. */
export function transfer(
  engine: ExecutionEngine,
  from: number,
  nonce: bigint,
  opts: { value?: bigint; tip?: bigint; to?: Uint8Array } = {},
): TypedTransaction {
  const rules = engine.pendingRules();
  const common = forkRules(engine.config, rules.timestamp).common;
  return createFeeMarket1559Tx({
    chainId: engine.config.chainId,
    nonce,
    to: opts.to ?? hexToBytes("0x00000000000000000000000000000000000000aa" as Hex),
    value: opts.value ?? 1000n,
    gasLimit: 21000n,
    maxFeePerGas: 10n * GWEI,
    maxPriorityFeePerGas: opts.tip ?? GWEI,
  }, { common }).sign(ACCOUNTS[from].privateKey);
}

export { DevMiner, ExecutionEngineApi };
