/**
 * Waiting in tests for something the code does asynchronously (a process exit, a file removal, a
 * report that moves on, a server-sent event), bounded by a deadline: a test that checks such a
 * state at one instant passes alone and fails on a busy machine.
 *
 * @module
 */

/**
 * Polls `check` every `everyMs` until it returns a value other than `undefined`, `false` or
 * `null`, and returns that value; throws naming `what` once `timeoutMs` has passed.
 */
export async function waitUntil<T>(
  what: string,
  check: () => T | Promise<T>,
  { timeoutMs = 30_000, everyMs = 50 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<Exclude<T, false | null | undefined>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false && value !== null) {
      return value as Exclude<T, false | null | undefined>;
    }
    if (performance.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
