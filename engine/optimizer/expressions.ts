/**
 * The expressions pass: an asserted number that relates to
 * numbers captured earlier, in the way the NL step says, becomes an expression:
 * "increased by 2" with 5 read and 7 asserted → `{{inventoryCount + 2}}`; "total" with a
 * price and a quantity → `{{price * quantity}}`. Nothing is invented: a relation needs both
 * an NL phrase and exact arithmetic support, and the expression must evaluate (with Cairn's
 * evaluator, formats kept) to exactly the text asserted. Under heuristics v2 the number may be
 * inside a longer text ("Checkout (2 items) $37.50" → "Checkout (2 items) {{fern + cactus}}").
 *
 * @module
 */
import { evaluateTemplate, parseDisplayNumber } from "../trail/mod.ts";
import type { CapturedSlot, Draft, DraftAction } from "./draft.ts";
import { retargetAssertion } from "./modes.ts";
import {
  asksForValue,
  namesKey,
  refersToEarlier,
  statedDeltas,
  type StatedRelations,
  statedRelations,
  statesDoubled,
  statesHalved,
  statesTotal,
} from "../nl/mod.ts";

/** A relation the NL step states, as candidate expressions over slots. */
interface Relation {
  phrase: string;
  build(slots: CapturedSlot[], target: number): string[];
}

/**
 * The relations an NL step states.
 *
 * @param stepText the NL step
 * @returns the relations (empty when the step states none)
 */
function relations(stepText: string): Relation[] {
  const out: Relation[] = [];
  for (const d of statedDeltas(stepText)) {
    out.push({
      phrase: d.phrase,
      build: (slots) => slots.map((s) => `${s.name} ${d.op} ${d.amount}`),
    });
  }
  if (statesDoubled(stepText)) {
    out.push({ phrase: "doubled", build: (slots) => slots.map((s) => `${s.name} * 2`) });
  }
  if (statesHalved(stepText)) {
    out.push({ phrase: "halved", build: (slots) => slots.map((s) => `${s.name} / 2`) });
  }
  if (statesTotal(stepText)) {
    out.push({
      phrase: "total",
      build: (recentFirst) => {
        const slots = [...recentFirst].sort((x, y) => x.seq - y.seq);
        const exprs: string[] = [];
        for (let i = 0; i < slots.length; i++) {
          for (let j = i + 1; j < slots.length; j++) {
            exprs.push(
              `${slots[i]!.name} * ${slots[j]!.name}`,
              `${slots[i]!.name} + ${slots[j]!.name}`,
            );
          }
        }
        if (slots.length > 2) exprs.push(slots.map((s) => s.name).join(" + "));
        return exprs;
      },
    });
  }
  return out;
}

/** Ordered pairs of distinct slots, those the step names first. */
function pairs(
  slots: CapturedSlot[],
  named: (s: CapturedSlot) => boolean,
): [CapturedSlot, CapturedSlot][] {
  const ordered = [...slots].sort((x, y) => Number(named(y)) - Number(named(x)) || x.seq - y.seq);
  const out: [CapturedSlot, CapturedSlot][] = [];
  for (const a of ordered) for (const b of ordered) if (a !== b) out.push([a, b]);
  return out;
}

/**
 * v3: every relation {@linkcode statedRelations} reads (constant changes, "N times", "half",
 * "N percent", a sum, a difference, a product or a ratio of two values), as candidate
 * expressions over the numeric slots, those the step names first.
 */
