/**
 * Executes the network upgrade automation transactions of Ecotone, Fjord, Isthmus and Jovian, one fork
 * after the other, on one @ethereumjs/evm state holding the ERC-1967 proxies of L1Block, GasPriceOracle
 * and OperatorFeeVault (contracts-bedrock's Proxy). Checks what only execution can show: each
 * transaction succeeds within its gas limit (intrinsic gas included), each deployment lands at the
 * stated address with the code hash the spec states, each proxy points to its new implementation, and
 * the GasPriceOracle ends with every fork flag set (each set* call requires the previous one).
 */
import ProxyJson from "@eth-optimism/contracts-bedrock/forge-artifacts/Proxy.sol/Proxy.json" with {
  type: "json",
};
import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { createEVM, type EVM } from "@ethereumjs/evm";
import { MerkleStateManager } from "@ethereumjs/statemanager";
import { Address } from "@ethereumjs/util";
import { bigIntToBytes, bytesToBigInt, bytesToHex, hexToBytes } from "../../lib/common/bytes.ts";
import { keccak256 } from "../../lib/common/hash.ts";
import type { DepositTx } from "../../lib/protocol/deposit_tx.ts";
import {
  BEACON_ROOTS_ADDRESS,
  GAS_PRICE_ORACLE_ADDRESS,
  L1_ATTRIBUTES_DEPOSITOR_ADDRESS,
  L1_BLOCK_ADDRESS,
  OPERATOR_FEE_VAULT_ADDRESS,
  PROXY_ADMIN_ADDRESS,
} from "../../lib/protocol/predeploys.ts";
import {
  ISTHMUS_OPERATOR_FEE_VAULT_ADDRESS,
  JOVIAN_GAS_PRICE_ORACLE_ADDRESS,
  JOVIAN_L1_BLOCK_ADDRESS,
  UPGRADE_FORKS,
  UPGRADE_TXS,
  upgradeDepositTxs,
} from "../../lib/protocol/upgrade_txs.ts";
import { assert, assertEquals } from "../assert.ts";

/** ERC-1967 slots: bytes32(uint256(keccak256("eip1967.proxy.implementation")) - 1), and the admin's. */
const IMPLEMENTATION_SLOT = hexToBytes("0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc");
const ADMIN_SLOT = hexToBytes("0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103");

/** Intrinsic gas of a transaction (Shanghai rules: EIP-2028 calldata, EIP-3860 initcode words). */
function intrinsicGas(tx: DepositTx): bigint {
  let gas = 21_000n;
  for (const b of tx.data) gas += b === 0 ? 4n : 16n;
  if (tx.to === null) gas += 32_000n + 2n * BigInt(Math.ceil(tx.data.length / 32));
  return gas;
}

/** EIP-7623 calldata floor (Prague): 21000 + 10 per token, a non-zero byte counting 4 tokens. */
function floorGas(tx: DepositTx): bigint {
  let tokens = 0n;
  for (const b of tx.data) tokens += b === 0 ? 1n : 4n;
  return 21_000n + 10n * tokens;
}

async function setup(): Promise<{ evm: EVM; sm: MerkleStateManager }> {
  const sm = new MerkleStateManager();
  const common = createCustomCommon({ chainId: 901 }, Mainnet, { hardfork: Hardfork.Prague });
  const evm = await createEVM({ common, stateManager: sm });
  const proxyCode = hexToBytes(ProxyJson.deployedBytecode.object);
  for (const proxy of [L1_BLOCK_ADDRESS, GAS_PRICE_ORACLE_ADDRESS, OPERATOR_FEE_VAULT_ADDRESS]) {
    const at = new Address(proxy);
    await sm.putCode(at, proxyCode);
    await sm.putStorage(at, ADMIN_SLOT, bigIntToBytes(bytesToBigInt(PROXY_ADMIN_ADDRESS), 32));
  }
  return { evm, sm };
}

async function implementation(sm: MerkleStateManager, proxy: Uint8Array): Promise<string> {
  const raw = await sm.getStorage(new Address(proxy), IMPLEMENTATION_SLOT);
  return bytesToHex(bigIntToBytes(bytesToBigInt(raw), 20));
}

async function view(evm: EVM, to: Uint8Array, signature: string): Promise<Uint8Array> {
  const res = await evm.runCall({
    caller: new Address(new Uint8Array(20)),
    to: new Address(to),
    data: keccak256(new TextEncoder().encode(signature)).slice(0, 4),
    gasLimit: 1_000_000n,
    skipBalance: true,
  });
  assertEquals(res.execResult.exceptionError, undefined, signature);
  return res.execResult.returnValue;
}

