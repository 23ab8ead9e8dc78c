/**
 * The slots pass (slot extraction, memory reverse substitution):
 *
 * - input slots: every `inputText` literal (a run of keystrokes into one field counts as one;
 *   with no node resolved, fields are told apart by the selectors recorded with the action, so
 *   a Recorder's `#one` then `#two` are two inputs, in v1 too) becomes `{{name}}`, named from
 *   the field's id, hint or label or the NL words; its value is the initial memory's, a memory
 *   snapshot's (its guards), or the literal (also when the system prompt holds it). A repeated
 *   literal reuses its slot. A password field's value is never written: its slot has no
 *   default (`null`) unless the test author seeded it in the session's initial memory (then
 *   `config.memory` restates the author's own input).
 * - captured slots: a `readText` value gets a `storeAs` (the agent's `memory.set` name, a key
 *   of the snapshot after it, the element's id or the NL noun phrase); a later assertion of
 *   exactly that value becomes `{{name}}`.
 * - memory reverse substitution on assertion values, URLs and selected values.
 * - v2: a step with a provisioning call (`merchantFactory_loadAccount`) is `recordable: false`:
 *   The provisioning runs again on every replay with a new account, so the agent handles it.
 * - v2: an assertion text made of slot values and other text interpolates them, whole values
 *   at word boundaries only (`"Signed in as {{merchant_email}}"`, `interpolateValues`).
 * - v2: an assertion of a value read earlier is left to the generalize pass when its step asks
 *   for a format ("Verify a date is shown") and a format fits the value.
 *
 * @module
 */
import { makeNode, type UiNode } from "../screens/mod.ts";
import type { CapturedSlot, Draft, DraftAction, DraftStep, PassContext } from "./draft.ts";
import { chooseSelector, retargetAssertion } from "./modes.ts";
import { capturedSlotName, inputSlotName, uniqueName } from "../nl/mod.ts";
import {
  interpolateValues,
  isProvisioningTool,
  isRedacted,
  MIN_SUBSTITUTION_LENGTH,
  reverseSubstitute,
  type SubstitutionOptions,
} from "./substitution.ts";
import { REDACTED } from "../playback/mod.ts";
import type { Selector, SelectorMode } from "../trail/mod.ts";
import {
  asksForValue,
  statedDeltas,
  statesDoubled,
  statesHalved,
  statesRelation,
  statesTotal,
} from "../nl/mod.ts";
import { generalizedFormat, isFormatIntent } from "./generalize.ts";

const MIN_REPEAT_LENGTH = 3; // shorter repeated literals ("1", "OK") are coincidences
/** Selector properties that name an element by what it shows or says. */
const SHOWN_KEYS = ["contentDescription", "ariaLabel", "text", "name"] as const;

/**
 * The slot keys whose values a selector (or its `childOf`) shows: a property that is the value
 * (3+ characters), or holds it as {@linkcode interpolateValues} places one.
 */
function slotsHeld(
  sel: Selector,
  values: Readonly<Record<string, string>>,
  writtenBy: Record<string, string>,
): string[] {
  const keys: string[] = [];
  for (let p: Selector | undefined = sel; p !== undefined; p = p.childOf) {
    for (const prop of SHOWN_KEYS) {
      const v = p[prop];
      if (v === undefined) continue;
      for (const k in values) if (values[k] === v && v.length >= MIN_REPEAT_LENGTH) keys.push(k);
      keys.push(...interpolateValues(v, values, { writtenBy }).keys);
    }
  }
  return keys;
}

function nodeOf(a: DraftAction, ctx: PassContext, which: "node" | "fieldNode"): UiNode | undefined {
  const i = a[which];
  if (i === undefined || a.src.screen === undefined) return undefined;
  return ctx.table(a.src.screen)?.node(i);
}

