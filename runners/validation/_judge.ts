/**
 * Judging one iteration: every replayed action compared with the capture, then each step's
 * outcome (passed, failed, not validated and why), failing steps refined as the policy allows.
 *
 * @module
 */
import type { Trail } from "../../engine/trail/mod.ts";
import {
  compareAction,
  type ReplayedAction,
  type StepOutcome,
} from "../../engine/validation/mod.ts";
import type { LoopContext } from "./_context.ts";
import { missingSecrets, type planOrigins, usedKey } from "./_capture.ts";
import { answerError, type ReplayRun } from "./_replay.ts";
import { capturedAction, refine } from "./_refine.ts";

/** What the replay showed of one step, gathered action by action. */
interface StepEntry {
  passed: boolean;
  evidence: string[];
  failing: number[];
  /** Actions whose selector found nothing, or only after healing. */
  lookup: number[];
  elementFailure: boolean;
  missing?: string;
  /** An action the player did not play (a kind or a gesture it has no way to play). */
  unplayed?: string[];
  /** Its text is not the captured step's: a failure of its own. */
  uncompared?: boolean;
  /** An action acted on a clearly different element (role, name or text): its own. */
  otherElement?: boolean;
  /** Its actions placed and played again during the replay (refined there). */
  repaired?: boolean;
}

/**
 * Compares every action the replay played with the capture's, gathering the evidence by step.
 *
 * @returns each replayed step's entry, by step index
 */
export function compareActions(
  ctx: LoopContext,
  trail: Trail,
  run: ReplayRun,
  origins: ReturnType<typeof planOrigins>,
): Map<number, StepEntry> {
  const { replayed, repairs, unplaced } = run;
  const perStep = new Map<number, StepEntry>();
  const missing = missingSecrets(trail, ctx.options.memory);
  origins.forEach((o, i) => {
    if (!o) return;
    const r = replayed.get(i) ?? { status: "skipped" as const, error: "no result recorded" };
    const snap = run.screens.get(i);
    // A later document it led to (a link followed, a form posted) that is an error page.
    const doc = run.documents.get(i);
    const pageError = doc ? answerError(doc) : undefined;
    const replay: ReplayedAction = {
      ...r,
      ...(snap ? { screen: snap.screen } : {}),
      ...(pageError !== undefined ? { pageError } : {}),
    };
    const captured = capturedAction(ctx, trail, o.step, o.action) ??
      { kind: trail.trail[o.step]?.recording?.[o.action]?.kind ?? "unknown" };
    const entry = perStep.get(o.step) ??
      { passed: true, evidence: [], failing: [], lookup: [], elementFailure: false };
    perStep.set(o.step, entry);
    const uses = usedKey(trail.trail[o.step]?.recording?.[o.action], missing);
    if (uses !== undefined) {
      // Typed with a value the trail never stored: the replay proves nothing about the step.
      entry.missing ??= uses;
      entry.evidence.push(
        `action ${o.action + 1}: not validated: memory ${JSON.stringify(uses)} has no value ` +
          `(supply --memory ${uses}=…)`,
      );
      return;
    }
    if (r.status === "skipped" && r.errorCode === "unsupported_action_type") {
      // The player's own gap, not evidence about the app: the action is neither compared
      // nor held against the step, which stays as written (not validated).
      const kind = trail.trail[o.step]?.recording?.[o.action]?.kind ?? "action";
      const line = `action ${o.action + 1} (${kind}) was not played (${r.error ?? r.errorCode})`;
      (entry.unplayed ??= []).push(line);
      return;
    }
    const capturedStep = ctx.capture.steps.get(o.step);
    if (capturedStep !== trail.trail[o.step]?.step) {
      // Nothing to compare with: a replay that merely ran proves nothing about the step.
      entry.passed = false;
      entry.uncompared = true;
      const why = capturedStep === undefined
        ? "the capture has no step at this position"
        : `the capture's step ${o.step + 1} is ${JSON.stringify(capturedStep)}`;
      const line = `not compared with the capture: ${why}`;
      if (!entry.evidence.includes(line)) entry.evidence.push(line);
      return;
    }
    const repair = repairs.get(i);
    if (repair) {
      // Its selectors as written found nothing; the replay placed the element and played it
      // again with the new ones: that second play is what is compared below.
      entry.repaired = true;
      entry.evidence.push(
        `action ${o.action + 1} (${captured.kind}): ${repair.failure} (as written)`,
        `action ${o.action + 1}: refined from the replay's screen: ${repair.evidence.join("; ")}`,
      );
    }
    const placing = unplaced.get(i);
    if (placing) entry.evidence.push(`action ${o.action + 1}: not placed: ${placing}`);
    const verdict = compareAction(captured, replay);
    entry.passed &&= verdict.passed;
    entry.elementFailure ||= verdict.elementFailure;
    entry.otherElement ||= verdict.otherElement === true;
    for (const e of verdict.evidence) {
      entry.evidence.push(`action ${o.action + 1} (${captured.kind}): ${e}`);
    }
    // a placed action keeps what the replay placed (refining it again from the same screens
    // would only repeat that)
    if (verdict.elementFailure && !repair) entry.failing.push(o.action);
    if (
      !repair && !verdict.passed && (r.errorCode === "selector_not_found" ||
        r.healed === true || r.strategy === "coordinates")
    ) entry.lookup.push(o.action);
    if (snap) {
      const key = `${o.step}:${o.action}`;
      const list = ctx.replayScreens.get(key) ?? [];
      if (!list.includes(snap.screen)) list.push(snap.screen);
      ctx.replayScreens.set(key, list);
    }
  });
  return perStep;
}

