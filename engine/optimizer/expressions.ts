/**
 * The expressions pass (000 "Expression detection"): an asserted number that relates to
 * numbers captured earlier, in the way the NL step says, becomes an expression:
 * "increased by 2" with 5 read and 7 asserted → `{{inventoryCount + 2}}`; "total" with a
 * price and a quantity → `{{price * quantity}}`. Nothing is invented: a relation needs both
 * an NL phrase and exact arithmetic support, and the expression must evaluate (with Cairn's
 * evaluator, formats kept) to exactly the text asserted. Under heuristics v2 the number may be
 * inside a longer text ("Checkout (2 items) $37.50" → "Checkout (2 items) {{fern + cactus}}").
 *
 * @module
 */
import { evaluateTemplate, parseDisplayNumber } from "../template.ts";
import type { CapturedSlot, Draft, DraftAction } from "./draft.ts";
import { retargetAssertion } from "./modes.ts";
import { statedDeltas, statesDoubled, statesHalved, statesTotal } from "../nl_relations.ts";

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

/**
 * The expressions pass.
 *
 * @param draft the draft after generalization
 * @returns the draft with computed assertions written as expressions
 */
export function expressionsPass(draft: Draft): Draft {
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