/** A stand-in field for naming, from the selectors a recorder computed (no screen captured). */
function recordedField(a: DraftAction): UiNode | undefined {
  const r = a.src.data.target?.selectors;
  if (!r) return undefined;
  const css = r.css ?? r.cssPath ?? "";
  const id = r.id ?? /^#([A-Za-z][\w-]*)$/.exec(css)?.[1] ??
    /\[(?:name|id)=["']?([^"'\]]+)/.exec(css)?.[1];
  return makeNode({
    className: "field",
    ...(id ? { resourceId: id } : {}),
    ...(r.testId ? { testId: r.testId } : {}),
    ...(r.aria ?? r.ariaLabel ? { contentDescription: (r.aria ?? r.ariaLabel)! } : {}),
  });
}

/**
 * Which field an inputText typed into, to tell a run of keystrokes into one field from inputs
 * into two: the resolved node, else the focused field, else the selectors recorded with the
 * action (a recorder flow has no screen: `#one` and `#two` are two fields), else the focus.
 */
function targetKey(a: DraftAction): string {
  if (a.node !== undefined) return `n${a.node}`;
  if (a.fieldNode !== undefined) return `f${a.fieldNode}`;
  const t = a.src.data.target;
  for (const [tag, r] of [["r", t?.selectors], ["s", t?.selector]] as const) {
    if (r === undefined || Object.keys(r).length === 0) continue;
    return `${tag}${JSON.stringify(Object.entries(r).sort(([x], [y]) => x < y ? -1 : 1))}`;
  }
  return "focus";
}

/**
 * v2: an assertVisible on an element whose name shows a value the NL step is about (a total,
 * a change, a format) checks that value: assertText of the name on a selector that does not
 * use it, so a later pass can write it as an expression or a pattern. Undefined otherwise.
 */
function shownValue(
  a: DraftAction,
  ctx: PassContext,
  stepText: string,
  mode: SelectorMode,
  level: number,
): DraftAction | undefined {
  const name = a.src.data.target?.name;
  const node = nodeOf(a, ctx, "node");
  if (name === undefined || !/\d/.test(name) || node?.name !== name) return undefined;
  if (node.contentDescription !== undefined && node.contentDescription !== name) return undefined;
  // v3 reads every stated relation; v1/v2 the constant changes, doubling, halving and totals
  const relation = level >= 3
    ? statesRelation(stepText)
    : statedDeltas(stepText).length > 0 || statesDoubled(stepText) ||
      statesHalved(stepText) || statesTotal(stepText);
  if (!relation && !isFormatIntent(stepText, name, level)) return undefined;
  const r = retargetAssertion({ ...a, literal: name }, { mode, equals: name });
  if (!r) return undefined;
  r.notes.push(
    `assertVisible → assertText ${
      JSON.stringify(name)
    }: the NL step is about the value the target shows`,
  );
  return r;
}

/**
 * The slots pass.
 *
 * @param draft the draft after the modes pass
 * @param ctx screen tables
 * @returns the draft with templates, `storeAs` names and `config.memory`
 */
export function slotsPass(draft: Draft, ctx: PassContext): Draft {
  const model = draft.model;
  const memory: Record<string, string | null> = { ...draft.memory };
  const taken = new Set<string>([...Object.keys(model.initialMemory)]);
  const inputByValue = new Map<string, string>();
  const captured: CapturedSlot[] = [];
  const inputs: CapturedSlot[] = [];
  const initialWrittenBy: Record<string, string> = {};
  // v3: the length guard applies to the initial memory too (only a provisioning tool is
  // trusted at any length); a shorter value is substituted where the step names its key
  if (draft.level < 3) {
    for (const k of Object.keys(model.initialMemory)) initialWrittenBy[k] = "config";
  }
  const prompts = `${model.systemPrompt ?? ""}\n${model.prompt ?? ""}`;

  const warnings = [...draft.warnings];
  const steps: DraftStep[] = draft.steps.map((s) => ({
    ...s,
    actions: s.actions.map((a) => ({ ...a, notes: [...a.notes] })),
  }));
  for (const s of steps) {
    const mode = s.selectorMode ?? draft.mode;
    let prevInput: DraftAction | undefined;
    let runText = "";
    for (let i = 0; i < s.actions.length; i++) {
      let a = s.actions[i]!;
      if (a.drop || !a.src.ok) continue;
      if (draft.level >= 2 && a.kind === "assertVisible" && a.literal === undefined) {
        const r = shownValue(a, ctx, s.text, mode, draft.level);
        if (r) a = s.actions[i] = r;
      }
      const writtenBy = { ...initialWrittenBy, ...a.src.writtenBy };
      const snapshot = { ...model.initialMemory, ...a.src.memory };
      if (a.kind === "inputText" && a.text !== undefined) {
        if (prevInput && targetKey(prevInput) === targetKey(a)) {
          prevInput.mergedInto = a.src.seq;
          runText = a.text.startsWith(runText) ? a.text : runText + a.text;
          if (a.node === undefined && prevInput.node !== undefined) {
            a.node = prevInput.node;
            if (prevInput.candidates) a.candidates = prevInput.candidates;
            if (prevInput.selector) a.selector = prevInput.selector;
            if (prevInput.selectors) a.selectors = prevInput.selectors;
          }
        } else runText = a.text;
        prevInput = a;
        a.literal = runText;
        const next = s.actions.slice(i + 1).find((x) => !x.drop && x.src.ok);
        if (
          next?.kind === "inputText" && next.text !== undefined && targetKey(next) === targetKey(a)
        ) {
          a.notes.push(`keystrokes ${JSON.stringify(a.text)}: part of a longer input`);
          continue;
        }
        const field = nodeOf(a, ctx, "node") ?? nodeOf(a, ctx, "fieldNode") ??
          recordedField(a);
        // a recorder's `[redacted]` (a sensitive field that is no password) is a secret too
        const secret = field?.password === true || runText.includes(REDACTED);
        const name = inputSlot(a, runText, field, secret, s.text);
        a.text = `{{${name}}}`;
        if (!secret) inputs.push({ name, value: runText, seq: a.src.seq });
        continue;
      }
      prevInput = undefined;
      if (a.kind === "readText" && a.literal !== undefined) {
        const v = a.literal;
        let name = a.storeAs;
        let how = "the agent's memory.set";
        if (!name) {
          const set = s.actions.slice(i + 1).find((x) =>
            x.kind === "memorySet" && !x.drop && x.value === v && x.storeAs
          );
          if (set) {
            name = set.storeAs!;
            set.drop = `folded into the readText before it (storeAs ${name})`;
          }
        }
        if (!name) {
          const keys = Object.keys(a.src.memory).filter((k) => a.src.memory[k] === v).sort();
          if (keys[0]) {
            name = keys[0];
            how = "the memory snapshot after the read";
          }
        }
        if (!name) {
          const stepFirst = draft.level >= 3;
          name = uniqueName(
            capturedSlotName(nodeOf(a, ctx, "node"), s.text, { stepFirst, literal: v }),
            taken,
          );
          how = stepFirst ? "the NL step, else the element id" : "the element id or the NL step";
        }
        taken.add(name);
        a.storeAs = name;
        captured.push({ name, value: v, seq: a.src.seq });
        a.notes.push(`captured slot ${name} = ${JSON.stringify(v)} (named from ${how})`);
        continue;
      }
      if (a.kind === "memorySet" && isProvisioningTool(a.src.data.toolName)) {
        const tool = a.src.data.toolName!;
        const keys = Object.keys(a.src.memory).filter((k) => a.src.writtenBy[k] === tool).sort();
        for (const k of keys) {
          memory[k] = a.src.memory[k]!;
          taken.add(k);
        }
        a.drop = `provisioning call ${tool}: the keys it wrote (${
          keys.join(", ")
        }) are input slots in config.memory`;
        if (draft.level >= 2 && s.recordable !== false) {
          // the provisioning runs again on replay and loads a new account; a replay of
          // this capture's values would be the stale literal substitution removes
          s.recordable = false;
          warnings.push(
            `Step ${steps.indexOf(s) + 1} "${s.text}" is not recordable: ${tool} provisions ${
              keys.join(", ")
            } again on every run, so the agent handles the step; config.memory ` +
              `holds the values this capture loaded, used when no agent provisions`,
          );
        }
        continue;
      }
      if (a.kind === "memorySet" && a.storeAs && a.value !== undefined && isRedacted(a.value)) {
        // a value the agent marked secret was stored as [redacted]: as a password field's,
        // the run supplies it (no default), and no other literal is matched with it
        const name = a.storeAs;
        memory[name] = null;
        taken.add(name);
        a.value = `{{${name}}}`;
        a.notes.push(`secret memory ${name}: value not written (no default)`);
        continue;
      }
      if (a.kind === "memorySet" && a.storeAs && a.value !== undefined) {
        captured.push({ name: a.storeAs, value: a.value, seq: a.src.seq });
        taken.add(a.storeAs);
        continue;
      }
      if ((a.kind === "assertText" || a.kind === "assertVisible") && a.literal !== undefined) {
        const L = a.literal;
        const cap = isRedacted(L) ? undefined : [...captured].reverse().find((c) => c.value === L);
        if (
          cap && draft.level >= 2 && isFormatIntent(s.text, L, draft.level) &&
          generalizedFormat(L, draft.level) !== undefined
        ) {
          // "Verify a date is shown" after "Note the date": the NL asks for any date, and the
          // value just read (under whatever name) would make the check a tautology; the
          // generalize pass writes the format (a step asking for the value read is no format
          // intent: "the same date", "the email's date")
          a.notes.push(`not {{${cap.name}}}: the NL asks for a format, not the value read earlier`);
          slotFree(s, i, snapshot, writtenBy, mode);
          continue;
        }
        let name = cap?.name;
        let how = "a captured slot";
        if (!name && L.length >= MIN_REPEAT_LENGTH) {
          name = inputByValue.get(L);
          how = "a repeated input literal";
        }
        let rejected: string[] = [];
        if (!name) {
          const sub = reverseSubstitute(L, snapshot, { writtenBy });
          rejected = sub.rejected;
          if (sub.key) {
            name = sub.key;
            how = "memory (reverse substitution)";
            if (!(name in memory) && !captured.some((c) => c.name === name)) memory[name] = L;
          }
        }
        if (!name && draft.level >= 2) {
          const r = interpolated(a, L, snapshot, writtenBy, mode, rejected, s.text);
          if (r) {
            s.actions[i] = r;
            slotFree(s, i, snapshot, writtenBy, mode);
            continue;
          }
        }
        for (const r of rejected) a.notes.push(`not substituted: ${r}`);
        if (name) {
          const typed = how === "a repeated input literal" ? { typed: name } : {};
          const r = retargetAssertion(a, { mode, equals: `{{${name}}}`, ...typed });
          if (r) {
            r.notes.push(`expected ${JSON.stringify(L)} → {{${name}}} (${how})`);
            s.actions[i] = r;
          } else if (a.showsNoText) {
            a.notes.push(`${JSON.stringify(L)} is {{${name}}} (${how}): not compared, no text`);
          } else a.notes.push(`kept ${JSON.stringify(L)}: no selector independent of the value`);
        }
        slotFree(s, i, snapshot, writtenBy, mode);
        continue;
      }
      if (a.kind === "navigate" && a.url !== undefined) {
        a.url = substituted(a, a.url, snapshot, writtenBy);
      }
      if (a.kind === "select" && a.value !== undefined) {
        a.value = substituted(a, a.value, snapshot, writtenBy);
      }
    }
  }

  /**
   * v2: an assertion text made of slot values (and other text) → a template of them, on a
   * selector that does not use the value; undefined when no value fits or no selector does.
   */
  function interpolated(
    a: DraftAction,
    L: string,
    snapshot: Record<string, string>,
    writtenBy: Record<string, string>,
    mode: SelectorMode,
    rejected: string[],
    stepText: string,
  ): DraftAction | undefined {
    // Each key's value (a captured slot over memory over the snapshot), kept only when the text
    // holds it: interpolateValues looks at no other, and this runs for every assertion.
    const values: Record<string, string> = Object.create(null);
    const put = (k: string, v: string) => {
      if (L.includes(v)) values[k] = v;
      else if (k in values) delete values[k];
    };
    for (const k in snapshot) put(k, snapshot[k]!);
    for (const k in memory) if (memory[k] !== null) put(k, memory[k]!);
    for (const c of captured) put(c.name, c.value);
    const sub = interpolateValues(L, values, { writtenBy, ...guards(stepText) });
    for (const x of sub.rejected) {
      // v3 says every reason a value in the text was left as seen
      if (!sub.template && (draft.level >= 3 || x.includes("the step does not ask for it"))) {
        a.notes.push(`not interpolated: ${x}`);
      }
    }
    if (!sub.template) return undefined;
    const r = retargetAssertion(a, { mode, equals: sub.template });
    if (!r) {
      if (a.showsNoText) return undefined;
      a.notes.push(`kept ${JSON.stringify(L)}: no selector independent of the value`);
      return undefined;
    }
    // the exact-match rule's "only a substring" is moot for a key now interpolated
    for (const x of rejected) {
      if (!sub.keys.some((k) => x.startsWith(`${k}: only a substring`))) {
        r.notes.push(`not substituted: ${x}`);
      }
    }
    for (const x of sub.rejected) r.notes.push(`not interpolated: ${x}`);
    for (const k of sub.keys) {
      if (!(k in memory) && !captured.some((c) => c.name === k)) memory[k] = values[k]!;
    }
    r.notes.push(
      `expected ${JSON.stringify(L)} → ${JSON.stringify(sub.template)} (slot values in the text: ${
        sub.keys.join(", ")
      })`,
    );
    return r;
  }

  /**
   * v3: which values may stand inside a longer text (`SubstitutionOptions.asked`): those typed
   * or read in this run, and memory values the NL step asks for.
   */
  function guards(stepText: string): Pick<SubstitutionOptions, "asked" | "short"> {
    if (draft.level < 3) return {};
    const run = (k: string) =>
      inputs.some((c) => c.name === k) || captured.some((c) => c.name === k);
    return {
      asked: (k) => run(k) || asksForValue(stepText, k),
      short: (k) => run(k) && asksForValue(stepText, k),
    };
  }

  /** The slot values known at an action: its memory snapshot, memory, captured slots. */
  function slotValues(snapshot: Record<string, string>): Record<string, string> {
    const values: Record<string, string> = Object.create(null);
    for (const k in snapshot) values[k] = snapshot[k]!;
    for (const k in memory) if (memory[k] !== null) values[k] = memory[k]!;
    for (const c of captured) values[c.name] = c.value;
    return values;
  }

  /**
   * v2, Android: an assertion whose selector holds a slot value (Gmail's account disc, "Signed
   * in as Test QA <the email typed earlier>…") stops matching when the slot changes: it takes
   * the best unique selector without one. A value only the description carried is then checked
   * for presence (`assertVisible`): the player compares no description with a template.
   */
  function slotFree(
    s: DraftStep,
    i: number,
    snapshot: Record<string, string>,
    writtenBy: Record<string, string>,
    mode: SelectorMode,
  ): void {
    if (draft.level < 2 || model.platform !== "android") return;
    const a = s.actions[i]!;
    const sels = [...(a.selector ? [a.selector] : []), ...(a.selectors ?? [])];
    if (sels.length === 0) return;
    const values = slotValues(snapshot);
    const held = (sel: Selector) => slotsHeld(sel, values, writtenBy);
    const keys = [...new Set(sels.flatMap(held))];
    if (keys.length === 0) return;
    const what = keys.map((k) => `{{${k}}}`).join(", ");
    const pool = (a.allCandidates ?? a.candidates ?? []).filter((c) =>
      !c.rejected && held(c.selector).length === 0
    );
    const choice = chooseSelector(pool, mode, a.chain);
    const lead = choice.selector ?? choice.selectors?.[0];
    if (lead === undefined || lead.xy !== undefined) {
      a.notes.push(`kept a selector holding ${what}: no unique selector without it`);
      return;
    }
    const out: DraftAction = { ...a, notes: [...a.notes] };
    delete out.selector;
    delete out.selectors;
    if (choice.selector) out.selector = choice.selector;
    if (choice.selectors) out.selectors = choice.selectors;
    const chosen = JSON.stringify(choice.selectors ?? choice.selector);
    if (a.describedValue) {
      out.kind = "assertVisible";
      delete out.equals;
      delete out.matches;
      const desc = sels.find((x) => x.contentDescription !== undefined)?.contentDescription;
      const shown = desc === undefined
        ? what
        : JSON.stringify(interpolateValues(desc, values, { writtenBy }).template ?? desc);
      out.notes.push(
        `the content description holds ${what} (${shown}): asserted present by ${chosen}, ` +
          `a selector without the slot value (the player compares no description)`,
      );
    } else out.notes.push(`retargeted to ${chosen}: the selector held ${what}`);
    s.actions[i] = out;
  }

  function substituted(
    a: DraftAction,
    v: string,
    snapshot: Record<string, string>,
    writtenBy: Record<string, string>,
  ): string {
    const sub = reverseSubstitute(v, snapshot, { writtenBy });
    for (const r of sub.rejected) a.notes.push(`not substituted: ${r}`);
    if (!sub.key) return v;
    if (!(sub.key in memory)) memory[sub.key] = v;
    a.notes.push(`${JSON.stringify(v)} → {{${sub.key}}} (memory reverse substitution)`);
    return `{{${sub.key}}}`;
  }

  function inputSlot(
    a: DraftAction,
    literal: string,
    field: UiNode | undefined,
    secret: boolean,
    stepText: string,
  ): string {
    // a redacted literal is some secret: no stored value (itself redacted) is known to be it
    // v3: the length guard holds for the initial memory too (only a provisioning tool is
    // trusted at any length), except a password field: the author's own seed of the secret
    const init = isRedacted(literal) ? undefined : Object.keys(model.initialMemory).sort().find(
      (k) =>
        model.initialMemory[k] === literal &&
        (draft.level < 3 || secret || literal.length >= MIN_SUBSTITUTION_LENGTH),
    );
    if (init === undefined && draft.level >= 3 && !secret) {
      for (const k of Object.keys(model.initialMemory).sort()) {
        if (model.initialMemory[k] === literal) {
          a.notes.push(
            `not substituted: ${k}: value shorter than ${MIN_SUBSTITUTION_LENGTH} characters ` +
              `and not written by a provisioning tool`,
          );
        }
      }
    }
    if (init) {
      memory[init] = model.initialMemory[init]!;
      a.notes.push(
        `input slot ${init} from the initial memory${
          secret ? " (password field: the author's own seed)" : ""
        }`,
      );
      inputByValue.set(literal, init);
      return init;
    }
    const read = literal.length >= MIN_REPEAT_LENGTH && !isRedacted(literal)
      ? [...captured].reverse().find((c) => c.value === literal)
      : undefined;
    if (read) {
      a.notes.push(`typed the captured slot ${read.name} (read earlier from the screen)`);
      return read.name;
    }
    const sub = reverseSubstitute(literal, a.src.memory, { writtenBy: a.src.writtenBy });
    for (const r of sub.rejected) a.notes.push(`not substituted: ${r}`);
    if (sub.key) {
      if (!(sub.key in memory)) memory[sub.key] = secret ? null : literal;
      a.notes.push(`input slot ${sub.key} from memory (memory reverse substitution)`);
      inputByValue.set(literal, sub.key);
      return sub.key;
    }
    const repeated = literal === REDACTED ? undefined : inputByValue.get(literal); // two secrets differ
    if (repeated) {
      a.notes.push(`input slot ${repeated} (repeated literal)`);
      return repeated;
    }
    const cleanIds = draft.level >= 2 && model.platform === "android";
    const labelFirst = draft.level >= 2 && model.platform === "ios";
    const stepFirst = draft.level >= 3;
    const name = uniqueName(
      inputSlotName(field, stepText, { cleanIds, labelFirst, stepFirst, literal }),
      taken,
    );
    taken.add(name);
    memory[name] = secret ? null : literal;
    inputByValue.set(literal, name);
    const from = !prompts.includes(literal)
      ? "an inputText literal"
      : draft.level < 2 || model.systemPrompt?.includes(literal)
      ? "a value of the system prompt"
      : "a value of the prompt";
    a.notes.push(
      secret
        ? `input slot ${name} from a password field: value not written (no default)`
        : `input slot ${name} from ${from}`,
    );
    return name;
  }

  return { ...draft, steps, memory, captured, inputs, warnings };
}
