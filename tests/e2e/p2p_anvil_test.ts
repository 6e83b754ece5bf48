/**
 * Unsafe blocks over p2p (rollup-node-p2p.md), between two real `keel node` processes with anvil as L1:
 * the sequencer publishes each block it sequences, signed with --p2p.sequencer.key; the verifier,
 * dialling it as a static peer and reading the unsafe block signer from the SystemConfig's storage on
 * L1, inserts them as unsafe blocks (its unsafe head follows the sequencer's with nothing batched to
 * L1), the blocks it missed fetched with payload_by_number. The nodep2p namespace shows the peers, and a blocked peer is disconnected and listed.
 */
import { assert, assertEquals } from "../assert.ts";
import {
  anvilForTest,
  freePort,
  type KeelProcess,
  p2pSequencerOnAnvil,
  p2pVerifierArgs,
  type RpcAnswer,
  rpcCall,
  spawnKeel,
  startAnvil,
  until,
} from "./helpers/mod.ts";

const tool = await anvilForTest("p2p_anvil_test");

type Answer = RpcAnswer;

Deno.test({
  name: "p2p: a verifier keel node follows the sequencer's unsafe blocks over gossip; nodep2p controls",
  ignore: !tool.ok,
  sanitizeResources: false,
  async fn() {
    const anvil = await startAnvil(tool.ok ? tool.binary : "", ["--hardfork", "prague"]);
    const dir = await Deno.makeTempDir({ prefix: "keel-p2p-" });
    let sequencer: KeelProcess | undefined;
    let verifier: KeelProcess | undefined;
    try {
      // The SystemConfig on L1 names the unsafe block signer (the sequencer's p2p key's address).
      const seq = await p2pSequencerOnAnvil(anvil.url, dir);
      sequencer = seq.process;
      const seqUrl = seq.url;
      const call = async (url: string, method: string, params: unknown[] = []) =>
        (await rpcCall(url, method, params)) as Answer;
      const out = () => `${sequencer?.output()}\n--- verifier ---\n${verifier?.output()}`;
      const self = seq.self;
      assert(self.peerID.startsWith("16Uiu2"), self.peerID); // a secp256k1 libp2p identity
      assertEquals(self.chainID, 901);
      assert(/^0x[0-9a-f]{64}$/.test(self.nodeID));

      // The verifier joins late: the blocks before the first it hears of come by payload_by_number.
      await until(
        async () =>
          ((await call(seqUrl, "rollupnode_syncStatus")).result?.unsafe_l2?.number ?? 0) >= 3
            ? true
            : undefined,
        "three sequenced blocks",
        out,
      );
      const verPort = freePort();
      verifier = spawnKeel("node", [
        ...await p2pVerifierArgs(anvil.url, dir, verPort, seq),
        // Gap sync still asks the sequencer: it is a static peer.
        "--p2p.sync.onlyreqtostatic",
      ]);
      const verUrl = `http://127.0.0.1:${verPort}`;
      const status = async (url: string) => (await call(url, "rollupnode_syncStatus")).result;
      const followed = await until(
        async () => {
          const n = (await status(verUrl))?.unsafe_l2?.number ?? 0;
          return n >= 3 ? n : undefined;
        },
        "the verifier's unsafe head from gossip",
        out,
        90_000,
      );
      // The same blocks, and nothing came from L1.
      const block = async (url: string, n: number) =>
        (await call(url, "eth_getBlockByNumber", [`0x${n.toString(16)}`, false])).result;
      assertEquals((await block(verUrl, followed)).hash, (await block(seqUrl, followed)).hash);
      assertEquals((await status(verUrl)).safe_l2.number, 0);
      // Gap sync may bring the first blocks before the sequencer's next one arrives over gossip.
      await until(
        () => Promise.resolve(verifier?.output().includes("Received unsafe block") ? true : undefined),
        "an unsafe block over gossip",
        out,
        30_000,
      );
      assert(verifier.output().includes("Received unsafe block"), out());
      assert(verifier.output().includes("Synced unsafe blocks from a peer"), out());

      // nodep2p: each sees the other; stats count it.
      const peers = (await call(seqUrl, "nodep2p_peers", [true])).result;
      assertEquals(peers.totalConnected, 1);
      const verSelf = (await call(verUrl, "nodep2p_self")).result;
      const info = peers.peers[verSelf.peerID];
      assert(info !== undefined, JSON.stringify(peers));
      assertEquals([info.direction, info.connectedness, info.chainID, info.gossipBlocks], [1, 1, 901, true]);
      assertEquals((await call(verUrl, "nodep2p_peerStats")).result.connected, 1);
      // op-node's own name of the namespace answers the same.
      assertEquals((await call(verUrl, "opp2p_self")).result.peerID, verSelf.peerID);
      assertEquals((await call(verUrl, "opp2p_peerStats")).result.connected, 1);
      assertEquals((await call(verUrl, "nodep2p_protectPeer", [self.peerID])).result, null);
      assertEquals((await call(verUrl, "nodep2p_peers", [true])).result.peers[self.peerID].protected, true);
      // Discovery: on by default (no bootnodes here: an empty table), off with --p2p.no-discovery.
      assertEquals((await call(seqUrl, "nodep2p_discoveryTable")).result, []);
      assert(self.ENR.startsWith("enr:"), self.ENR);
      assertEquals((await call(verUrl, "nodep2p_discoveryTable")).error?.message, "discovery disabled");
      assertEquals(verSelf.ENR, "");
      // Blocking a peer drops it and keeps it out.
      assertEquals((await call(seqUrl, "nodep2p_blockPeer", [verSelf.peerID])).result, null);
      assertEquals((await call(seqUrl, "nodep2p_listBlockedPeers")).result, [verSelf.peerID]);
      await until(
        async () =>
          (await call(seqUrl, "nodep2p_peers", [true])).result.totalConnected === 0 ? true : undefined,
        "the blocked peer dropped",
        out,
      );
      await new Promise((r) => setTimeout(r, 6_000)); // the verifier redials its static peer every 5 s
      assertEquals((await call(seqUrl, "nodep2p_peers", [true])).result.totalConnected, 0);
      assertEquals((await call(seqUrl, "nodep2p_blockAddr", ["10.1.2.3"])).result, null);
      assertEquals((await call(seqUrl, "nodep2p_listBlockedAddrs")).result, ["10.1.2.3"]);
      assertEquals((await call(seqUrl, "nodep2p_blockAddr", ["not-an-ip"])).error?.code, -32602);
      assertEquals((await call(seqUrl, "nodep2p_blockSubnet", ["10.0.0.0/8"])).result, null);
      assertEquals((await call(seqUrl, "nodep2p_listBlockedSubnets")).result, ["10.0.0.0/8"]);
      assertEquals((await call(seqUrl, "nodep2p_unblockPeer", [verSelf.peerID])).result, null);
      await until(
        async () =>
          (await call(seqUrl, "nodep2p_peers", [true])).result.totalConnected === 1 ? true : undefined,
        "the unblocked peer back",
        out,
      );
      assertEquals(await verifier.stop(), 0, out());
      verifier = undefined;
      assertEquals(await sequencer.stop(), 0, out());
      sequencer = undefined;
    } finally {
      if (verifier !== undefined) await verifier.stop();
      if (sequencer !== undefined) await sequencer.stop();
      await anvil.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
