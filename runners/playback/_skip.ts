/**
 * Actions skipped before anything is asked of the page (unsupported, dependent on a failure,
 * reading memory never produced, a redacted value), under the run's `onError` mode.
 *
 * @module
 */
import {
  DEPENDENT_TYPES,
  isSupported,
  type PlaybackAction,
  REDACTED,
} from "../../engine/playback/mod.ts";
import type { Outcome, RunContext } from "./_context.ts";
import { readsUnproduced } from "./_memory.ts";

/** Clicks: a failed one blocks the actions that depend on it. */
export const CLICKS: ReadonlySet<string> = new Set(["click", "double_click"]);

/**
 * Why an action is skipped without asking anything of the page: a type Cairn does not play or
 * the driver cannot, a memory key never produced, a failed action before a key press in its
 * step, an earlier failed click or navigate (`skip_dependent`), a redacted value without an
 * override. Undefined when it is to be played.
 */
export function whyNotPlayed(
  ctx: RunContext,
  index: number,
  action: PlaybackAction,
): Pick<Outcome, "status" | "errorCode" | "error"> | undefined {
  if (!isSupported(action.type)) {
    return {
      status: "skipped",
      errorCode: "unsupported_action_type",
      error: action.type === "agent_step"
        ? `a step left to an agent (recordable: false)${
          action.label ? `: ${JSON.stringify(action.label)}` : ""
        }`
        : `Cairn does not play ${action.type}`,
    };
  }
  if (action.type === "hover" && !ctx.driver.hover) {
    return {
      status: "skipped",
      errorCode: "unsupported_action_type",
      error: `hover: the ${ctx.plan.platform} driver has no mouse`,
    };
  }
  if ((action.type === "double_click" || action.button) && !ctx.driver.click) {
    // a plain tap would not be what was recorded
    const what = action.button ? `${action.button} ${action.type}` : action.type;
    return {
      status: "skipped",
      errorCode: "unsupported_action_type",
      error: `${what}: the ${ctx.plan.platform} driver has no mouse`,
    };
  }
  const unproduced = readsUnproduced(ctx, index, action);
  if (unproduced) {
    // Acting on it would use a value the run never produced (or a stale default).
    if (CLICKS.has(action.type) || action.type === "navigate") ctx.blocked = true;
    return {
      status: "skipped",
      errorCode: "skipped_dependency",
      error: `Skipped: it reads {{${unproduced.key}}}, which ${
        ctx.name(unproduced.by)
      } did not produce (on_error: skip_dependent)`,
    };
  }
  const failedBefore = action.type === "key_press" ? failedInStep(ctx, index, action) : undefined;
  if (failedBefore !== undefined) {
    // the key would go wherever the failed action left the focus (another form's Enter)
    return {
      status: "skipped",
      errorCode: "skipped_dependency",
      error: `Skipped: ${ctx.name(failedBefore)} of the same step did not run`,
    };
  }
  if (ctx.blocked && DEPENDENT_TYPES.has(action.type)) {
    return {
      status: "skipped",
      errorCode: "skipped_dependency",
      error: "Skipped: an earlier click or navigate failed (on_error: skip_dependent)",
    };
  }
  if (action.type === "type" && ctx.override(index) === undefined) {
    const text = action.text;
    if (text !== undefined && text.includes(REDACTED)) {
      return {
        status: "skipped",
        errorCode: "redacted_value",
        error:
          "Action requires redacted credential. Provide value_overrides or re-record with sensitive_data_enabled.",
      };
    }
  }
  return undefined;
}

/**
 * The index of the action just before this one in its step when it failed or was not played
 * (a skipped dependency, a redacted value): it left the focus where the key would go, or did
 * not fill what the key submits. Undefined when it ran, or when the action opens its step. An
 * action without a step (a recording's) takes the action just before it.
 */
export function failedInStep(
  ctx: RunContext,
  index: number,
  action: PlaybackAction,
): number | undefined {
  const i = index - 1;
  const before = ctx.plan.actions[i];
  if (!before || before.stepIndex !== action.stepIndex) return undefined;
  const r = ctx.results[i];
  const failed = r !== undefined && (r.status === "failed" ||
    r.status === "skipped" &&
      (r.errorCode === "skipped_dependency" || r.errorCode === "redacted_value"));
  return failed ? i : undefined;
}