function relationsV2(stepText: string): Relation[] {
  const r: StatedRelations = statedRelations(stepText);
  const named = (s: CapturedSlot) => namesKey(stepText, s.name);
  const first = (slots: CapturedSlot[]) =>
    [...slots].sort((x, y) => Number(named(y)) - Number(named(x)));
  const out: Relation[] = [];
  for (const d of r.deltas) {
    out.push({
      phrase: d.phrase,
      build: (slots) => first(slots).map((s) => `${s.name} ${d.op} ${d.amount}`),
    });
  }
  for (const f of r.factors) {
    out.push({
      phrase: f.phrase,
      build: (slots) => first(slots).map((s) => `${s.name} * ${f.amount}`),
    });
  }
  for (const d of r.divisors) {
    out.push({
      phrase: d.phrase,
      build: (slots) => first(slots).map((s) => `${s.name} / ${d.amount}`),
    });
  }
  for (const p of r.percents) {
    out.push({
      phrase: p.phrase,
      build: (slots) =>
        first(slots).flatMap((s) => [
          `${s.name} * ${p.amount} / 100`,
          `${s.name} - ${s.name} * ${p.amount} / 100`,
          `${s.name} + ${s.name} * ${p.amount} / 100`,
        ]),
    });
  }
  const binary = (phrase: string | undefined, op: string) => {
    if (phrase === undefined) return;
    out.push({
      phrase,
      build: (slots) => pairs(slots, named).map(([a, b]) => `${a.name} ${op} ${b.name}`),
    });
  };
  binary(r.difference, "-");
  binary(r.sum, "+");
  binary(r.product, "*");
  binary(r.ratio, "/");
  if (r.sum !== undefined) {
    out.push({
      phrase: r.sum,
      build: (slots) =>
        slots.length > 2
          ? [[...slots].sort((x, y) => x.seq - y.seq).map((s) => s.name).join(" + ")]
          : [],
    });
  }
  return out;
}

/**
 * The expressions pass.
 *
 * @param draft the draft after generalization
 * @returns the draft with computed assertions written as expressions
 */
export function expressionsPass(draft: Draft): Draft {
  if (draft.level >= 3) return expressionsV2(draft);
  return {
    ...draft,
    steps: draft.steps.map((s) => {
      const rels = relations(s.text);
      if (rels.length === 0) return s;
      return {
        ...s,
        actions: s.actions.map((a) => detect(a, rels, draft, s.selectorMode ?? draft.mode)),
      };
    }),
  };
}

/**
 * v3: the relations of {@linkcode relationsV2} over the numbers typed, read or set in memory
 * before the assertion (the initial memory's too); a number inside a longer text may be such an
 * expression, or a value read earlier when the step refers to it ("the formula shows the noted
 * result times 4": `8×4` → `{{subtotal}}×4`). A memory key an expression uses joins
 * `config.memory`.
 */
function expressionsV2(draft: Draft): Draft {
  const memory = { ...draft.memory };
  const steps = draft.steps.map((s) => {
    const rels = relationsV2(s.text);
    const earlier = refersToEarlier(s.text);
    if (rels.length === 0 && !earlier) return s;
    const mode = s.selectorMode ?? draft.mode;
    return {
      ...s,
      actions: s.actions.map((a) => {
        if (a.drop || !a.src.ok || a.literal === undefined) return a;
        if (a.kind !== "assertText" && a.kind !== "assertVisible") return a;
        if (a.equals !== undefined && a.equals !== a.literal) return a;
        if (a.matches !== undefined) return a;
        const slots = numericValues(a, draft);
        const r = detectV2(a, rels, slots, s.text, mode);
        for (const k of r.used) {
          if (!(k in memory) && k in draft.model.initialMemory) {
            memory[k] = draft.model.initialMemory[k]!;
          }
        }
        return r.action;
      }),
    };
  });
  return { ...draft, steps, memory };
}

/** v3 reads amounts in every shape the evaluator reads (`12,50 €`, `₹1,200`, `CHF 20.00`). */
const INTL = { intl: true };

/** The numbers known before an action: typed, read, set, and the initial memory's. */
function numericValues(a: DraftAction, draft: Draft): CapturedSlot[] {
  const latest = new Map<string, CapturedSlot>();
  for (const [k, v] of Object.entries(draft.model.initialMemory)) {
    latest.set(k, { name: k, value: v, seq: -1 });
  }
  for (const c of [...draft.inputs, ...draft.captured].sort((x, y) => x.seq - y.seq)) {
    if (c.seq < a.src.seq) latest.set(c.name, c);
  }
  return [...latest.values()]
    .filter((c) =>
      /^[A-Za-z_][\w.]*$/.test(c.name) && parseDisplayNumber(c.value, INTL) !== undefined
    )
    .sort((x, y) => y.seq - x.seq);
}

function listed(slots: CapturedSlot[]): string {
  return slots.map((c) => `${c.name} = ${c.value}`).join(", ");
}

