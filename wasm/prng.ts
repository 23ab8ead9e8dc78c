/**
 * A small seeded pseudo-random generator (mulberry32) for property tests and benches, so a
 * failing case can be replayed from its seed.
 *
 * @module
 */

/** A seeded generator of floats in [0, 1) with integer and choice helpers. */
export class Prng {
  #state: number;

  /**
   * @param seed any 32-bit integer
   */
  constructor(seed: number) {
    this.#state = seed | 0;
  }

  /**
   * The next float in [0, 1).
   *
   * @returns the float
   * @example
   * ```ts
   * const a = new Prng(7).next(), b = new Prng(7).next();
   * if (a !== b || a < 0 || a >= 1) throw new Error();
   * ```
   */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) | 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /**
   * An integer in [lo, hi].
   *
   * @param lo the smallest value
   * @param hi the largest value
   * @returns the integer
   */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /**
   * One element of a non-empty array.
   *
   * @param items the choices
   * @returns one of them
   */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /**
   * True with probability p.
   *
   * @param p the probability
   * @returns the coin
   */
  chance(p: number): boolean {
    return this.next() < p;
  }
}
