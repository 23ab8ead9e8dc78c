/**
 * A map that keeps only the entries used last, so a projection over a long capture holds a few
 * parsed screens and their tables at a time, not all of them (docs/storage.md "Parsed screens").
 *
 * @module
 */

/**
 * A `Map` bounded to `limit` entries: reading an entry (`get`) or writing one (`set`) makes it the
 * newest; writing beyond the limit drops the oldest. `has` does not count as a use.
 *
 * @example
 * ```ts
 * const m = new RecentMap<string, number>(2);
 * m.set("a", 1).set("b", 2);
 * m.get("a"); // "a" is now the newest
 * m.set("c", 3); // drops "b"
 * if (m.has("b") || !m.has("a") || m.size !== 2) throw new Error();
 * ```
 */
export class RecentMap<K, V> extends Map<K, V> {
  /** How many entries are kept. */
  readonly limit: number;

  /**
   * @param limit how many entries are kept (at least 1)
   * @throws {RangeError} when limit is not a positive integer
   */
  constructor(limit: number) {
    super();
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`A RecentMap keeps at least 1 entry, not ${limit}`);
    }
    this.limit = limit;
  }

  override get(key: K): V | undefined {
    if (!super.has(key)) return undefined;
    const value = super.get(key) as V;
    super.delete(key);
    super.set(key, value);
    return value;
  }

  override set(key: K, value: V): this {
    super.delete(key);
    super.set(key, value);
    while (super.size > this.limit) super.delete(super.keys().next().value as K);
    return this;
  }
}
