/** Small file-system helpers. */

/** Whether something exists at `path` (any other error than "not found" is thrown). */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}
