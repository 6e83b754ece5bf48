/**
 * Test assertions in the shape of Deno std's `@std/assert` (JSR is out of reach here),
 * built on `node:assert/strict`.
 */
import nodeAssert from "node:assert/strict";

export function assert(condition: unknown, message?: string): asserts condition {
  nodeAssert.ok(condition, message);
}

export function assertEquals<T>(actual: unknown, expected: T, message?: string): asserts actual is T {
  nodeAssert.deepStrictEqual(actual, expected, message);
}

export function assertNotEquals(actual: unknown, expected: unknown, message?: string): void {
  nodeAssert.notDeepStrictEqual(actual, expected, message);
}

export function assertStringIncludes(actual: string, expected: string, message?: string): void {
  nodeAssert.ok(
    actual.includes(expected),
    message ?? `Expected ${JSON.stringify(actual)} to include ${JSON.stringify(expected)}`,
  );
}

export function assertMatch(actual: string, expected: RegExp, message?: string): void {
  nodeAssert.match(actual, expected, message);
}

// deno-lint-ignore no-explicit-any
type ErrorClass = abstract new (...args: any[]) => Error;

function checkError(err: unknown, ErrorClass?: ErrorClass, msgIncludes?: string): Error {
  if (!(err instanceof Error)) {
    throw new nodeAssert.AssertionError({ message: `Expected an Error, got ${err}` });
  }
  if (ErrorClass && !(err instanceof ErrorClass)) {
    const e: Error = err;
    throw new nodeAssert.AssertionError({
      message: `Expected error to be instance of ${ErrorClass.name}, got ${e.constructor.name}: ${e.message}`,
    });
  }
  if (msgIncludes !== undefined && !err.message.includes(msgIncludes)) {
    throw new nodeAssert.AssertionError({
      message: `Expected error message to include ${JSON.stringify(msgIncludes)}, got ${
        JSON.stringify(err.message)
      }`,
    });
  }
  return err;
}

export function assertThrows(fn: () => unknown, ErrorClass?: ErrorClass, msgIncludes?: string): Error {
  try {
    fn();
  } catch (err) {
    return checkError(err, ErrorClass, msgIncludes);
  }
  throw new nodeAssert.AssertionError({ message: "Expected function to throw" });
}

export async function assertRejects(
  fn: () => Promise<unknown>,
  ErrorClass?: ErrorClass,
  msgIncludes?: string,
): Promise<Error> {
  try {
    await fn();
  } catch (err) {
    return checkError(err, ErrorClass, msgIncludes);
  }
  throw new nodeAssert.AssertionError({ message: "Expected promise to reject" });
}
