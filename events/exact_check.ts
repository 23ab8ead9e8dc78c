/**
 * Exact checks: a zod schema compiled into a plain predicate that answers one question for the
 * append path: would zod accept this value *and give it back unchanged*? Where the answer is
 * yes, the store serialises the value as it came; where it is no, or the schema uses something
 * the compiler does not know, the value goes through zod, which rejects it with its message or
 * returns the copy to store (unknown keys stripped). Either way what reaches the log is exactly
 * what zod would have stored, and zod stays the one definition of every event.
 *
 * A check may say no where zod would say yes (that costs only the zod call); it must never say
 * yes where zod would refuse or change the value: `tests/events/exact_check_test.ts` holds it to that
 * on every corpus event and on mutations of each.
 *
 * The compiler reads zod 4's schema definitions (`schema._zod.def`, the layout zod documents for
 * library authors); a definition it cannot read leaves that schema to zod.
 *
 * Why: zod's parse copies every object it checks and keeps issue bookkeeping; between two SQLite
 * commits, with the caches cold, that was ~8 µs of a ~45 µs one-event append
 * (`scripts/store_append_steps.ts`). The compiled checks allocate nothing.
 *
 * @module
 */
import type { z } from "zod";
import { EVENT_SCHEMAS, type EventType } from "./schemas.ts";

/** True when zod would accept the value and return it unchanged (as JSON). */
export type ExactCheck = (value: unknown) => boolean;

interface Def {
  type: string;
  checks?: { _zod: { def: CheckDef } }[];
  shape?: Record<string, Schema>;
  catchall?: unknown;
  innerType?: Schema;
  element?: Schema;
  keyType?: Schema;
  valueType?: Schema;
  entries?: Record<string, unknown>;
}
interface CheckDef {
  check: string;
  format?: string;
  pattern?: RegExp;
  value?: unknown;
  inclusive?: boolean;
}
type Schema = { _zod: { def: Def } };

/**
 * Compiles a schema into its exact check.
 *
 * @param schema a zod schema
 * @returns the check, or undefined when the schema uses a part the compiler does not know
 *   (a transform, default, union, custom refinement…): such values always go through zod
 * @example
 * ```ts
 * import { z } from "zod";
 * const check = compileExactCheck(z.object({ n: z.number().int() }))!;
 * if (!check({ n: 1 }) || check({ n: 1.5 }) || check({ n: 1, extra: true })) throw new Error();
 * ```
 */
export function compileExactCheck(schema: z.ZodType): ExactCheck | undefined {
  try {
    return compile(schema as unknown as Schema);
  } catch {
    // a definition laid out otherwise than zod 4's: zod alone checks this schema's events
    return undefined;
  }
}

/** Each event type's schema, and its exact check where the schema compiles to one. */
export const EVENT_CHECKS: ReadonlyMap<
  string,
  { schema: (typeof EVENT_SCHEMAS)[EventType]; exact: ExactCheck | undefined }
> = new Map(
  Object.entries(EVENT_SCHEMAS).map(([t, schema]) => [
    t,
    { schema, exact: compileExactCheck(schema) },
  ]),
);

function compile(schema: Schema): ExactCheck | undefined {
  const def = schema._zod.def;
  switch (def.type) {
    case "string":
      return stringCheck(def);
    case "number":
      return numberCheck(def);
    case "boolean":
      return def.checks?.length ? undefined : (v) => typeof v === "boolean";
    case "unknown":
      return () => true;
    case "enum": {
      const values = Object.values(def.entries ?? {});
      if (!values.every((v) => typeof v === "string")) return undefined;
      const set = new Set<unknown>(values);
      return (v) => set.has(v);
    }
    case "optional": {
      const inner = compile(def.innerType!);
      return inner && ((v) => v === undefined || inner(v));
    }
    case "array": {
      const el = compile(def.element!);
      if (!el || def.checks?.length) return undefined;
      return (v) => {
        if (!Array.isArray(v)) return false;
        for (let i = 0; i < v.length; i++) if (!el(v[i])) return false;
        return true;
      };
    }
    case "record":
      return recordCheck(def);
    case "object":
      return objectCheck(def);
    default:
      return undefined;
  }
}

