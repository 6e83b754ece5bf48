/**
 * kill -9 at random moments (issue 3, part 5): a writer process commits blocks in a loop; after a
 * SIGKILL the reopened database's head is the last block the writer reported (or the next one,
 * if the kill landed between COMMIT and the print), every block up to it is complete, and nothing
 * of a later block exists. Each round resumes the chain the previous round left.
 */
import { prng } from "../prng.ts";
import { assert, assertEquals } from "../assert.ts";
import { createAddressFromString } from "@ethereumjs/util";
import { bigIntToBytes } from "../../lib/common/bytes.ts";
import { PREFIXES, readU64, SqliteStore } from "../../lib/db/mod.ts";
import { ChainStore, decodeHeader } from "../../lib/execution/chain/mod.ts";
import { createStateManager } from "../../lib/execution/state/mod.ts";
import { accountAddress, CONTRACT, slotKey } from "./fixtures/crash_writer.ts";

const WRITER = new URL("./fixtures/crash_writer.ts", import.meta.url).pathname;
const ROUNDS = 5;

async function runAndKill(dir: string, delayMs: number): Promise<{ ready: bigint; lastPrinted: bigint }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", WRITER, dir],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  let onReady!: () => void;
  const ready = new Promise<void>((r) => (onReady = r));
  const reading = (async () => {
    let buf = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buf += chunk;
      const parts = buf.split("\n");
      buf = parts.pop()!;
      for (const p of parts) {
        lines.push(p);
        if (p.startsWith("ready")) onReady();
      }
    }
  })();
  const stderr = new Response(child.stderr).text();
  const status = child.status;
  const timeout = setTimeout(() => onReady(), 60_000);
  await Promise.race([ready, status]);
  clearTimeout(timeout);
  await new Promise((r) => setTimeout(r, delayMs));
  try {
    child.kill("SIGKILL");
  } catch { /* already exited: reported below */ }
  const st = await status;
  await reading;
  const err = await stderr;
  assertEquals(st.signal, "SIGKILL", `writer exited by itself: ${err}`);
  const readyLine = lines.find((l) => l.startsWith("ready"));
  assert(readyLine !== undefined, `writer never got ready: ${err}`);
  const committed = lines.filter((l) => l.startsWith("committed ")).map((l) => BigInt(l.slice(10)));
  return {
    ready: BigInt(readyLine.slice(6)),
    lastPrinted: committed.length ? committed[committed.length - 1] : -1n,
  };
}

async function verify(dir: string, lastPrinted: bigint): Promise<bigint> {
  const store = SqliteStore.open(`${dir}/keel.sqlite`);
  try {
    const chain = new ChainStore({}, { store });
    const head = chain.getHead()?.number ?? -1n;
    assert(
      head === lastPrinted || head === lastPrinted + 1n,
      `head ${head} but the writer last reported ${lastPrinted}`,
    );
    let txCount = 0;
    for (let n = 0n; n <= head; n++) {
      const hash = chain.getCanonicalHash(n);
      assert(hash !== undefined, `block ${n} is not canonical`);
      const block = chain.getBlockByHash(hash);
      assert(block !== undefined, `block ${n} has no header or body`);
      assertEquals(block.header.number, n);
      const receipts = chain.getReceipts(hash);
      assertEquals(receipts?.length, 3, `block ${n} receipts`);
      for (const [i, r] of receipts!.entries()) {
        assertEquals(chain.getTransactionLocation(r.txHash), { blockHash: hash, blockNumber: n, index: i });
        txCount++;
      }
      if (n === head || n % 97n === 0n) {
        const sm = await createStateManager(store, block.header.stateRoot);
        const acct = await sm.getAccount(createAddressFromString(accountAddress(n)));
        assertEquals(acct?.balance, n, `balance at block ${n}`);
        assertEquals(
          await sm.getStorage(createAddressFromString(CONTRACT), slotKey(n)),
          bigIntToBytes(n + 1n),
        );
      }
    }
    // Nothing of a later block: every stored header, receipt list, index row is at or below the head.
    let headers = 0;
    for (const [, raw] of store.iterate(new Uint8Array([PREFIXES.header]))) {
      const number = decodeHeader(raw).number;
      assert(number <= head, `header of block ${number} above head ${head}`);
      headers++;
    }
    assertEquals(headers, Number(head + 1n));
    assertEquals([...store.iterate(new Uint8Array([PREFIXES.body]))].length, headers);
    assertEquals([...store.iterate(new Uint8Array([PREFIXES.receipts]))].length, headers);
    assertEquals([...store.iterate(new Uint8Array([PREFIXES.txIndex]))].length, txCount);
    for (const [key] of store.iterate(new Uint8Array([PREFIXES.canonical]))) {
      assert(readU64(key, 1) <= head, `canonical entry ${readU64(key, 1)} above head`);
    }
    assertEquals(chain.getLogs({ fromBlock: 0n, toBlock: head + 10n }).length, Number(2n * (head + 1n)));
    if (head >= 0n) {
      const safe = chain.getHead("safe");
      assert(
        safe !== undefined && safe.number <= head && safe.number % 8n === 0n,
        `safe head ${safe?.number}`,
      );
    }
    return head;
  } finally {
    store.close();
  }
}

Deno.test({
  name: "crash: kill -9 during block writes never leaves a half-written block",
  sanitizeResources: true,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "keel-crash-" });
    const rand = prng(0x6b65656c);
    try {
      let head = -1n;
      for (let round = 0; round < ROUNDS; round++) {
        const delay = 50 + Math.floor(rand() * 600);
        const { ready, lastPrinted } = await runAndKill(dir, delay);
        assertEquals(ready, head, "the writer resumes at the last committed block");
        head = await verify(dir, lastPrinted < 0n ? head : lastPrinted);
        const after = head === lastPrinted + 1n ? " (killed between COMMIT and print)" : "";
        console.log(`round ${round}: killed after ${delay} ms, head ${head}${after}`);
      }
      assert(head > 0n, "the writer committed blocks");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