/**
 * Each step's outcome from its entry, in trail order: a later step's failure after an earlier
 * one is not held against it; failing steps are refined when `allowRefine`.
 *
 * @returns the trail (with refined steps) and the outcomes
 */
export function stepOutcomes(
  ctx: LoopContext,
  start: Trail,
  perStep: Map<number, StepEntry>,
  allowRefine: boolean,
): { trail: Trail; outcomes: StepOutcome[] } {
  let trail = start;
  const outcomes: StepOutcome[] = [];
  // Why a later step's failure may not be its own: an earlier step failed, or was not
  // replayed at all (the agent's, or a secret with no value), so the page is not in the
  // state the capture left it in.
  let earlier: string | undefined;
  for (const [index, step] of trail.trail.entries()) {
    const entry = perStep.get(index);
    const named = `step ${index + 1} ${JSON.stringify(step.step)}`;
    if (!entry) {
      const agent = step.recordable === false || !step.recording;
      outcomes.push({
        index,
        step: step.step,
        passed: true,
        evidence: [
          agent
            ? "recordable: false: the agent handles this step, nothing to replay"
            : "empty recording: the step replays no action, nothing to compare",
        ],
        refined: false,
        // Not proven stable: the replay had nothing of it (it stays recordable: false), or
        // it has nothing to replay (it passes, proving nothing).
        ...(agent ? { notRecordable: true } : { empty: true }),
      });
      if (agent) earlier ??= `${named} was not replayed (recordable: false)`;
      continue;
    }
    if (entry.missing !== undefined) {
      outcomes.push({
        index,
        step: step.step,
        passed: true,
        evidence: entry.evidence,
        refined: false,
        missing: entry.missing,
      });
      earlier ??= `${named} was not replayed (memory ${
        JSON.stringify(entry.missing)
      } has no value)`;
      continue;
    }
    if (entry.unplayed && entry.passed) {
      // Every action it played held, but one was not played: not proven, not failed. Its
      // evidence ends with why (the report's "not validated: …").
      const why = entry.unplayed.join("; ");
      outcomes.push({
        index,
        step: step.step,
        passed: true,
        evidence: [...entry.evidence, `not validated: ${why}`],
        refined: false,
        unplayed: why,
      });
      earlier ??= `${named} was not replayed whole (${why})`;
      continue;
    }
    if (entry.unplayed) entry.evidence.push(`also not played: ${entry.unplayed.join("; ")}`);
    // Placed during the replay: refined, and the steps after it were played on the page it
    // left (when its new selectors held, they are not after a failure).
    let refined = entry.repaired === true;
    // After an earlier failure even a hidden element or a changed size is the earlier
    // step's doing (nothing signed in, nothing shown), so it is neither held against this
    // step's selectors nor refined from a screen in the wrong state. A step whose text is
    // not the captured one is its own failure, and so is one whose selector acted on a
    // clearly different element (another name or role): no earlier step makes it so.
    const after = !entry.passed && !entry.uncompared && !entry.otherElement ? earlier : undefined;
    if (!entry.passed) earlier ??= `${named} failed`;
    // A selector that found nothing (or needed healing) may be its own fault even then: it
    // is refined when a candidate holds on every run's screen (the element is there); what
    // found the element in another state is not refined from that screen.
    const refineAt = after === undefined ? entry.failing : entry.lookup;
    if (!entry.passed && allowRefine) {
      for (const action of new Set(refineAt)) {
        const next = refine(ctx, trail, index, action);
        entry.evidence.push(`action ${action + 1}: ${next.line}`);
        if (next.trail) {
          trail = next.trail;
          ctx.current = trail;
          refined = true;
        }
      }
    }
    const dependent = after !== undefined && !refined;
    if (dependent) {
      entry.evidence.push(
        `not validated: it failed only after ${after} (not held against its selectors)`,
      );
    }
    outcomes.push({
      index,
      step: step.step,
      // its selectors as written failed, whatever the placed ones did
      passed: entry.passed && !entry.repaired,
      evidence: entry.evidence,
      refined,
      ...(dependent ? { dependent } : {}),
    });
  }
  return { trail, outcomes };
}
