/**
 * The mutations the fuzzers (`scripts/fuzz_ingest.ts`, `scripts/fuzz_http.ts`) apply to a seed:
 * a seeded PRNG (the same seed gives the same mutants), structural changes to parsed JSON (keys
 * dropped, values of the wrong type, huge strings, lone surrogates, nesting past the limit,
 * prototype keys, file references to devices, FIFOs and paths outside the folder) and
 * byte-level changes to the text (truncation, flipped and inserted bytes).
 *
 * @module
 */

/** A deterministic PRNG (mulberry32). */
export class Prng {
  #s: number;
  constructor(seed: number) {
    this.#s = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    let t = (this.#s += 0x6d2b79f5);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** One of the items. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

/** Nesting past every limit Cairn has (1,000 levels). */
function deep(levels: number, array: boolean): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = array ? [v] : { a: v };
  return v;
}

/** Odd values of every JSON type. */
function oddValue(r: Prng, refs: readonly string[]): unknown {
  switch (r.int(16)) {
    case 0:
      return null;
    case 1:
      return r.pick([0, -1, 1e308, -1e308, 2 ** 53 + 1, 0.5, -0]);
    case 2:
      return r.pick(["", " ", "\u0000", "\ud800", "é".repeat(3), "{{x}}", "../../etc/passwd"]);
    case 3:
      return "x".repeat(r.pick([1_000, 100_000]));
    case 4:
      return r.pick([true, false]);
    case 5:
      return [];
    case 6:
      return {};
    case 7:
      return deep(r.pick([999, 1_001, 1_500, 5_000]), r.next() < 0.5);
    case 8:
      return { file: r.pick(refs) };
    case 9:
      return r.pick(refs);
    case 10:
      return JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": 1}}');
    case 11:
      return "2026-13-45T99:99:99Z";
    case 12:
      return "data:image/png;base64,@@@";
    case 13:
      return Array.from({ length: r.pick([2, 50]) }, () => r.int(1000));
    case 14:
      return r.pick(["javascript:alert(1)", "file:///etc/passwd", "http://127.0.0.1:9/"]);
    default:
      return { type: "SessionEnded", data: { reason: "completed" } };
  }
}

/** Every object and array inside a value, with the key that holds it (bounded). */
function containers(
  root: unknown,
  limit = 5_000,
): { holder: Record<string, unknown> | unknown[] }[] {
  const out: { holder: Record<string, unknown> | unknown[] }[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0 && out.length < limit) {
    const v = stack.pop();
    if (v === null || typeof v !== "object") continue;
    out.push({ holder: v as Record<string, unknown> });
    for (const c of Object.values(v as Record<string, unknown>)) {
      if (c !== null && typeof c === "object") stack.push(c);
    }
  }
  return out;
}

/**
 * A mutant of a JSON seed: one to three structural changes, then sometimes a byte-level one.
 *
 * @param r the PRNG
 * @param seed the seed's parsed value (not changed)
 * @param refs file references to try (devices, FIFOs, outside paths)
 * @returns the mutant's text
 */
export function mutateJson(r: Prng, seed: unknown, refs: readonly string[]): string {
  const value = structuredClone(seed);
  const n = 1 + r.int(3);
  for (let i = 0; i < n; i++) {
    const all = containers(value);
    if (all.length === 0) break;
    const { holder } = r.pick(all);
    const keys = Object.keys(holder);
    const op = r.int(6);
    if (Array.isArray(holder)) {
      if (op === 0 && holder.length > 0) holder.splice(r.int(holder.length), 1);
      else if (op === 1 && holder.length > 0) {
        holder.push(structuredClone(holder[r.int(holder.length)]));
      } else if (holder.length > 0) holder[r.int(holder.length)] = oddValue(r, refs);
      else holder.push(oddValue(r, refs));
    } else if (op === 0 && keys.length > 0) {
      delete holder[r.pick(keys)];
    } else if (op === 1) {
      holder[r.pick(["file", "viewHierarchy", "screenshot", "__proto__", "extra", "type"])] =
        oddValue(r, refs);
    } else if (keys.length > 0) {
      holder[r.pick(keys)] = oddValue(r, refs);
    }
  }
  let text = JSON.stringify(value);
  if (r.next() < 0.2) text = mutateText(r, text);
  return text;
}

/**
 * A byte-level mutant of a text: truncated, a byte flipped, or junk inserted.
 *
 * @param r the PRNG
 * @param text the text
 * @returns the mutant
 */
export function mutateText(r: Prng, text: string): string {
  const at = r.int(Math.max(1, text.length));
  switch (r.int(4)) {
    case 0:
      return text.slice(0, at);
    case 1:
      return text.slice(0, at) + String.fromCharCode(r.int(256)) + text.slice(at + 1);
    case 2:
      return text.slice(0, at) + r.pick(["\u0000", "}", "]", ",", '"', "\\", "\ud800", "\n"]) +
        text.slice(at);
    default:
      return text + text.slice(0, at);
  }
}
