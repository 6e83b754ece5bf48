import { Account, Address } from "@ethereumjs/util";
import { createVM } from "@ethereumjs/vm";
import { Caches, MerkleStateManager } from "@ethereumjs/statemanager";
import { assertEquals } from "../../../assert.ts";
import { hexToBytes } from "../../../../lib/common/bytes.ts";
import { L1_BLOCK_FORKS } from "../../../../lib/protocol/chain_config.ts";
import { forkRules } from "../../../../lib/execution/evm/mod.ts";
import {
  L1_SYSTEM_CONTRACTS,
  l1SystemContractAlloc,
  parseGenesis,
  systemContractCode,
} from "../../../../lib/execution/genesis/mod.ts";

/** The deployment senders each EIP derives its address from (nonce 0). */
const SENDERS: Record<number, string> = {
  4788: "0x0B799C86a49DEeb90402691F1041aa3AF2d3C875",
  2935: "0x3462413Af4609098e1E27A490f554f260213D685",
  7002: "0x8646861A7cF453dDD086874d622b0696dE5b9674",
  7251: "0x13d1913d623E6a9D8811736359E50fD31Fe54fCA",
};

Deno.test("L1 system contracts: each EIP's deployment yields its address and exactly the alloc's code", async () => {
  const common =
    forkRules({ chainId: 1n, l1: { shanghaiTime: 0n, cancunTime: 0n, pragueTime: 0n } }, 0n).common;
  for (const c of L1_SYSTEM_CONTRACTS) {
    const sm = new MerkleStateManager({ caches: new Caches() });
    const vm = await createVM({ common: common.copy(), stateManager: sm });
    const sender = new Address(hexToBytes(SENDERS[c.eip] as `0x${string}`));
    await sm.putAccount(sender, new Account(0n, 10n ** 18n));
    const res = await vm.evm.runCall({
      caller: sender,
      origin: sender,
      data: c.initcode,
      gasLimit: 1_000_000n,
    });
    assertEquals(res.execResult.exceptionError, undefined, `EIP-${c.eip} deployment failed`);
    assertEquals(res.createdAddress?.bytes, c.address, `EIP-${c.eip} address`);
    assertEquals(await sm.getCode(new Address(c.address)), systemContractCode(c), `EIP-${c.eip} code`);
  }
});

Deno.test("L1 system contracts: genesis alloc entries parse with code, nonce 1, no balance", () => {
  const alloc = l1SystemContractAlloc();
  assertEquals(Object.keys(alloc).length, 4);
  const g = parseGenesis({
    config: {
      chainId: 1,
      ...Object.fromEntries(L1_BLOCK_FORKS.map((f) => [`${f}Block`, 0])),
      shanghaiTime: 0,
      cancunTime: 0,
      pragueTime: 0,
    },
    gasLimit: "0x1c9c380",
    difficulty: "0x0",
    alloc,
  });
  for (const c of L1_SYSTEM_CONTRACTS) {
    const a = [...g.alloc.values()].find((x) =>
      x.code.length > 0 && x.address.every((b, i) => b === c.address[i])
    );
    assertEquals(a?.nonce, 1n);
    assertEquals(a?.balance, 0n);
    assertEquals(a?.code, systemContractCode(c));
  }
});
