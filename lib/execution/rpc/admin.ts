/**
 * The execution client's admin namespace (geth's AdminAPI), for operators' tooling that asks it: keel's
 * execution client has no devp2p network (blocks come from the rollup node over the Engine API, and
 * transactions through the RPC), so there are no peers to list or add.
 *
 * - admin_nodeInfo: geth's NodeInfo with the eth protocol's network, genesis, chain config and head; the
 *   devp2p fields (id, enode, enr, ports) are empty.
 * - admin_peers: [].
 * - admin_datadir: the data dir (null for a chain kept in memory).
 * - admin_addPeer, admin_removePeer, admin_addTrustedPeer, admin_removeTrustedPeer: refused with why.
 * - admin_exportChain [file, first?, last?] and admin_importChain [file]: geth's chain files (the canonical
 *   blocks' RLP, gzip for `.gz`), as `keel execution export` / `import` write and read them; true when done.
 *   An export never overwrites a file; an import validates every block and moves the head to the last.
 *   The file is the node's own path: under the binary's permission set, inside its data dir.
 */
import { bytesToHex } from "../../common/mod.ts";
import { type AnyMethodDef, defineMethod, type Namespace, RpcError, s } from "../../rpc/mod.ts";

export interface AdminBackend {
  clientVersion: string;
  chainId: bigint;
  genesisHash: Uint8Array;
  /** The genesis.json `config` object the chain was initialised with, if kept. */
  chainConfigJson(): unknown;
  headHash(): Uint8Array;
  datadir: string | undefined;
  /** Writes canonical blocks first..last (default: to the head) to `path`; how many. */
  exportChain?(path: string, first?: bigint, last?: bigint): Promise<number>;
  /** Imports the blocks of `path`. */
  importChain?(path: string): Promise<unknown>;
  /** How a file operation's error reads (the role names a sandbox refusal in keel's words). */
  describeFileError?(e: unknown): string;
}

const NO_DEVP2P =
  "keel's execution client has no devp2p network: blocks come from the rollup node (Engine API)";

export function adminNamespace(backend: AdminBackend): Namespace {
  const refused = (name: string) =>
    defineMethod({
      name,
      params: [s.string()] as const,
      handler: () => {
        throw RpcError.server(NO_DEVP2P);
      },
    });
  const fileError = (e: unknown) => RpcError.server(backend.describeFileError?.(e) ?? (e as Error).message);
  const defs: AnyMethodDef[] = [
    defineMethod({
      name: "admin_nodeInfo",
      params: [] as const,
      handler: () => ({
        id: "",
        name: backend.clientVersion,
        enode: "",
        enr: "",
        ip: "",
        ports: { discovery: 0, listener: 0 },
        listenAddr: "",
        protocols: {
          eth: {
            network: Number(backend.chainId),
            genesis: bytesToHex(backend.genesisHash),
            config: backend.chainConfigJson() ?? null,
            head: bytesToHex(backend.headHash()),
          },
        },
      }),
    }),
    defineMethod({ name: "admin_peers", params: [] as const, handler: () => [] }),
    defineMethod({ name: "admin_datadir", params: [] as const, handler: () => backend.datadir ?? null }),
    ...["admin_addPeer", "admin_removePeer", "admin_addTrustedPeer", "admin_removeTrustedPeer"].map(refused),
  ];
  const { exportChain, importChain } = backend;
  if (exportChain !== undefined) {
    defs.push(defineMethod({
      name: "admin_exportChain",
      params: [s.string(), s.optional(s.uint64()), s.optional(s.uint64())] as const,
      handler: async ([file, first, last]) => {
        // geth AdminAPI.ExportChain's rules and words.
        if (first === undefined && last !== undefined) {
          throw RpcError.server("last cannot be specified without first");
        }
        const exists = await Deno.lstat(file).then(() => true, (e) => {
          if (e instanceof Deno.errors.NotFound) return false;
          throw fileError(e);
        });
        if (exists) throw RpcError.server("location would overwrite an existing export");
        try {
          await exportChain(file, first, last);
        } catch (e) {
          throw fileError(e);
        }
        return true;
      },
    }));
  }
  if (importChain !== undefined) {
    defs.push(defineMethod({
      name: "admin_importChain",
      params: [s.string()] as const,
      handler: async ([file]) => {
        try {
          await importChain(file);
        } catch (e) {
          throw fileError(e);
        }
        return true;
      },
    }));
  }
  return Object.fromEntries(defs.map((d) => [d.name, d]));
}
