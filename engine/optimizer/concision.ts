/**
 * The concision pass: keystrokes into one field merged into one `inputText` (the slots pass
 * marked the run), failed and retried calls dropped, no-op focus taps before typing dropped
 * (their selector moves to the `inputText`), repeated scrolls collapsed into one with
 * `repeat`. A step with no successful action (every call failed, or none was captured) has
 * nothing to replay: it is marked `recordable: false`, with a warning naming the failed calls.
 * Under heuristics v2 a step with no captured action at all (a step started, a snapshot taken,
 * nothing done) needs no agent either: it keeps an empty recording, with a warning.
 *
 * @module
 */
import type { UiNode } from "../ui_node.ts";
import type { Draft, DraftAction, PassContext } from "./draft.ts";

/** The modes pass's account of a selector choice (chosen, passed over, rejected, retargeted). */
const SELECTOR_NOTE = /^(chose|passed over|rejected|retargeted to) |^assertVisible → assertText/;
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
  return {
    ...draft,
    warnings,
    steps: draft.steps.map((s, si) => {
      const actions = s.actions.map((a) => ({ ...a, notes: [...a.notes] }));
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

/** Why a step with no successful action has nothing to replay. */
function nothingToReplay(actions: readonly DraftAction[]): string {
  if (actions.length === 0) return "no action was captured";
  const failed = actions.map((a) => `${a.src.data.kind}${a.src.error ? ` (${a.src.error})` : ""}`);
  return `no action succeeded, nothing to replay (failed: ${failed.join("; ")})`;
}