/** A plain object: JSON and zod see the same properties (no class, no inherited keys). */
function isPlain(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function objectCheck(def: Def): ExactCheck | undefined {
  if (def.catchall !== undefined || def.checks?.length) return undefined;
  const keys = Object.keys(def.shape!);
  // an optional field's check is its inner type's, called only when the field has a value
  const checks: ExactCheck[] = [];
  const optional: boolean[] = [];
  for (const k of keys) {
    let field = def.shape![k]!;
    const isOptional = field._zod.def.type === "optional";
    if (isOptional) field = field._zod.def.innerType!;
    const c = compile(field);
    if (!c) return undefined;
    checks.push(c);
    optional.push(isOptional);
  }
  return generatedObjectCheck(keys, checks, optional);
}

/**
 * The object check as generated code, one line per field with the field's name written out:
 * V8 then reads each field through an inline cache for the object's shape instead of a generic
 * keyed lookup, and tells a known key by comparing interned strings. With the optional fields'
 * inner checks run only on a value, the bench fixture's events check in 0.32 µs instead of the
 * loop over the keys' 0.58 µs (hot, BENCHMARKS.md "Event store"). The names come from Cairn's
 * own schemas and are written as JSON string literals.
 */
function generatedObjectCheck(
  keys: string[],
  checks: ExactCheck[],
  optional: boolean[],
): ExactCheck {
  const names = keys.map((k) => JSON.stringify(k));
  const fields = names.map((name, i) =>
    optional[i]
      ? `x = v[${name}]; if (x !== undefined) { seen++; if (!c[${i}](x)) return false; }`
      : `x = v[${name}]; if (x !== undefined) seen++; if (!c[${i}](x)) return false;`
  );
  const body = `
    if (!isPlain(v)) return false;
    // every enumerable key with a value is in the shape (zod would strip the others)…
    let own = 0;
    for (const k in v) {
      switch (k) {
        ${names.map((n) => `case ${n}:`).join(" ")}
          break;
        default:
          return false;
      }
      if (v[k] !== undefined) own++;
    }
    // …and every shape key zod reads is one of them (a non-enumerable one JSON would drop)
    let seen = 0;
    let x;
    ${fields.join("\n    ")}
    return seen === own;`;
  const make = new Function("isPlain", "c", `return function objectCheck(v) {${body}\n};`);
  return make(isPlain, checks) as ExactCheck;
}

function recordCheck(def: Def): ExactCheck | undefined {
  const key = def.keyType!._zod.def;
  if (key.type !== "string" || key.checks?.length) return undefined;
  const value = compile(def.valueType!);
  if (!value) return undefined;
  return (v) => {
    if (!isPlain(v) || Object.getOwnPropertySymbols(v).length > 0) return false;
    let own = 0;
    for (const k in v) {
      // an own "__proto__" (as JSON.parse makes it): zod's copy would set a prototype instead
      if (k === "__proto__" || !value(v[k])) return false;
      own++;
    }
    // zod reads own keys, enumerable or not; JSON only enumerable ones
    return own === Object.getOwnPropertyNames(v).length;
  };
}

function stringCheck(def: Def): ExactCheck | undefined {
  const patterns: RegExp[] = [];
  for (const c of def.checks ?? []) {
    const d = c._zod.def;
    if (d.check !== "string_format" || d.format !== "regex" || !(d.pattern instanceof RegExp)) {
      return undefined;
    }
    // a fresh copy: a global or sticky pattern's lastIndex must not carry over between calls
    patterns.push(new RegExp(d.pattern.source, d.pattern.flags.replace(/[gy]/g, "")));
  }
  if (patterns.length === 0) return (v) => typeof v === "string";
  if (patterns.length === 1) {
    const [p] = patterns as [RegExp];
    return (v) => typeof v === "string" && p.test(v);
  }
  return (v) => typeof v === "string" && patterns.every((p) => p.test(v));
}

function numberCheck(def: Def): ExactCheck | undefined {
  let integer = false;
  const bounds: { value: number; inclusive: boolean; above: boolean }[] = [];
  for (const c of def.checks ?? []) {
    const d = c._zod.def;
    if (d.check === "number_format" && d.format === "safeint") integer = true;
    else if (
      (d.check === "greater_than" || d.check === "less_than") && typeof d.value === "number"
    ) {
      bounds.push({
        value: d.value,
        inclusive: d.inclusive === true,
        above: d.check === "greater_than",
      });
    } else return undefined;
  }
  return (v) => {
    if (typeof v !== "number" || !Number.isFinite(v)) return false;
    if (integer && !Number.isSafeInteger(v)) return false;
    for (const b of bounds) {
      const ok = b.above
        ? (b.inclusive ? v >= b.value : v > b.value)
        : (b.inclusive ? v <= b.value : v < b.value);
      if (!ok) return false;
    }
    return true;
  };
}

/**
 * The path of the first field of `input` that `output`, zod's parsed copy of it, no longer has:
 * a field the schema does not know, which zod strips without a word.
 *
 * @param input the value as it came
 * @param output zod's copy of it
 * @returns a dotted path such as `target.selectr`, or undefined when nothing was dropped
 * @example
 * ```ts
 * if (droppedField({ a: { b: 1, c: 2 } }, { a: { b: 1 } }) !== "a.c") throw new Error();
 * ```
 */
export function droppedField(input: unknown, output: unknown): string | undefined {
  if (
    input === null || typeof input !== "object" || output === null || typeof output !== "object"
  ) {
    return undefined;
  }
  for (const [k, v] of Object.entries(input)) {
    if (!Object.hasOwn(output, k)) return k;
    const inner = droppedField(v, (output as Record<string, unknown>)[k]);
    if (inner !== undefined) return `${k}.${inner}`;
  }
  return undefined;
}
