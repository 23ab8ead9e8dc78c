/**
 * Assertions that poll the page until they hold or the action times out, as Playwright's
 * `expect`: an element count, an element's absence, an element's text.
 *
 * @module
 */
import {
  androidCascade,
  type CascadeLevel,
  describeAction,
  pickMatch,
  type PlaybackAction,
  type SelectorMode,
  type Target,
  WEAK,
  webCascade,
} from "../../engine/playback/mod.ts";
import type { FoundElement } from "../../drivers/mod.ts";
import { ActionFailure, errorText, type Outcome, type RunContext } from "./_context.ts";
import { MAX_POLLS, POLL_MS, RESERVE_MS, sleep } from "./_settle.ts";
import { reread } from "./_element.ts";
import { template } from "./_memory.ts";

/**
 * Waits (up to the action timeout) until one of the target's selectors matches as many
 * visible elements as the action's `count` asks (`>=` by default), as a Recorder
 * `waitForElement` with a count; fails naming what each selector matched.
 *
 * @returns the strategy of the selector that satisfied it
 */
export async function assertCount(
  ctx: RunContext,
  action: PlaybackAction,
  target: Target,
): Promise<string> {
  const want = action.count!;
  const op = action.countOperator ?? ">=";
  const mode: SelectorMode = action.selectorMode ?? ctx.plan.selectorMode ?? "adaptive";
  const levels =
    (ctx.plan.platform === "web" ? webCascade(target, mode) : androidCascade(target, mode))
      .filter((l) => l.strategy !== "coordinates");
  const holds = (n: number) => op === "==" ? n === want : op === "<=" ? n <= want : n >= want;
  const started = performance.now();
  const until = started + (ctx.options.expectWaitMs ?? Infinity);
  let counts: string[] = [];
  for (let attempt = 0; attempt < MAX_POLLS; attempt++) {
    counts = [];
    for (const level of levels) {
      let n = 0;
      for (const q of level.queries) {
        const found = await ctx.driver.find(q).catch(() => []);
        const { nth: _, ...all } = level; // every match counts, not the n-th
        n = pickMatch(all, found).visible.length;
        if (n > 0) break;
      }
      if (holds(n)) return level.strategy;
      counts.push(`${level.selector} → ${n}`);
    }
    if (ctx.left() < RESERVE_MS + POLL_MS || performance.now() + POLL_MS > until) break;
    await sleep(POLL_MS, ctx.options.signal);
  }
  throw new ActionFailure(
    "assertion_failed",
    `Expected ${op} ${want} visible element${want === 1 ? "" : "s"}, found ${
      counts.join("; ") || "no selector"
    }`,
  );
}

/**
 * An `assert_not_visible`: passes once no selector level of the target matches a visible
 * element (none at all, or only hidden ones), retried until the action times out, as
 * Playwright's toBeHidden. The levels that name the element count (a CSS path or XPath only
 * when the target has nothing else); the coordinate fallback never does.
 */
export async function assertNotVisible(ctx: RunContext, action: PlaybackAction): Promise<Outcome> {
  const target = action.target;
  if (!target) throw new ActionFailure("selector_not_found", "assert_not_visible has no target");
  const mode: SelectorMode = action.selectorMode ?? ctx.plan.selectorMode ?? "adaptive";
  const all =
    (ctx.plan.platform === "web" ? webCascade(target, mode) : androidCascade(target, mode))
      .filter((l) => l.strategy !== "coordinates");
  const strong = all.filter((l) => !WEAK.has(l.strategy));
  const levels = strong.length > 0 ? strong : all;
  if (levels.length === 0) {
    throw new ActionFailure(
      "selector_not_found",
      `No usable selector for ${describeAction(action, ctx.plan.platform)} in ${mode} mode`,
    );
  }
  const started = performance.now();
  const until = started + (ctx.options.expectWaitMs ?? Infinity);
  let seen: { level: CascadeLevel; count: number } | undefined;
  for (let attempt = 0; attempt < MAX_POLLS; attempt++) {
    seen = undefined;
    let unread = 0;
    let invalid: string | undefined;
    for (const level of levels) {
      let count = 0;
      let levelUnread = 0;
      for (const q of level.queries) {
        let found: FoundElement[];
        try {
          found = await ctx.driver.find(q);
        } catch (err) {
          levelUnread++;
          invalid ??= errorText(err);
          continue;
        }
        const m = pickMatch(level, found);
        count = level.nth !== undefined ? (m.element ? 1 : 0) : m.visible.length;
        if (count > 0) break;
      }
      if (levelUnread === level.queries.length) unread++;
      if (count > 0) {
        seen = { level, count };
        break;
      }
    }
    if (!seen && unread === levels.length) {
      // nothing could be looked up: absence proves nothing
      throw new ActionFailure(
        "selector_not_found",
        `Cannot look up ${levels[0]!.selector}: ${invalid}`,
      );
    }
    if (!seen) return { status: "ok", selectorUsed: levels[0]!.strategy };
    if (ctx.left() < RESERVE_MS + POLL_MS || performance.now() + POLL_MS > until) break;
    await sleep(POLL_MS, ctx.options.signal);
    if (ctx.options.signal?.aborted) break;
  }
  const { level, count } = seen!;
  throw new ActionFailure(
    "assertion_failed",
    `Expected ${level.selector} not to be visible; ${count} visible match${
      count === 1 ? "" : "es"
    } after ${Math.round(performance.now() - started)} ms`,
  );
}

function normalise(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}
/**
 * An `assert_text`: retried until the action times out, as Playwright's toHaveText: the
 * element's text is read again (by the level that found it) until it matches; a failure names
 * the last text seen.
 *
 * @returns the text that matched
 */
export async function assertText(
  ctx: RunContext,
  action: PlaybackAction,
  element: FoundElement | undefined,
  level: CascadeLevel | undefined,
): Promise<string> {
  let test: (text: string) => boolean;
  let expectation: string;
  if (action.expectedPattern !== undefined) {
    const re = new RegExp(`^(?:${template(ctx, action.expectedPattern)})$`);
    test = (text) => re.test(text.trim());
    expectation = `text matching /${action.expectedPattern}/`;
  } else {
    const expected = template(ctx, action.expected ?? "");
    test = (text) => normalise(text) === normalise(expected);
    expectation = `text ${JSON.stringify(expected)}`;
  }
  const started = performance.now();
  const until = started + (ctx.options.expectWaitMs ?? Infinity);
  let actual = element?.text ?? "";
  for (let attempt = 0; !test(actual) && attempt < MAX_POLLS; attempt++) {
    if (
      ctx.left() < RESERVE_MS + POLL_MS || performance.now() + POLL_MS > until || !level
    ) {
      throw new ActionFailure(
        "assertion_failed",
        `Expected ${expectation}, found ${JSON.stringify(actual)}${
          attempt > 0 ? ` (still, after ${Math.round(performance.now() - started)} ms)` : ""
        }`,
      );
    }
    await sleep(POLL_MS, ctx.options.signal);
    const again = await reread(ctx, level);
    if (again !== undefined) actual = again;
  }
  return actual;
}
