/**
 * The concision pass: keystrokes into one field merged into one `inputText` (the slots pass
 * marked the run), failed and retried calls dropped, no-op focus taps before typing dropped
 * (their selector moves to the `inputText`), repeated scrolls collapsed into one with
 * `repeat`. A step with no successful action (every call failed, or none was captured) has
 * nothing to replay: it is marked `recordable: false`, with a warning naming the failed calls.
 * Under heuristics v2 a step with no captured action at all (a step started, a snapshot taken,
 * nothing done) needs no agent either: it keeps an empty recording, with a warning; an action
 * the player cannot do as recorded (a Recorder right click, a click in a frame) becomes a step
 * of its own for the agent (`recordable: false`, with a warning), the rest stays recorded.
 *
 * @module
 */
import type { UiNode } from "../screens/mod.ts";
import type { Draft, DraftAction, DraftStep, PassContext } from "./draft.ts";

/** The modes pass's account of a selector choice (chosen, passed over, rejected, retargeted). */
const SELECTOR_NOTE =
  /^(chose|passed over|rejected|retargeted to|fallback|left out) |^assertVisible → assertText/;
const EDITABLE = /EditText|TextField|textbox|searchbox|combobox|SecureTextField|TextArea/i;

function nodeOf(a: DraftAction, ctx: PassContext, which: "node" | "fieldNode"): UiNode | undefined {
  const i = a[which];
  return i === undefined || a.src.screen === undefined
    ? undefined
    : ctx.table(a.src.screen)?.node(i);
}

function sameNode(a: UiNode, b: UiNode): boolean {
  return a.className === b.className && a.resourceId === b.resourceId &&
    a.bounds.x === b.bounds.x && a.bounds.y === b.bounds.y && a.bounds.w === b.bounds.w &&
    a.bounds.h === b.bounds.h;
}

function sameTarget(a: DraftAction, b: DraftAction): boolean {
  return JSON.stringify(a.selector ?? a.selectors ?? null) ===
    JSON.stringify(b.selector ?? b.selectors ?? null);
}

/**
 * The concision pass.
 *
 * @param draft the draft after the expressions pass
 * @param ctx screen tables
 * @returns the draft with dropped actions marked (`drop`) and merged ones folded
 */
export function concisionPass(draft: Draft, ctx: PassContext): Draft {
  const warnings = [...draft.warnings];
  const steps = draft.level >= 2 ? draft.steps.flatMap(splitAtUnplayable) : draft.steps;
  return {
    ...draft,
    warnings,
    steps: steps.map((s, si) => {
      const actions = s.actions.map((a) => ({ ...a, notes: [...a.notes] }));
      const unplayable = s.recordable === false ? actions.find(isUnplayable) : undefined;
      if (unplayable) {
        // no selector is replayed for it, so none is explained as chosen
        unplayable.notes = unplayable.notes.filter((n) => !SELECTOR_NOTE.test(n));
        unplayable.notes.push(
          `not replayable as recorded: ${unplayable.unplayable}; a step of its own, for the agent`,
        );
        warnings.push(`Step ${si + 1} "${s.text}" is not recordable: ${unplayable.unplayable}`);
        return { ...s, actions };
      }
      for (const a of actions) {
        if (a.drop) continue;
        if (!a.src.ok) {
          a.drop = `failed call dropped${a.src.error ? ` (${a.src.error})` : ""}`;
          // v2: no selector is written for it, so none is explained as chosen
          if (draft.level >= 2) a.notes = a.notes.filter((n) => !SELECTOR_NOTE.test(n));
        } else if (a.mergedInto !== undefined) {
          a.drop = `keystrokes merged into the inputText of action ${a.mergedInto + 1}`;
        }
      }
      const kept = actions.filter((a) => !a.drop);
      for (let i = 0; i + 1 < kept.length; i++) {
        const tap = kept[i]!;
        const next = kept[i + 1]!;
        if (tap.kind !== "tap" || next.kind !== "inputText") continue;
        const tapped = nodeOf(tap, ctx, "node");
        const field = nodeOf(next, ctx, "node") ?? nodeOf(next, ctx, "fieldNode");
        const focusTap = tapped !== undefined
          ? (field ? sameNode(tapped, field) : EDITABLE.test(tapped.className) && !next.point)
          : tap.src.screen === undefined && (tap.selector ?? tap.selectors) !== undefined &&
            sameTarget(tap, next);
        if (!focusTap) continue;
        tap.drop = "no-op focus tap before typing (its selector moves to the inputText)";
        if (!next.selector && !next.selectors) {
          if (tap.selector) next.selector = tap.selector;
          if (tap.selectors) next.selectors = tap.selectors;
        }
      }
      if (draft.level >= 3) foldSelects(kept.filter((a) => !a.drop), ctx);
      let prev: DraftAction | undefined;
      for (const a of actions) {
        if (a.drop) continue;
        if (
          prev && (a.kind === "scroll" || a.kind === "swipe") && prev.kind === a.kind &&
          prev.direction === a.direction && sameTarget(prev, a)
        ) {
          prev.repeat = (prev.repeat ?? 1) + 1;
          a.drop = `repeated ${a.kind} collapsed into repeat: ${prev.repeat}`;
          continue;
        }
        prev = a;
      }
      if (draft.level >= 2 && s.recordable !== false && actions.length === 0) {
        // nothing was done, so nothing needs doing: replay and validation pass an empty recording
        warnings.push(
          `Step ${si + 1} "${s.text}" has no captured action: written with an empty recording ` +
            `(nothing to replay)`,
        );
        return { ...s, actions };
      }
      if (s.recordable !== false && !actions.some((a) => a.src.ok)) {
        warnings.push(`Step ${si + 1} "${s.text}" is not recordable: ${nothingToReplay(actions)}`);
        return { ...s, actions, recordable: false };
      }
      return { ...s, actions };
    }),
  };
}

