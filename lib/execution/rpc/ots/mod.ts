/** The Otterscan API (ots_*, erigon_getHeaderByNumber): a local block explorer on keel. */
export { otsNamespace } from "./ots_namespace.ts";
