/**
 * A bound on how long anything that talks to a browser or a device may take: a page that never
 * answers (an endless script, a hung renderer) must not hold a caller forever.
 *
 * @module
 */

/**
 * Settles like `work`, or rejects with `onTimeout()` when `ms` pass first. The timer is cleared
 * either way; `work` itself keeps running, and its late rejection is ignored.
 *
 * @param work what to wait for
 * @param ms how long to wait at most
 * @param onTimeout makes the error of a timeout
 * @returns what `work` resolves to
 * @throws what `work` rejects with, or `onTimeout()`'s error
 * @example
 * ```ts
 * const never = new Promise<never>(() => {});
 * const err = await withDeadline(never, 10, () => new Error("too slow")).catch((e) => e);
 * if (err.message !== "too slow") throw new Error();
 * ```
 */
export async function withDeadline<T>(
  work: Promise<T>,
  ms: number,
  onTimeout: () => Error,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
    work.catch(() => {});
  }
}
