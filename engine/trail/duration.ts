/**
 * Durations as trails write them (`wait: 1.5s`).
 *
 * @module
 */

/** The longest `wait` a source may ask for: ten minutes (the longest action timeout). */
export const MAX_WAIT_MS = 600_000;

/**
 * Reads a `wait` duration: milliseconds as a bare number (`1500`), or with a unit (`1500ms`,
 * `1.5s`, `2 s`, `1m`).
 *
 * @param value what the source wrote
 * @returns the milliseconds, or undefined when it is no duration (or longer than {@linkcode MAX_WAIT_MS})
 * @example
 * ```ts
 * if (parseDuration("1.5s") !== 1500 || parseDuration("250") !== 250 || parseDuration("abc") !== undefined) throw new Error();
 * ```
 */
export function parseDuration(value: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/i.exec(value);
  if (!m) return undefined;
  const unit = (m[2] ?? "ms").toLowerCase();
  const ms = Math.round(Number(m[1]) * (unit === "m" ? 60_000 : unit === "s" ? 1_000 : 1));
  return ms <= MAX_WAIT_MS ? ms : undefined;
}
