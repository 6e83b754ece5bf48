/**
 * What the nodep2p namespace tells about peers (interfaces.md 2.8 "Peer info", 2.10 "Peer statistics"),
 * and the address rules of its peer controls (3.2): IPv4 subnets for nodep2p_blockSubnet.
 */
import type { PeerId } from "@libp2p/interface";
import type { Multiaddr } from "@multiformats/multiaddr";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex } from "../../common/bytes.ts";
import { keccak256 } from "../../common/hash.ts";

/** interfaces.md 2.8 "Peer info". */
export interface PeerInfo {
  peerID: string;
  nodeID: string;
  userAgent: string;
  protocolVersion: string;
  ENR: string;
  addresses: string[];
  protocols: string[] | null;
  connectedness: number;
  direction: number;
  protected: boolean;
  chainID: number;
  latency: number;
  gossipBlocks: boolean;
  scores: {
    gossip: {
      total: number;
      blocks: {
        timeInMesh: number;
        firstMessageDeliveries: number;
        meshMessageDeliveries: number;
        invalidMessageDeliveries: number;
      };
      IPColocationFactor: number;
      behavioralPenalty: number;
    };
    reqResp: { validResponses: number; errorResponses: number; rejectedPayloads: number };
  };
}

export function emptyScores(): PeerInfo["scores"] {
  return {
    gossip: {
      total: 0,
      blocks: {
        timeInMesh: 0,
        firstMessageDeliveries: 0,
        meshMessageDeliveries: 0,
        invalidMessageDeliveries: 0,
      },
      IPColocationFactor: 0,
      behavioralPenalty: 0,
    },
    reqResp: { validResponses: 0, errorResponses: 0, rejectedPayloads: 0 },
  };
}

/** A peer's node id: keccak256 of its uncompressed secp256k1 public key (the discv5 v4 identity). */
export function nodeId(peer: PeerId): string {
  const pub = peer.publicKey;
  if (pub === undefined || pub.type !== "secp256k1") return bytesToHex(new Uint8Array(32));
  return bytesToHex(keccak256(secp256k1.Point.fromBytes(pub.raw).toBytes(false).subarray(1)));
}

export interface PeerStats {
  connected: number;
  table: number;
  blocksTopic: number;
  blocksTopicV2: number;
  banned: number;
  known: number;
}

/** Whether `ip` (IPv4 dotted) is in `cidr` (IPv4 a.b.c.d/n); false for other forms. */
export function ipInSubnet(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split("/");
  const toInt = (s: string) => {
    const parts = s.split(".").map(Number);
    if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return undefined;
    return ((parts[0] << 24) >>> 0) + (parts[1] << 16) + (parts[2] << 8) + parts[3];
  };
  const a = toInt(ip);
  const b = toInt(base);
  const n = Number(bits);
  if (a === undefined || b === undefined || !Number.isInteger(n) || n < 0 || n > 32) return false;
  const mask = n === 0 ? 0 : (~0 << (32 - n)) >>> 0;
  return ((a & mask) >>> 0) === ((b & mask) >>> 0);
}

export function ipOf(addr: Multiaddr): string | undefined {
  const c = addr.getComponents().find((x) => x.name === "ip4" || x.name === "ip6");
  return c?.value;
}
