/** runtimeCode: immutables patched from `immutableReferences` equal the constructor's output. */
import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { createEVM } from "@ethereumjs/evm";
import { MerkleStateManager } from "@ethereumjs/statemanager";
import { assertEquals, assertThrows } from "../../../assert.ts";
import { BaseError } from "../../../../lib/common/errors.ts";
import {
  bigIntToBytes,
  bytesToBigInt,
  bytesToHex,
  concatBytes,
  hexToBytes,
} from "../../../../lib/common/bytes.ts";
import {
  ARTIFACTS,
  easImmutables,
  immutableNames,
  runtimeCode,
} from "../../../../lib/execution/genesis/mod.ts";
import { L2_ERC721_BRIDGE_ADDRESS } from "../../../../lib/protocol/predeploys.ts";

const a = (n: number) => bigIntToBytes(BigInt(n), 20);

/** Deploys `initcode` on a scratch EVM and returns the runtime code the constructor returned. */
async function deploy(initcode: Uint8Array): Promise<Uint8Array> {
  const sm = new MerkleStateManager();
  const common = createCustomCommon({ chainId: 901 }, Mainnet, { hardfork: Hardfork.Prague });
  const evm = await createEVM({ common, stateManager: sm });
  const res = await evm.runCall({ data: initcode, gasLimit: 30_000_000n, skipBalance: true });
  if (res.execResult.exceptionError !== undefined || res.createdAddress === undefined) {
    throw new Error(`constructor failed: ${res.execResult.exceptionError?.error}`);
  }
  return sm.getCode(res.createdAddress);
}

Deno.test("immutableNames: resolves AST ids of inherited immutables through the declaring artifact", () => {
  const names = immutableNames(ARTIFACTS.FeeVault);
  const ids = Object.keys(ARTIFACTS.SequencerFeeVault.deployedBytecode.immutableReferences ?? {}).map(Number);
  assertEquals(ids.map((id) => names.get(id)).sort(), [
    "MIN_WITHDRAWAL_AMOUNT",
    "RECIPIENT",
    "WITHDRAWAL_NETWORK",
  ]);
});

Deno.test("runtimeCode: patched immutables equal what the constructor produces", async () => {
  const args = concatBytes(bigIntToBytes(0x1234n, 32), bigIntToBytes(10n ** 19n, 32), bigIntToBytes(1n, 32));
  const fromConstructor = await deploy(
    concatBytes(hexToBytes(ARTIFACTS.SequencerFeeVault.bytecode.object), args),
  );
  const patched = runtimeCode(ARTIFACTS.SequencerFeeVault, "SequencerFeeVault", {
    RECIPIENT: a(0x1234),
    MIN_WITHDRAWAL_AMOUNT: 10n ** 19n,
    WITHDRAWAL_NETWORK: 1n,
  }, [ARTIFACTS.FeeVault]);
  assertEquals(bytesToHex(patched), bytesToHex(fromConstructor));

  const factoryArgs = concatBytes(
    bigIntToBytes(bytesToBigInt(L2_ERC721_BRIDGE_ADDRESS), 32),
    bigIntToBytes(900n, 32),
  );
  const factory = await deploy(
    concatBytes(hexToBytes(ARTIFACTS.OptimismMintableERC721Factory.bytecode.object), factoryArgs),
  );
  assertEquals(
    bytesToHex(runtimeCode(ARTIFACTS.OptimismMintableERC721Factory, "OptimismMintableERC721Factory", {
      BRIDGE: L2_ERC721_BRIDGE_ADDRESS,
      REMOTE_CHAIN_ID: 900n,
    })),
    bytesToHex(factory),
  );
});

Deno.test("runtimeCode: EAS's EIP-712 immutables equal a constructor run on chain 901", async () => {
  const sm = new MerkleStateManager();
  const common = createCustomCommon({ chainId: 901 }, Mainnet, { hardfork: Hardfork.Prague });
  const evm = await createEVM({ common, stateManager: sm });
  const res = await evm.runCall({
    data: hexToBytes(ARTIFACTS.EAS.bytecode.object),
    gasLimit: 30_000_000n,
    skipBalance: true,
  });
  const created = res.createdAddress!;
  const fromConstructor = await sm.getCode(created);
  const patched = runtimeCode(ARTIFACTS.EAS, "EAS", easImmutables(901n, created.bytes), [
    ARTIFACTS.EIP712,
    ARTIFACTS.EIP1271Verifier,
  ]);
  assertEquals(bytesToHex(patched), bytesToHex(fromConstructor));
});

Deno.test("runtimeCode: missing, unknown and unresolvable immutables are errors", () => {
  const vault = ARTIFACTS.SequencerFeeVault;
  assertThrows(
    () => runtimeCode(vault, "SequencerFeeVault", {}, [ARTIFACTS.FeeVault]),
    BaseError,
    "has no value",
  );
  assertThrows(
    () =>
      runtimeCode(vault, "SequencerFeeVault", {
        RECIPIENT: a(1),
        MIN_WITHDRAWAL_AMOUNT: 1n,
        WITHDRAWAL_NETWORK: 0n,
        OTHER: 1n,
      }, [ARTIFACTS.FeeVault]),
    BaseError,
    "has no immutable OTHER",
  );
  assertThrows(
    () => runtimeCode(vault, "SequencerFeeVault", { RECIPIENT: a(1) }),
    BaseError,
    "declaring artifact",
  );
});
