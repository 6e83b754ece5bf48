/**
 * `--snapshotlog.file`: op-node's snapshot log, one JSON line per change of the rollup node's heads, as
 * op-node writes it with geth's JSON log handler: `t`, `lvl`, `msg` "Rollup State Snapshot", the `event`
 * (New L1 Head, New unsafe head, New safe head, Pipeline reset) and the heads `l1Head`, `l1Current`,
 * `l2Head`, `l2Safe`, `l2FinalizedHead`, each a string holding the block reference's JSON (op-node's
 * deferJSONString). Lines are appended, so a restart continues the file.
 */
import type { HeadsSnapshot } from "../rollup/driver/mod.ts";
import { l1RefJson, l2RefJson } from "../rollup/rpc/rollupnode_sync_status.ts";

export class SnapshotLog {
  readonly #file: Deno.FsFile;
  readonly #encoder = new TextEncoder();

  private constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  /** Opens `path` for appending, creating it if needed. */
  static open(path: string): SnapshotLog {
    return new SnapshotLog(Deno.openSync(path, { append: true, create: true }));
  }

  /** One line for `event` with `heads`; `now` is the wall clock in ms. */
  write(event: string, heads: HeadsSnapshot, now = Date.now()): void {
    const line = JSON.stringify({
      t: new Date(now).toISOString(),
      lvl: "info",
      msg: "Rollup State Snapshot",
      event,
      l1Head: JSON.stringify(l1RefJson(heads.l1Head)),
      l1Current: JSON.stringify(l1RefJson(heads.l1Current)),
      l2Head: JSON.stringify(l2RefJson(heads.l2Head)),
      l2Safe: JSON.stringify(l2RefJson(heads.l2Safe)),
      l2FinalizedHead: JSON.stringify(l2RefJson(heads.l2Finalized)),
    });
    const bytes = this.#encoder.encode(line + "\n");
    for (let at = 0; at < bytes.length;) at += this.#file.writeSync(bytes.subarray(at));
  }

  close(): void {
    this.#file.close();
  }
}
