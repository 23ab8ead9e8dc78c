/**
 * Locating an action's element: the self-healing cascade of the target's selectors (waiting
 * for the page to settle before healing gives up), the coordinate fallback, the element
 * scrolled into view, and an element's text read again by the level that found it.
 *
 * @module
 */
import {
  androidCascade,
  atRegisteredPoint,
  type CascadeLevel,
  checkFingerprint,
  checkPointTarget,
  describeAction,
  describeTried,
  isPositional,
  layoutOffset,
  nameStillShown,
  nodeText,
  type PlaybackAction,
  recordedNames,
  type Resolution,
  resolveTarget,
  scalePoint,
  type SelectorMode,
  WEAK,
  webCascade,
} from "../../engine/playback/mod.ts";
import { type Bounds, center, type Point } from "../../engine/screens/mod.ts";
import type { FoundElement } from "../../drivers/mod.ts";
import { ActionFailure, type LookupState, type RunContext } from "./_context.ts";
import { fieldByLabel, recordedPoint } from "./_heal.ts";
import { intoView } from "./_element.ts";
import { MAX_POLLS, RESERVE_MS, sleep } from "./_settle.ts";

/** Actions that wait for the page up to the action timeout, as Playwright's `expect` does. */
const ASSERTS: ReadonlySet<string> = new Set(["assert_visible", "assert_text", "wait"]);
/** Actions that read their element's text: the text recorded then is no name of it now. */
const READS: ReadonlySet<string> = new Set(["read_text", "assert_text"]);

