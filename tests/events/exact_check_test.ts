import { join } from "node:path";
import { z } from "zod";
import { compileExactCheck } from "../../events/exact_check.ts";
import { EVENT_SCHEMAS, type EventType, type NewEvent } from "../../events/schemas.ts";
import { prepareFile } from "../../cli/ingest.ts";
import { ROOT } from "../_fixtures/cli_run.ts";
import { syntheticSession } from "../_fixtures/store_fixtures.ts";
import { assert, assertEquals } from "../_fixtures/assert.ts";

const TYPES = Object.keys(EVENT_SCHEMAS) as EventType[];
const CHECKS = new Map(TYPES.map((t) => [t, compileExactCheck(EVENT_SCHEMAS[t])]));

type Def = {
  type: string;
  shape?: Record<string, Schema>;
  innerType?: Schema;
  element?: Schema;
  valueType?: Schema;
  entries?: Record<string, string>;
};
type Schema = { _zod: { def: Def } };

/**
 * The one property a check must have: where it says yes, zod accepts the value and gives back
 * the same JSON. Returns what the check said.
 */
function agrees(type: EventType, value: unknown, where: string): boolean {
  const yes = CHECKS.get(type)!(value);
  if (yes) {
    const parsed = EVENT_SCHEMAS[type].safeParse(value);
    assert(parsed.success, `${where}: the check accepted what zod refuses`);
    assertEquals(
      JSON.parse(JSON.stringify(parsed.data)),
      JSON.parse(JSON.stringify(value)),
      `${where}: zod would have stored something else`,
    );
  }
  return yes;
}

/** A value with every optional field present (variant picks among enum entries), valid by build. */
function sample(schema: Schema, variant: number): unknown {
  const def = schema._zod.def;
  switch (def.type) {
    case "string": {
      const s = schema as unknown as z.ZodString;
      return ["a".repeat(64), `text ${variant}`].find((c) => s.safeParse(c).success);
    }
    case "number":
      return variant + 1;
    case "boolean":
      return variant % 2 === 0;
    case "unknown":
      return { nested: [variant, "x", null] };
    case "enum": {
      const values = Object.values(def.entries!);
      return values[variant % values.length];
    }
    case "optional":
      return sample(def.innerType!, variant);
    case "array":
      return [sample(def.element!, variant), sample(def.element!, variant + 1)];
    case "record":
      return { k1: sample(def.valueType!, variant), k2: sample(def.valueType!, variant + 1) };
    case "object":
      return Object.fromEntries(
        Object.entries(def.shape!).map(([k, v]) => [k, sample(v, variant)]),
      );
    default:
      throw new Error(`sample(): no generator for ${def.type}`);
  }
}

/** Every value one edit away: each key dropped, each value retyped, an unknown key added. */
function* mutants(value: unknown, path = "data"): Generator<[string, unknown]> {
  const wrong: unknown[] = [
    undefined,
    null,
    "",
    "text",
    0,
    -1,
    1.5,
    NaN,
    Infinity,
    2 ** 60,
    true,
    [],
    {},
    ["text"],
  ];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      for (const [p, m] of mutants(value[i], `${path}[${i}]`)) {
        yield [p, value.map((x, j) => j === i ? m : x)];
      }
    }
    yield [`${path}: a hole`, Object.assign(new Array(value.length + 1), value)];
    return;
  }
  if (value === null || typeof value !== "object") {
    for (const w of wrong) yield [`${path} = ${String(w)}`, w];
    return;
  }
  const o = value as Record<string, unknown>;
  yield [`${path}: an unknown key`, { ...o, unknownKey: 1 }];
  // JSON.parse makes "__proto__" an own key; zod's copy sets the prototype instead (drops it)
  yield [`${path}: an own __proto__ key`, { ...JSON.parse('{"__proto__":"x"}'), ...o }];
  yield [`${path}: a class instance`, Object.assign(new (class Box {})(), o)];
  yield [`${path}: no prototype`, Object.assign(Object.create(null), o)];
  for (const k of Object.keys(o)) {
    const { [k]: _, ...rest } = o;
    yield [`${path}.${k} dropped`, rest];
    yield [`${path}.${k} undefined`, { ...o, [k]: undefined }];
    yield [
      `${path}.${k} not enumerable`,
      Object.defineProperty({ ...rest }, k, { value: o[k], enumerable: false }),
    ];
    for (const [p, m] of mutants(o[k], `${path}.${k}`)) yield [p, { ...o, [k]: m }];
  }
}