Deno.test("upgrade txs executed: Ecotone -> Fjord -> Isthmus -> Jovian on one state", async () => {
  const { evm, sm } = await setup();
  let checkedCodeHashes = 0;
  for (const fork of UPGRADE_FORKS) {
    const txs = upgradeDepositTxs(fork);
    for (const [i, tx] of txs.entries()) {
      const params = UPGRADE_TXS[fork][i];
      const what = `${fork}[${i}] ${params.intent}`;
      const intrinsic = intrinsicGas(tx);
      assert(intrinsic <= tx.gas && floorGas(tx) <= tx.gas, `${what}: intrinsic gas above the limit`);
      const res = await evm.runCall({
        caller: new Address(tx.from),
        to: tx.to === null ? undefined : new Address(tx.to),
        data: tx.data,
        value: tx.value,
        gasLimit: tx.gas - intrinsic,
        skipBalance: true,
      });
      assertEquals(res.execResult.exceptionError?.error, undefined, what);
      assert(intrinsic + res.execResult.executionGasUsed <= tx.gas, what);
      if (tx.to === null) {
        assert(res.createdAddress !== undefined, what);
        assertEquals(bytesToHex(res.createdAddress.bytes), bytesToHex(params.deployedAddress!), what);
        const code = await sm.getCode(res.createdAddress);
        assert(code.length > 0, `${what}: no code deployed`);
        if (params.codeHash !== undefined) {
          assertEquals(bytesToHex(keccak256(code)), bytesToHex(params.codeHash), what);
          checkedCodeHashes++;
        } else {
          // EIP-4788's initcode: a 9-byte constructor returning the rest as the runtime code.
          assertEquals(bytesToHex(res.createdAddress.bytes), bytesToHex(BEACON_ROOTS_ADDRESS), what);
          assertEquals(bytesToHex(code), bytesToHex(tx.data.subarray(9)), what);
        }
      } else if (tx.data.length === 36) {
        assertEquals(await implementation(sm, tx.to), bytesToHex(tx.data.subarray(16)), what);
      }
    }
  }
  // Every deployment but EIP-4788's has a code hash in the specs.
  assertEquals(checkedCodeHashes, 9);
  assertEquals(await implementation(sm, L1_BLOCK_ADDRESS), bytesToHex(JOVIAN_L1_BLOCK_ADDRESS));
  assertEquals(
    await implementation(sm, GAS_PRICE_ORACLE_ADDRESS),
    bytesToHex(JOVIAN_GAS_PRICE_ORACLE_ADDRESS),
  );
  assertEquals(
    await implementation(sm, OPERATOR_FEE_VAULT_ADDRESS),
    bytesToHex(ISTHMUS_OPERATOR_FEE_VAULT_ADDRESS),
  );
  const TRUE = bigIntToBytes(1n, 32);
  for (const flag of ["isEcotone()", "isFjord()", "isIsthmus()", "isJovian()"]) {
    assertEquals(await view(evm, GAS_PRICE_ORACLE_ADDRESS, flag), TRUE, flag);
  }
  // The new L1Block answers through its proxy with the depositor it trusts.
  assertEquals(
    bytesToHex((await view(evm, L1_BLOCK_ADDRESS, "DEPOSITOR_ACCOUNT()")).subarray(12)),
    bytesToHex(L1_ATTRIBUTES_DEPOSITOR_ADDRESS),
  );
});

Deno.test("upgrade txs executed: setFjord() reverts unless setEcotone() ran (the chain above is not vacuous)", async () => {
  const { evm } = await setup();
  const run = (tx: DepositTx) =>
    evm.runCall({
      caller: new Address(tx.from),
      to: tx.to === null ? undefined : new Address(tx.to),
      data: tx.data,
      gasLimit: tx.gas - intrinsicGas(tx),
      skipBalance: true,
    });
  // Ecotone without its "Gas Price Oracle Set Ecotone" transaction, then all of Fjord.
  const ecotone = upgradeDepositTxs("ecotone");
  for (const [i, tx] of ecotone.entries()) {
    if (UPGRADE_TXS.ecotone[i].intent === "Ecotone: Gas Price Oracle Set Ecotone") continue;
    assertEquals((await run(tx)).execResult.exceptionError, undefined, UPGRADE_TXS.ecotone[i].intent);
  }
  const [deploy, update, setFjord] = upgradeDepositTxs("fjord");
  assertEquals((await run(deploy)).execResult.exceptionError, undefined);
  assertEquals((await run(update)).execResult.exceptionError, undefined);
  const res = await run(setFjord);
  assertEquals(res.execResult.exceptionError?.error, "revert");
  // Error(string) "GasPriceOracle: Fjord can only be activated after Ecotone"
  const reason = new TextDecoder().decode(res.execResult.returnValue.subarray(68)).replace(/\0+$/, "");
  assertEquals(reason, "GasPriceOracle: Fjord can only be activated after Ecotone");
  assertEquals(await view(evm, GAS_PRICE_ORACLE_ADDRESS, "isFjord()"), new Uint8Array(32));
});
