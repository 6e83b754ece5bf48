/**
 * The `debug` package the @ethereumjs libraries log through (only with DEBUG=ethjs, which keel's
 * filtered environment never shows them) decides each logger's colours when it is created, with an
 * isatty(stderr) system call. @ethereumjs/mpt creates one per trie, and a state manager opens a trie per
 * account whose storage it reads: a dump of the dev state spent ~10% of its time in isatty (CPU
 * profile). The same package instance as theirs (deno.json pins the version the lock file resolves
 * for them), told once that there are no colours.
 */
import debug from "debug";

(debug as unknown as { useColors: () => boolean }).useColors = () => false;
