/**
 * The node's own file reads and folders, with errors that name the file and what it is for (a bare
 * "File exists (os error 17): mkdir" or a JSON parser's "position 1" named neither). Permission
 * errors pass through unchanged: the launcher words them (permissions.ts formatPermissionError).
 */
import { BaseError } from "../common/errors.ts";

function isPermissionError(e: unknown): boolean {
  return e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied;
}

/** Creates the folder `path` (and its parents); `what` names it in the error, e.g. "--datadir". */
export async function ensureDir(path: string, what: string): Promise<void> {
  try {
    await Deno.mkdir(path, { recursive: true });
  } catch (e) {
    if (e instanceof Deno.errors.AlreadyExists || e instanceof Deno.errors.NotADirectory) {
      throw new BaseError(
        "NOT_A_DIRECTORY",
        `Cannot use ${path} as ${what}: it, or a folder above it, is a file and not a directory`,
        { cause: e, meta: { path } },
      );
    }
    throw e;
  }
}

/**
 * The JSON in file `path` (`what` names it in the error, e.g. "rollup config (--rollup.config)"),
 * parsed with `parse` (JSON.parse unless given).
 */
export async function readJsonFile(
  path: string,
  what: string,
  parse: (text: string) => unknown = JSON.parse,
): Promise<unknown> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    if (isPermissionError(e)) throw e;
    const reason = e instanceof Deno.errors.NotFound
      ? "no such file"
      : e instanceof Deno.errors.IsADirectory
      ? "it is a directory"
      : (e as Error).message;
    throw new BaseError("CANNOT_READ_FILE", `Cannot read ${what} ${path}: ${reason}`, {
      cause: e,
      meta: { path },
    });
  }
  try {
    return parse(text);
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    throw new BaseError("CANNOT_READ_FILE", `Cannot read ${what} ${path}: not valid JSON: ${e.message}`, {
      cause: e,
      meta: { path },
    });
  }
}