/** Runs the cascade, waiting for the page to settle before giving up on selectors. */
export async function locate(
  ctx: RunContext,
  index: number,
  action: PlaybackAction,
  state: LookupState,
): Promise<{
  point: Point;
  element?: FoundElement;
  healed: boolean;
  strategy: string;
  selector: string;
  /** The selector level that found it (none for the coordinate fallback). */
  level?: CascadeLevel;
  /** The level's position in the cascade (0: the first selector; coordinates last). */
  position: number;
}> {
  const target = action.target!;
  const mode: SelectorMode = action.selectorMode ?? ctx.plan.selectorMode ?? "adaptive";
  const levels: CascadeLevel[] = ctx.plan.platform === "web"
    ? webCascade(target, mode)
    : androidCascade(target, mode);
  const selectorLevels = levels.filter((l) => l.strategy !== "coordinates");
  // An assertion (or a wait for an element) waits for it up to the action timeout, as
  // Playwright's `expect` does; other actions up to `locateWaitMs` before healing gives up.
  // Either leaves time to report why the element was not found.
  const wanted = ASSERTS.has(action.type)
    ? action.type === "wait" && action.durationMs !== undefined
      ? action.durationMs
      : ctx.options.expectWaitMs ?? Infinity
    : ctx.options.locateWaitMs ?? 2_000;
  const deadline = performance.now() +
    Math.min(wanted, ctx.left() - Math.min(RESERVE_MS, ctx.actionMs() / 4));
  const verify = async (level: CascadeLevel, element: FoundElement): Promise<true | string> => {
    const snap = await ctx.driver.snapshot();
    if (!WEAK.has(level.strategy)) {
      // a fallback (healed, or an indexed one): the element must be of the kind the chain
      // names and must not contradict the names the step recorded
      const read = READS.has(action.type);
      const checked = checkFingerprint(snap.screen, element.bounds, target, {
        names: isPositional(level),
        read,
      });
      if (checked === true || !isPositional(level) || read) return checked;
      // A class + index whose element shows another name is taken only where the recorded
      // point lands once the layout is registered by the run's other elements (the screen
      // they are on, moved as a whole): recorded class, recorded place, same screen. A
      // value is never read that way.
      // The recorded name must be gone from the screen (renamed): one still shown elsewhere
      // names another element than this one.
      const recorded = recordedPoint(ctx, action);
      const kind = checkFingerprint(snap.screen, element.bounds, target, { read });
      if (
        kind === true && recorded && !nameStillShown(snap.screen, recordedNames(target)) &&
        atRegisteredPoint(snap.screen, element.bounds, recorded, ctx.landmarks)
      ) return true;
      return checked;
    }
    // the selector's own unique match: a read takes any element, a click one that nothing
    // recorded contradicts
    const check = checkPointTarget(snap.screen, center(element.bounds), target, {
      matched: true,
      read: READS.has(action.type) || action.type === "assert_visible",
    });
    return check.ok ? true : check.reason;
  };
  // Past strict mode the winner is checked against the chain's later identity selectors (as
  // far as needed): two that pick different elements are refused, never guessed between.
  const resolve = (levels: CascadeLevel[]) =>
    resolveTarget(ctx.driver, levels, {
      verify,
      verifyHealed: true,
      confirm: mode !== "strict",
    });
  let res: Resolution = await resolve(selectorLevels);
  for (
    let attempt = 0;
    !res.element && selectorLevels.length > 0 && attempt < MAX_POLLS;
    attempt++
  ) {
    // Selectors the device cannot read never match: nothing to wait for.
    if (res.unreadable.length === selectorLevels.length) break;
    // Still two elements once the page settled: waiting longer only delays the refusal.
    if (res.ambiguous && attempt > 0) break;
    const left = deadline - performance.now();
    if (left <= 0) break;
    if (attempt === 0) {
      await ctx.driver.waitForSettle({ quietMs: 150, timeoutMs: Math.min(left, 1_500) })
        .catch(() => {});
    } else await sleep(Math.min(100, left));
    res = await resolve(selectorLevels);
  }
  if (res.element && res.level && res.healed) {
    // The page may have rendered the element between two levels' lookups: look again
    // with the better levels before calling it healed.
    const better = selectorLevels.slice(0, selectorLevels.indexOf(res.level));
    const again = await resolve(better);
    if (again.element || again.ambiguous) {
      res = { ...again, tried: [...res.tried, ...again.tried] };
    }
  }
  if (res.ambiguous) {
    const { level, element, other, otherElement } = res.ambiguous;
    const at = (e: FoundElement) => {
      const c = center(e.bounds);
      return `(${Math.round(c.x)}, ${Math.round(c.y)})`;
    };
    throw new ActionFailure(
      "ambiguous",
      `${level.selector} and ${other.selector} match different elements (at ${at(element)} and ${
        at(otherElement)
      }); not acting on either`,
      res.tried.map((t) => ({ strategy: t.strategy, selector: t.selector, matches: t.matches })),
    );
  }
  const tried = res.tried.map((t) => ({
    strategy: t.strategy,
    selector: t.selector,
    matches: t.matches,
  }));
  if (res.element && res.level) {
    const level = res.level;
    const element = await intoView(ctx, level, res.element);
    const point = center(element.bounds);
    const recorded = recordedPoint(ctx, action);
    if (recorded && ctx.plan.platform !== "web") {
      ctx.landmarks.push({ recorded, bounds: element.bounds });
    }
    state.element = element;
    state.resolved = {
      index,
      strategy: level.strategy,
      selector: level.selector,
      healed: res.healed,
      point,
      bounds: roundBounds(element.bounds),
      tried,
    };
    return {
      point,
      element,
      healed: res.healed,
      strategy: level.strategy,
      selector: level.selector,
      level,
      position: res.position ?? 0,
    };
  }
  // A device's text field named by its label (a form of labelled fields): the one field of
  // the recorded class whose label is the recorded name, wherever the form put it.
  const labelled = ctx.plan.platform === "android" && target.name !== undefined
    ? await fieldByLabel(ctx, target, tried)
    : undefined;
  if (labelled) {
    const { element, selector } = labelled;
    const point = center(element.bounds);
    state.element = element;
    state.resolved = {
      index,
      strategy: "label",
      selector,
      healed: true,
      point,
      bounds: roundBounds(element.bounds),
      tried,
    };
    return {
      point,
      element,
      healed: true,
      strategy: "label",
      selector,
      position: selectorLevels.length,
    };
  }
  const coords = levels.find((l) => l.strategy === "coordinates");
  let offScreen: string | undefined;
  if (coords && target.point) {
    const recorded = action.viewport ?? ctx.plan.viewport;
    const point = scalePoint(
      target.point,
      recorded && { ...recorded, devicePixelRatio: ctx.plan.devicePixelRatio ?? 1 },
      ctx.viewport,
      { space: ctx.plan.coordinateSpace ?? "css" },
    );
    const { width, height } = ctx.viewport;
    if (point.x >= 0 && point.y >= 0 && point.x < width && point.y < height) {
      const snap = await ctx.driver.snapshot();
      let check = checkPointTarget(snap.screen, point, target);
      if (!check.ok) {
        // the layout moved as a whole (a banner above it): the recorded point, moved as the
        // run's other elements on this screen moved, under the same checks
        const off = layoutOffset(snap.screen, ctx.landmarks);
        if (off && (off.x !== 0 || off.y !== 0)) {
          const moved = { x: point.x + off.x, y: point.y + off.y };
          const again = checkPointTarget(snap.screen, moved, target);
          if (again.ok) {
            check = again;
            point.x = moved.x;
            point.y = moved.y;
          }
        }
      }
      tried.push({
        strategy: "coordinates",
        selector: coords.selector,
        matches: check.ok ? 1 : 0,
      });
      if (check.ok) {
        const bounds = { x: point.x - 10, y: point.y - 10, w: 20, h: 20 };
        // What the point resolved to, so reads and asserts see its text, not "".
        const element: FoundElement = {
          bounds: check.node.bounds,
          visible: true,
          enabled: check.node.enabled,
          text: nodeText(check.node),
        };
        state.element = element;
        state.resolved = {
          index,
          strategy: "coordinates",
          selector: `xy=${point.x},${point.y}`,
          healed: selectorLevels.length > 0,
          point,
          bounds,
          tried,
        };
        return {
          point,
          element,
          healed: selectorLevels.length > 0,
          strategy: "coordinates",
          selector: `xy=${point.x},${point.y}`,
          position: selectorLevels.length,
        };
      }
      throw new ActionFailure(
        "selector_not_found",
        `No selector matched exactly one visible element and the coordinate fallback refused: ${check.reason}`,
        tried,
      );
    }
    // Nothing can be tapped off the device's screen: say so instead of trying.
    offScreen =
      `the coordinate fallback (${point.x}, ${point.y}) is outside the ${width}×${height} ${
        ctx.plan.platform === "web" ? "viewport" : "screen"
      }`;
    tried.push({ strategy: "coordinates", selector: coords.selector, matches: 0 });
  }
  if (res.sawHidden) {
    throw new ActionFailure(
      "element_hidden",
      `The element exists but is hidden (${
        res.tried.filter((t) => t.hidden).map((t) => t.selector).join(", ")
      })${offScreen ? `, and ${offScreen}` : ""}`,
      tried,
    );
  }
  const summary = describeTried(res.tried);
  throw new ActionFailure(
    "selector_not_found",
    summary
      ? `No selector matched exactly one visible element (${summary})${
        offScreen ? `, and ${offScreen}` : ""
      }`
      : offScreen
      ? `Cannot ${action.type} at the recorded point: ${offScreen}`
      : `No usable selector for ${describeAction(action, ctx.plan.platform)} in ${mode} mode`,
    tried,
  );
}

function roundBounds(b: Bounds): Bounds {
  return { x: Math.round(b.x), y: Math.round(b.y), w: Math.round(b.w), h: Math.round(b.h) };
}