/** Candidate expressions of the relations for one number, and the first that gives it exactly. */
function fit(
  text: string,
  rels: Relation[],
  slots: CapturedSlot[],
  memory: Record<string, string>,
): { expr: string; phrase: string } | undefined {
  const target = parseDisplayNumber(text, INTL);
  if (!target || slots.length === 0) return undefined;
  for (const rel of rels) {
    for (const expr of rel.build(slots, target.value)) {
      if (evaluates(expr, memory) === text) return { expr, phrase: rel.phrase };
    }
  }
  return undefined;
}

function detectV2(
  a: DraftAction,
  rels: Relation[],
  slots: CapturedSlot[],
  stepText: string,
  mode: Draft["mode"],
): { action: DraftAction; used: string[] } {
  const L = a.literal!;
  const memory: Record<string, string> = {};
  for (const c of slots) memory[c.name] = c.value;
  const note = (line: string) => ({ action: { ...a, notes: [...a.notes, line] }, used: [] });
  const phrases = rels.map((r) => `"${r.phrase}"`).join(", ");
  if (parseDisplayNumber(L, INTL)) {
    if (rels.length === 0) return { action: a, used: [] };
    if (slots.length === 0) {
      return note(
        `NL states a relation (${phrases}), but no number was typed, read or stored before ` +
          `it: kept exact`,
      );
    }
    const f = fit(L, rels, slots, memory);
    if (!f) {
      return note(
        `NL states a relation (${phrases}), but no expression of it over the numbers known ` +
          `before (${listed(slots)}) gives ${JSON.stringify(L)}: kept exact`,
      );
    }
    const r = retargetAssertion(a, { mode, equals: `{{${f.expr}}}` });
    if (!r) return note(`{{${f.expr}}} fits, but no selector independent of the value: kept exact`);
    r.notes.push(
      `${JSON.stringify(L)} → {{${f.expr}}} (NL "${f.phrase}", ${listed(slots)})`,
    );
    return { action: r, used: usedKeys(f.expr, slots) };
  }
  // a longer text: each number in it may be an expression, or a value read earlier
  const numbers = [...L.matchAll(NUMBER_IN_TEXT)];
  if (numbers.length === 0) {
    if (rels.length === 0) return { action: a, used: [] };
    return note(
      `NL states a relation (${phrases}), but ${JSON.stringify(L)} holds no number to compute: ` +
        `kept exact`,
    );
  }
  let template = "";
  let from = 0;
  const why: string[] = [];
  const used: string[] = [];
  for (const m of numbers) {
    const f = fit(m[0], rels, slots, memory);
    let expr = f?.expr;
    if (f) why.push(`${JSON.stringify(m[0])} → {{${f.expr}}} (NL "${f.phrase}")`);
    else {
      const read = slots.find((c) => c.value === m[0] && asksForValue(stepText, c.name));
      if (read) {
        expr = read.name;
        why.push(
          `${JSON.stringify(m[0])} → {{${read.name}}} (the step asks for the value ${
            namesKey(stepText, read.name) ? "it names" : "from earlier"
          })`,
        );
      }
    }
    if (expr === undefined) continue;
    template += `${L.slice(from, m.index)}{{${expr}}}`;
    from = m.index + m[0].length;
    used.push(...usedKeys(expr, slots));
  }
  if (why.length === 0) {
    if (rels.length === 0) return { action: a, used: [] };
    return note(
      `NL states a relation (${phrases}), but no number in the text is an expression of the ` +
        `numbers known before${slots.length > 0 ? ` (${listed(slots)})` : " (none)"}: kept exact`,
    );
  }
  template += L.slice(from);
  let back: string | undefined;
  try {
    back = evaluateTemplate(template, memory);
  } catch {
    back = undefined;
  }
  if (back !== L) {
    return note(`${JSON.stringify(template)} does not give ${JSON.stringify(L)} back: kept exact`);
  }
  const r = retargetAssertion(a, { mode, equals: template });
  if (!r) {
    return note(
      `${JSON.stringify(template)} fits, but no selector independent of the value: kept exact`,
    );
  }
  r.notes.push(`${JSON.stringify(L)} → ${JSON.stringify(template)}: ${why.join("; ")}`);
  return { action: r, used };
}

/** The slot names an expression reads. */
function usedKeys(expr: string, slots: CapturedSlot[]): string[] {
  const words = new Set(expr.split(/[^\w.]+/));
  return slots.filter((s) => words.has(s.name)).map((s) => s.name);
}

