/**
 * Go-style durations (`time.ParseDuration` / `time.Duration.String`), the form op-node's
 * duration options use (spec section 4.5: `6m24s`, `10m0s`, `1h0m0s`).
 * Inside keel a duration is a number of milliseconds (fractional below 1 ms).
 */

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  "µs": 1e-3,
  "μs": 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const TERM_RE = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;

/**
 * Parses `6m24s`, `1h0m0s`, `500ms`, `1.5s`, `-2s`, `0s` or a bare `0` into milliseconds.
 * Returns undefined when the text is not a Go duration.
 */
export function parseDuration(text: string): number | undefined {
  let rest = text.trim();
  if (rest === "") return undefined;
  let sign = 1;
  if (rest[0] === "-" || rest[0] === "+") {
    if (rest[0] === "-") sign = -1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") return undefined;
  // Sum in nanoseconds as bigint-free integers where possible to avoid drift: 1.5s -> 1500 ms exactly.
  let totalNs = 0;
  while (rest.length > 0) {
    const m = TERM_RE.exec(rest);
    if (m === null) return undefined;
    const [whole, num, unit] = m;
    totalNs += Number(num) * UNIT_MS[unit] * 1e6;
    rest = rest.slice(whole.length);
  }
  const ms = Math.round(totalNs) / 1e6;
  return sign * ms === 0 ? 0 : sign * ms;
}

/** Trims trailing zeros of a fixed-point decimal string ("1.500" -> "1.5", "2.000" -> "2"). */
function trimFraction(text: string): string {
  if (!text.includes(".")) return text;
  return text.replace(/0+$/, "").replace(/\.$/, "");
}

/**
 * Prints milliseconds the way Go's `time.Duration.String` does:
 * 0 -> "0s", 500 -> "500ms", 1500 -> "1.5s", 384000 -> "6m24s", 3600000 -> "1h0m0s".
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) throw new RangeError(`Cannot format duration: ${ms} is not finite`);
  if (ms === 0) return "0s";
  const sign = ms < 0 ? "-" : "";
  const ns = Math.round(Math.abs(ms) * 1e6);
  if (ns < 1000) return `${sign}${ns}ns`;
  if (ns < 1_000_000) return `${sign}${trimFraction((ns / 1000).toFixed(3))}µs`;
  if (ns < 1_000_000_000) return `${sign}${trimFraction((ns / 1e6).toFixed(6))}ms`;
  const hours = Math.floor(ns / 3.6e12);
  const minutes = Math.floor((ns % 3.6e12) / 6e10);
  const secondsNs = ns % 6e10;
  const seconds = trimFraction((secondsNs / 1e9).toFixed(9));
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}