/** Is the node a native `<select>` (the web player's `select` sets its option)? */
function isSelect(n: UiNode | undefined): boolean {
  return n?.attrs?.tag === "select";
}

/**
 * v3: typing into a `<select>` and pressing Enter (into it, or on the page) chose an option: one
 * `select` of it, on the typed field's selectors. Its value is the option the screen before the
 * key press shows chosen (typing "Exp" picks "Express"), else the text typed.
 */
function foldSelects(kept: DraftAction[], ctx: PassContext): void {
  for (let i = 0; i + 1 < kept.length; i++) {
    const typed = kept[i]!;
    const key = kept[i + 1]!;
    if (typed.kind !== "inputText" || key.kind !== "keyPress" || key.key !== "Enter") continue;
    if (!typed.selector && !typed.selectors) continue;
    const field = nodeOf(typed, ctx, "node") ?? nodeOf(typed, ctx, "fieldNode");
    if (!isSelect(field)) continue;
    const pressed = nodeOf(key, ctx, "node");
    if (pressed !== undefined && !isSelect(pressed)) continue;
    const literal = typed.src.data.text;
    const shown = pressed?.value ?? pressed?.text;
    const value = shown === undefined || shown.trim() === (literal ?? "").trim()
      ? typed.text ?? literal
      : shown;
    if (value === undefined) continue;
    typed.kind = "select";
    typed.value = value;
    delete typed.text;
    typed.notes.push(
      `typed into a <select> and pressed Enter (action ${key.src.seq + 1}): select ${
        JSON.stringify(value)
      }`,
    );
    key.drop = `folded into the select of action ${typed.src.seq + 1}`;
    i++;
  }
}

function isUnplayable(a: DraftAction): boolean {
  return a.unplayable !== undefined && a.drop === undefined && a.src.ok;
}

/**
 * v2: a step holding actions the player cannot do as recorded (a right click, a click in a
 * frame), split so each of them is a step of its own for the agent (`recordable: false`, its
 * `agentStep` as the NL) and the actions around it stay recorded: the part before keeps the
 * step's text, a part after it is the step "(continued)". A dropped action goes with the next
 * action (the last part when none follows), so no part holds only dropped actions.
 */
function splitAtUnplayable(step: DraftStep): DraftStep[] {
  if (step.recordable === false || !step.actions.some(isUnplayable)) return [step];
  const parts: { agent: boolean; actions: DraftAction[] }[] = [];
  let pending: DraftAction[] = [];
  for (const a of step.actions) {
    if (a.drop !== undefined || !a.src.ok) {
      pending.push(a);
      continue;
    }
    const agent = isUnplayable(a);
    const last = parts.at(-1);
    if (!agent && last && !last.agent) last.actions.push(...pending, a);
    else parts.push({ agent, actions: [...pending, a] });
    pending = [];
  }
  if (pending.length > 0) parts.at(-1)!.actions.push(...pending);
  let named = false;
  return parts.map((p): DraftStep => {
    const mode = step.selectorMode !== undefined ? { selectorMode: step.selectorMode } : {};
    if (p.agent) {
      const a = p.actions.find(isUnplayable)!;
      return { text: a.agentStep ?? step.text, ...mode, recordable: false, actions: p.actions };
    }
    const text = named ? `${step.text} (continued)` : step.text;
    named = true;
    return { text, ...mode, actions: p.actions };
  });
}

/** Why a step with no successful action has nothing to replay. */
function nothingToReplay(actions: readonly DraftAction[]): string {
  if (actions.length === 0) return "no action was captured";
  const failed = actions.map((a) => `${a.src.data.kind}${a.src.error ? ` (${a.src.error})` : ""}`);
  return `no action succeeded, nothing to replay (failed: ${failed.join("; ")})`;
}