function checkAll(type: EventType, value: unknown, where: string): number {
  assert(agrees(type, value, where), `${where}: a valid ${type} missed the fast path`);
  let n = 0;
  for (const [p, m] of mutants(value)) {
    agrees(type, m, `${where} ${p}`);
    n++;
  }
  return n;
}

Deno.test("compileExactCheck() compiles every event schema, so every append can skip zod's copy", () => {
  for (const t of TYPES) assert(CHECKS.get(t), `${t} has no exact check`);
});

Deno.test("an exact check never accepts what zod refuses or would change: every schema, every field, one edit away", () => {
  let count = 0;
  for (const t of TYPES) {
    for (let variant = 0; variant < 3; variant++) {
      const value = sample(EVENT_SCHEMAS[t] as unknown as Schema, variant);
      assert(EVENT_SCHEMAS[t].safeParse(value).success, `sample ${t} #${variant} is invalid`);
      count += checkAll(t, value, `${t} #${variant}`);
    }
  }
  assert(count > 5000, `only ${count} mutants`);
});

Deno.test("every event imported from the corpus and the examples takes the fast path, and agrees with zod one edit away", async () => {
  const files = [
    ...["inventory", "merchant", "web_checkout"].map((n) => `examples/${n}.capture.json`),
    ...[...Deno.readDirSync(join(ROOT, "tests/testdata/formats"))]
      .filter((e) => e.name.endsWith(".json")).map((e) => `tests/testdata/formats/${e.name}`),
    ...[...Deno.readDirSync(join(ROOT, "../shared/corpus/chrome-recorder"))]
      .map((e) => `../shared/corpus/chrome-recorder/${e.name}`),
  ];
  const events: [string, NewEvent][] = [];
  for (const file of files) {
    const { sessions } = await prepareFile(join(ROOT, file));
    for (const s of sessions) for (const e of s.events) events.push([file, e]);
  }
  for (const e of syntheticSession(20)) events.push(["syntheticSession", e]);
  const types = new Set(events.map(([, e]) => e.type));
  assert(types.size >= 8, `only ${[...types].join(", ")}`);
  let mutated = 0;
  for (const [i, [file, e]] of events.entries()) {
    const where = `${file} event ${i} (${e.type})`;
    // the whole neighbourhood of a few of each type; the rest at least take the fast path
    if (i % 7 === 0) mutated += checkAll(e.type as EventType, e.data, where);
    else assert(agrees(e.type as EventType, e.data, where), `${where} missed the fast path`);
  }
  assert(mutated > 1000, `only ${mutated} mutants`);
});

Deno.test("exact checks: a global regex keeps no state between calls, records refuse symbols and hidden keys", () => {
  const check = compileExactCheck(z.object({ h: z.string().regex(/^a+$/g) }))!;
  for (let i = 0; i < 3; i++) assert(check({ h: "aaa" }), `call ${i}`);
  const record = compileExactCheck(z.record(z.string(), z.string()))!;
  assert(record({ a: "1" }));
  assert(!record({ a: "1", [Symbol("s")]: "2" }));
  assert(!record(Object.defineProperty({ a: "1" }, "b", { value: "2", enumerable: false })));
  assert(!record({ a: 1 }));
  assertEquals(compileExactCheck(z.string().transform((s) => s.length)), undefined);
  assertEquals(compileExactCheck(z.object({ n: z.number().default(1) })), undefined);
  assertEquals(compileExactCheck(z.object({ a: z.string() }).strict()), undefined);
  const bounded = compileExactCheck(z.number().positive().lt(10))!;
  assertEquals([0, 1, 9.5, 10].map(bounded), [false, true, true, false]);
});
