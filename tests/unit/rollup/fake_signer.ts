/** An op-signer stand-in for tests: health_status, and opsigner_signBlockPayload signing with KEY. */
import { bytesToHex } from "../../../lib/common/bytes.ts";
import { createAddressFromPrivateKey } from "@ethereumjs/util";
import { blockSigningHash, signBlockHash } from "../../../lib/protocol/gossip_block.ts";

export const KEY = new Uint8Array(32).fill(7);
export const ADDRESS = createAddressFromPrivateKey(KEY).bytes;
export const TLS = new URL("./tls/", import.meta.url).pathname;

export interface SignerRequest {
  method: string;
  params: unknown[];
  text: string;
  headers: Headers;
}

/** An op-signer stand-in: answers health_status and signs with KEY (or answers `bad` when given). */
export function fakeSigner(options: { tls?: boolean; bad?: string } = {}) {
  const requests: SignerRequest[] = [];
  const handler = async (req: Request) => {
    const text = await req.text();
    const { id, method, params } = JSON.parse(text);
    requests.push({ method, params, text, headers: new Headers(req.headers) });
    let result: unknown;
    if (method === "health_status") result = "v1.5.0";
    else if (method === "opsigner_signBlockPayload") {
      const args = params[0];
      const hash = Uint8Array.from(atob(args.payloadHash), (c) => c.charCodeAt(0));
      // A JSON number written exactly (Go's *big.Int), read from the text: a double would round it.
      const chainId = BigInt(/"chainId":(\d+)/.exec(text)![1]);
      result = options.bad ?? bytesToHex(signBlockHash(blockSigningHash(chainId, hash), KEY));
    } else {
      return Response.json({ jsonrpc: "2.0", id, error: { code: -32601, message: "method not found" } });
    }
    return Response.json({ jsonrpc: "2.0", id, result });
  };
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
    ...(options.tls
      ? {
        cert: Deno.readTextFileSync(`${TLS}server.crt`),
        key: Deno.readTextFileSync(`${TLS}server.key`),
      }
      : {}),
  }, handler);
  const scheme = options.tls ? "https" : "http";
  return { requests, server, endpoint: `${scheme}://127.0.0.1:${server.addr.port}` };
}
