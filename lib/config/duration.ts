/** Go-style durations for the option tables; the codec lives in lib/common (the debug tracers' `timeout` uses it too). */
export { formatDuration, parseDuration } from "../common/duration.ts";
