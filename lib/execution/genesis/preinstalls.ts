/**
 * The OP Stack preinstalls of the L2 genesis (specs/protocol/preinstalls.md): fixed addresses with the
 * runtime code `Preinstalls.sol` of `@eth-optimism/contracts-bedrock@0.17.3` declares, read from that
 * artifact's AST, with Permit2's immutables patched for the chain id. `buildL2Alloc` (l2_genesis.ts)
 * places them with nonce 1.
 */
import { bigIntToBytes, concatBytes, hexToBytes } from "../../common/bytes.ts";
import { BaseError } from "../../common/errors.ts";
import { keccak256 } from "../../common/hash.ts";
import { ARTIFACTS } from "./artifacts.ts";

/** A preinstall: fixed address, code, nonce 1 (specs/protocol/preinstalls.md; Preinstalls.sol). */
export interface Preinstall {
  name: string;
  address: Uint8Array;
  code: Uint8Array;
}

interface AstNode {
  nodeType?: string;
  name?: string;
  value?: { value?: string; hexValue?: string; kind?: string };
  nodes?: AstNode[];
}

/** Name -> (address or code) constants of `Preinstalls.sol`, read from the artifact's AST. */
function preinstallConstants(): Map<string, string> {
  const ast = ARTIFACTS.Preinstalls.ast as AstNode;
  const lib = ast.nodes?.find((n) => n.nodeType === "ContractDefinition" && n.name === "Preinstalls");
  const out = new Map<string, string>();
  for (const n of lib?.nodes ?? []) {
    if (n.nodeType !== "VariableDeclaration" || n.name === undefined || n.value === undefined) continue;
    if (n.value.kind === "hexString" && n.value.hexValue !== undefined) {
      out.set(n.name, "0x" + n.value.hexValue);
    } else if (n.value.kind === "number" && n.value.value !== undefined) out.set(n.name, n.value.value);
  }
  return out;
}

const PREINSTALL_NAMES = [
  "MultiCall3",
  "Create2Deployer",
  "Safe_v130",
  "SafeL2_v130",
  "MultiSendCallOnly_v130",
  "SafeSingletonFactory",
  "DeterministicDeploymentProxy",
  "MultiSend_v130",
  "Permit2",
  "SenderCreator",
  "EntryPoint",
  "BeaconBlockRoots",
] as const;

/**
 * Permit2's runtime with its two immutables patched for `chainId` (Preinstalls.getPermit2Code):
 * the cached chain id at byte 6945 and the EIP-712 domain separator at byte 6983.
 */
function permit2Code(template: Uint8Array, chainId: bigint, permit2: Uint8Array): Uint8Array {
  const code = template.slice();
  const typeHash = keccak256(
    new TextEncoder().encode("EIP712Domain(string name,uint256 chainId,address verifyingContract)"),
  );
  const nameHash = keccak256(new TextEncoder().encode("Permit2"));
  const domainSeparator = keccak256(
    concatBytes(typeHash, nameHash, bigIntToBytes(chainId, 32), bigIntToBytes(0n, 12), permit2),
  );
  code.set(bigIntToBytes(chainId, 32), 6945);
  code.set(domainSeparator, 6983);
  return code;
}

/** The preinstalls of Preinstalls.sol with their runtime code for `chainId`. */
export function preinstalls(chainId: bigint): Preinstall[] {
  const c = preinstallConstants();
  const get = (key: string): string => {
    const v = c.get(key);
    if (v === undefined) throw new BaseError("MISSING_PREINSTALL", `Cannot find ${key} in Preinstalls.sol`);
    return v;
  };
  return PREINSTALL_NAMES.map((name) => {
    const address = hexToBytes(get(name));
    const code = name === "Permit2"
      ? permit2Code(hexToBytes(get("Permit2TemplateCode")), chainId, address)
      : hexToBytes(get(`${name}Code`));
    return { name, address, code };
  });
}

/** Preinstalls.BeaconBlockRootsSender: the EIP-4788 deployer, nonce 1 so it cannot redeploy. */
export function beaconBlockRootsSender(): Uint8Array {
  const v = preinstallConstants().get("BeaconBlockRootsSender");
  if (v === undefined) {
    throw new BaseError("MISSING_PREINSTALL", "Cannot find BeaconBlockRootsSender in Preinstalls.sol");
  }
  return hexToBytes(v);
}
