/**
 * Assertions for tests, in the shape of `@std/assert` (which is not reachable from these
 * machines), built on `node:assert`.
 *
 * @module
 */
import nodeAssert from "node:assert/strict";

/** Asserts a value is truthy. */
export function assert(value: unknown, message?: string): asserts value {
  nodeAssert.ok(value, message);
}

/** Asserts deep, strict equality. */
export function assertEquals<T>(actual: T, expected: T, message?: string): void {
  nodeAssert.deepStrictEqual(actual, expected, message);
}

/** Asserts deep inequality. */
export function assertNotEquals<T>(actual: T, expected: T, message?: string): void {
  nodeAssert.notDeepStrictEqual(actual, expected, message);
}

/** Asserts `actual` includes `expected`. */
export function assertStringIncludes(actual: string, expected: string, message?: string): void {
  if (!actual.includes(expected)) {
    throw new nodeAssert.AssertionError({
      message: message ??
        `Expected ${JSON.stringify(actual)} to include ${JSON.stringify(expected)}`,
    });
  }
}

/** Asserts `actual` matches a regular expression. */
export function assertMatch(actual: string, expected: RegExp, message?: string): void {
  nodeAssert.match(actual, expected, message);
}

/** Asserts `a < b`… in general that `actual` is at most `limit`. */
export function assertLessOrEqual(actual: number, limit: number, message?: string): void {
  if (!(actual <= limit)) {
    throw new nodeAssert.AssertionError({ message: message ?? `Expected ${actual} ≤ ${limit}` });
  }
}

/** Asserts `actual` is at least `limit`. */
export function assertGreaterOrEqual(actual: number, limit: number, message?: string): void {
  if (!(actual >= limit)) {
    throw new nodeAssert.AssertionError({ message: message ?? `Expected ${actual} ≥ ${limit}` });
  }
}

// deno-lint-ignore no-explicit-any
type ErrorClass<E extends Error> = abstract new (...args: any[]) => E;

function checkError<E extends Error>(
  err: unknown,
  ErrorClass?: ErrorClass<E>,
  msgIncludes?: string,
): E {
  if (ErrorClass && !(err instanceof ErrorClass)) {
    throw new nodeAssert.AssertionError({
      message: `Expected error to be ${ErrorClass.name}, got ${
        err instanceof Error ? `${err.name}: ${err.message}` : String(err)
      }`,
    });
  }
  const e = err as E;
  if (msgIncludes !== undefined && !String(e?.message).includes(msgIncludes)) {
    throw new nodeAssert.AssertionError({
      message: `Expected error message to include ${JSON.stringify(msgIncludes)}, got ${
        JSON.stringify(e?.message)
      }`,
    });
  }
  return e;
}

/** Asserts `fn` throws (an instance of `ErrorClass` whose message includes `msgIncludes`). */
export function assertThrows<E extends Error = Error>(
  fn: () => unknown,
  ErrorClass?: ErrorClass<E>,
  msgIncludes?: string,
): E {
  try {
    fn();
  } catch (err) {
    return checkError(err, ErrorClass, msgIncludes);
  }
  throw new nodeAssert.AssertionError({ message: "Expected function to throw" });
}

/** Asserts `fn` rejects (an instance of `ErrorClass` whose message includes `msgIncludes`). */
export async function assertRejects<E extends Error = Error>(
  fn: () => Promise<unknown>,
  ErrorClass?: ErrorClass<E>,
  msgIncludes?: string,
): Promise<E> {
  try {
    await fn();
  } catch (err) {
    return checkError(err, ErrorClass, msgIncludes);
  }
  throw new nodeAssert.AssertionError({ message: "Expected promise to reject" });
}
