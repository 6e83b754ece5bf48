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
 */
import { bytesToHex } from "../../common/mod.ts";
import { defineMethod, type Namespace, RpcError, s } from "../../rpc/mod.ts";

export interface AdminBackend {
  clientVersion: string;
  chainId: bigint;
  genesisHash: Uint8Array;
  /** The genesis.json `config` object the chain was initialised with, if kept. */
  chainConfigJson(): unknown;
  headHash(): Uint8Array;
  datadir: string | undefined;
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
  const defs = [
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
  return Object.fromEntries(defs.map((d) => [d.name, d]));
}