function detect(a: DraftAction, rels: Relation[], draft: Draft, mode: Draft["mode"]): DraftAction {
  if (a.drop || !a.src.ok || a.literal === undefined) return a;
  if (a.kind !== "assertText" && a.kind !== "assertVisible") return a;
  if (a.equals !== undefined && a.equals !== a.literal) return a;
  if (a.matches !== undefined) return a;
  const target = parseDisplayNumber(a.literal);
  if (!target) return draft.level >= 2 ? detectInText(a, rels, draft, mode) : a;
  const slots = numericSlots(a, draft);
  if (slots.length === 0) return a;
  const memory: Record<string, string> = {};
  for (const c of slots) memory[c.name] = c.value;
  for (const rel of rels) {
    for (const expr of rel.build(slots, target.value)) {
      if (evaluates(expr, memory) !== a.literal) continue;
      const r = retargetAssertion(a, { mode, equals: `{{${expr}}}` });
      if (!r) {
        return {
          ...a,
          notes: [
            ...a.notes,
            `{{${expr}}} fits, but no selector independent of the value: kept exact`,
          ],
        };
      }
      return {
        ...r,
        notes: [
          ...r.notes,
          `${JSON.stringify(a.literal)} → {{${expr}}} (NL "${rel.phrase}", ${
            slots.map((c) => `${c.name} = ${c.value}`).join(", ")
          })`,
        ],
      };
    }
  }
  return {
    ...a,
    notes: [...a.notes, `NL states a relation, but no captured value supports it: kept exact`],
  };
}

/** Numeric slots captured before the action, most recent first (latest value per name). */
function numericSlots(a: DraftAction, draft: Draft): CapturedSlot[] {
  const latest = new Map<string, CapturedSlot>();
  for (const c of [...draft.inputs, ...draft.captured].sort((x, y) => x.seq - y.seq)) {
    if (c.seq < a.src.seq) latest.set(c.name, c);
  }
  return [...latest.values()]
    .filter((c) => parseDisplayNumber(c.value) !== undefined)
    .sort((x, y) => y.seq - x.seq);
}

function evaluates(expr: string, memory: Record<string, string>): string | undefined {
  try {
    return evaluateTemplate(`{{${expr}}}`, memory);
  } catch {
    return undefined;
  }
}

/** A number inside a text, not part of a word: `$37.50` in "Checkout (2 items) $37.50". */
const NUMBER_IN_TEXT =
  /(?<![\w.,])-?[$€£¥]?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w,])|(?<![\w.,])-?[$€£¥]?\d+(?:\.\d+)?(?![\w.,]\d|\w)/g;

/**
 * v2: the number inside a longer text ("Checkout (2 items) $37.50") that the NL relation and
 * the captured values support becomes an expression inside the text
 * ("Checkout (2 items) {{fernPrice + cactusPrice}}"); the rest of the text stays as seen.
 */
function detectInText(
  a: DraftAction,
  rels: Relation[],
  draft: Draft,
  mode: Draft["mode"],
): DraftAction {
  const L = a.literal!;
  const numbers = [...L.matchAll(NUMBER_IN_TEXT)];
  const slots = numericSlots(a, draft);
  if (numbers.length === 0) return a;
  const memory: Record<string, string> = {};
  for (const c of slots) memory[c.name] = c.value;
  for (const m of numbers) {
    const target = parseDisplayNumber(m[0]);
    if (!target || slots.length === 0) continue;
    for (const rel of rels) {
      for (const expr of rel.build(slots, target.value)) {
        if (evaluates(expr, memory) !== m[0]) continue;
        const equals = `${L.slice(0, m.index)}{{${expr}}}${L.slice(m.index + m[0].length)}`;
        const r = retargetAssertion(a, { mode, equals });
        if (!r) continue;
        return {
          ...r,
          notes: [
            ...r.notes,
            `${JSON.stringify(m[0])} in ${JSON.stringify(L)} → {{${expr}}} (NL "${rel.phrase}", ${
              slots.map((c) => `${c.name} = ${c.value}`).join(", ")
            })`,
          ],
        };
      }
    }
  }
  return {
    ...a,
    notes: [
      ...a.notes,
      `NL states a relation, but no captured values support a number in the text: kept exact${
        slots.length > 0
          ? ` (captured: ${slots.map((c) => `${c.name} = ${c.value}`).join(", ")})`
          : ""
      }`,
    ],
  };
}
