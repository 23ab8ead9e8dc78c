/**
 * Settling and deadlines: the DOM-quiet wait after an action, page calls bounded in time (a hung
 * page fails the action instead of hanging the run), and the polling limits of retried waits.
 *
 * @module
 */
import { LONG_PRESS_MS, type PlaybackAction } from "../../engine/playback/mod.ts";
import { withDeadline } from "../../drivers/mod.ts";
import { type RunContext, TimeoutFailure } from "./_context.ts";
import { MAX_ACTION_TIMEOUT_MS } from "./options.ts";

/**
 * Longest wait for DOM quiet after a click or key press: a page that never stops mutating
 * (an animation, a ticking clock) costs at most this; lookups still wait for their element.
 */
const SETTLE_CAP_MS = 1_500;
/**
 * Longest wait for a page call around an action (subtitle, screenshot, url): a hung page costs
 * at most this per call.
 */
const PAGE_CALL_CAP_MS = 2_000;
/**
 * What an action's own waits (a lookup, an assertion's retries) leave of its timeout, at most:
 * they give up in time to report why (`selector_not_found`, `assertion_failed`) instead of
 * being cut off as a `timeout`.
 */
export const RESERVE_MS = 500;
/** Between two reads of a retried assertion (Playwright's `expect` polls about as often). */
export const POLL_MS = 100;
/** Bounds every retry loop: the longest action timeout, polled at {@linkcode POLL_MS}. */
export const MAX_POLLS = Math.ceil(MAX_ACTION_TIMEOUT_MS / POLL_MS);

/** Waits (at most {@linkcode SETTLE_CAP_MS}) for the DOM to go quiet after an action. */
export async function settle(ctx: RunContext): Promise<void> {
  const quiet = ctx.options.settleAfterMs ?? 50;
  if (quiet > 0) {
    await ctx.driver.waitForSettle({ quietMs: quiet, timeoutMs: SETTLE_CAP_MS }).catch(() => {});
  }
}

/**
 * Waits for a page call at most `ms` (default 2 s); one that
 * does not answer marks the page unresponsive and fails with a {@linkcode TimeoutFailure}.
 */
export async function bounded<T>(
  ctx: RunContext,
  work: Promise<T>,
  what: string,
  ms = PAGE_CALL_CAP_MS,
): Promise<T> {
  const value = await withDeadline(work, ms, () => {
    const message = `The page did not answer within ${ms} ms (${what}): it may be hung`;
    ctx.unresponsive = message;
    return new TimeoutFailure(message);
  });
  return value;
}

/** How long an action pauses or holds by design: a `wait`'s duration, a long press's hold. */
export function holdMs(action: PlaybackAction): number {
  if (action.type === "long_press") return action.durationMs ?? LONG_PRESS_MS;
  return action.type === "wait" ? action.durationMs ?? 0 : 0;
}

/** Resolves after `ms`, or as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done);
  });
}
