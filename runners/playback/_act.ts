/**
 * Acting on the driver: an action performed on the page or the element the cascade found
 * (tap, type, select, key press, swipe, read, …), then the page left to settle.
 *
 * @module
 */
import {
  LONG_PRESS_MS,
  type PlaybackAction,
  REDACTED,
  type Target,
} from "../../engine/playback/mod.ts";
import type { Point } from "../../engine/screens/mod.ts";
import type { FoundElement } from "../../drivers/mod.ts";
import { focusedNode, notEditable } from "../blaze/mod.ts";
import { describeNode } from "../blaze/mod.ts";
import {
  ActionFailure,
  errorText,
  type LookupState,
  type Outcome,
  type RunContext,
} from "./_context.ts";
import { settle, sleep } from "./_settle.ts";
import { template, templateTarget } from "./_memory.ts";
import { locate } from "./_locate.ts";
import { assertCount, assertNotVisible, assertText } from "./_asserts.ts";
import { back, navigate, reload, switchTab } from "./_navigation.ts";
import { screenshot } from "./report.ts";
import { swipe, swipeLine, visiblePart } from "./_swipe.ts";

/** Performs one action (its events are the caller's), throwing an {@linkcode ActionFailure}. */
export async function execute(
  ctx: RunContext,
  index: number,
  action: PlaybackAction,
  text: string | undefined,
  override: string | undefined,
  state: LookupState,
): Promise<Outcome> {
  const d = ctx.driver;
  switch (action.type) {
    case "navigate":
      return await navigate(ctx, action);
    case "key_press": {
      if (!action.key) throw new ActionFailure("page_error", "key_press has no key");
      if (action.target) break; // pressed into its element below
      await d.press(action.key);
      await settle(ctx);
      return { status: "ok", selectorUsed: "keyboard" };
    }
    case "scroll": {
      if (action.scrollTo) {
        await d.scrollTo(action.scrollTo);
        return { status: "ok", selectorUsed: "scroll" };
      }
      if (!action.target) {
        await d.scroll(action.direction ?? "down");
        return { status: "ok", selectorUsed: "scroll" };
      }
      break;
    }
    case "memory_set": {
      if (!action.storeAs) throw new ActionFailure("page_error", "memory_set has no storeAs");
      const value = template(ctx, action.value ?? action.text ?? "");
      ctx.memory[action.storeAs] = value;
      return { status: "ok", selectorUsed: "memory", value, storeAs: action.storeAs };
    }
    case "wait": {
      if (action.target) break; // waits for its element below
      if (action.durationMs !== undefined) {
        await sleep(action.durationMs, ctx.options.signal);
        return { status: "ok", selectorUsed: "wait" };
      }
      // `- wait` alone: until the page settles (Maestro's waitForAnimationToEnd)
      await d.waitForSettle({ quietMs: 500, timeoutMs: Math.max(0, ctx.left()) })
        .catch(() => {});
      return { status: "ok", selectorUsed: "settle" };
    }
    case "back":
      return await back(ctx);
    case "reload":
      return await reload(ctx);
    case "switch_tab":
      return await switchTab(ctx, action);
    case "swipe": {
      if (action.target) break; // swipes across its element below
      const { width, height } = ctx.viewport;
      const [from, to] = swipeLine({ x: 0, y: 0, w: width, h: height }, action.direction, 0.25);
      await swipe(ctx, from, to);
      return { status: "ok", selectorUsed: "screen" };
    }
    case "assert_not_visible":
      return await assertNotVisible(ctx, action);
    case "screenshot": {
      const shot = await screenshot(ctx, index, "checkpoint", undefined);
      // The action's whole purpose: without an image it failed; an unwritten file only warns.
      if (!shot.screenshot) {
        throw new ActionFailure("page_error", shot.warning ?? "no screenshot");
      }
      return { status: "ok", selectorUsed: "screenshot", ...shot };
    }
  }
  // Every other action acts on an element.
  if (!action.target && action.type === "type") {
    if (ctx.plan.platform === "web") await checkFocusedField(ctx);
    await d.type(template(ctx, text ?? "", override !== undefined));
    return { status: "ok", selectorUsed: "focused" };
  }
  if (!action.target) {
    throw new ActionFailure("selector_not_found", `${action.type} has no target`);
  }
  // a selector's `{{…}}` is filled from memory as a value's is (a secret then leaves the
  // stored events through the scrubber, as any value does)
  const target = templateTarget(ctx, action.target);
  if (action.count !== undefined) {
    const counted = await assertCount(ctx, action, target);
    // a count is the whole check of a wait for elements: several (or none) is no one element
    if (action.type === "assert_visible") return { status: "ok", selectorUsed: counted };
  }
  const located = await locate(
    ctx,
    index,
    target === action.target ? action : { ...action, target },
    state,
  );
  const { point, element, healed, strategy, selector, level, position } = located;
  const status = healed ? "healed" as const : "ok" as const;
  const sel = {
    selectorUsed: strategy,
    ...(healed ? { healedSelector: selector, healedLevel: position + 1 } : {}),
  };
  if (
    element && !element.enabled && action.type !== "read_text" && action.type !== "hover" &&
    action.type !== "wait" && action.type !== "swipe" && !action.type.startsWith("assert")
  ) {
    throw new ActionFailure("element_disabled", `${selector} matched a disabled element`);
  }
  switch (action.type) {
    case "click":
    case "double_click": {
      const count = action.type === "double_click" ? 2 : 1;
      if (count > 1 || action.button) {
        await d.click!(point, { ...(action.button ? { button: action.button } : {}), count });
      } else await d.tap(point);
      await settle(ctx);
      return { status, ...sel };
    }
    case "hover":
      await d.hover!(point);
      await settle(ctx);
      return { status, ...sel };
    case "long_press":
      if (!d.longPress) {
        throw new ActionFailure(
          "unsupported_action_type",
          `long_press: the ${ctx.plan.platform} driver cannot hold a press`,
        );
      }
      await d.longPress(point, action.durationMs ?? LONG_PRESS_MS);
      await settle(ctx);
      return { status, ...sel };
    case "swipe": {
      const [from, to] = swipeLine(
        visiblePart(element?.bounds ?? { x: point.x, y: point.y, w: 1, h: 1 }, ctx.viewport),
        action.direction,
        0.2,
      );
      await swipe(ctx, from, to);
      return { status, ...sel };
    }
    case "wait":
      return { status, ...sel };
    case "type": {
      const value = template(ctx, text ?? "", override !== undefined);
      if (value.includes(REDACTED)) {
        throw new ActionFailure("redacted_value", "Refusing to type a redacted placeholder");
      }
      if (tagOf(element) === "select") {
        // A Recorder `change` on a <select> (or any typing into one) picks the option.
        await d.select(point, value);
      } else await d.type(value, { point, clear: true });
      // a device's driver taps the field first to give it the focus: the player's own tap
      const focusTap = ctx.plan.platform !== "web" && d.focus === undefined
        ? [`tapped the field at (${Math.round(point.x)}, ${Math.round(point.y)}) to focus it`]
        : undefined;
      return { status, ...sel, ...(focusTap ? { playerActions: focusTap } : {}) };
    }
    case "select": {
      const value = template(ctx, action.value ?? text ?? "");
      await d.select(point, value);
      return { status, ...sel };
    }
    case "check":
      await d.check(point, action.checked ?? true);
      return { status, ...sel };
    case "key_press": {
      // into the element that had the focus when it was recorded, found (healed) as any
      const tapped = await focus(ctx, point, target);
      await d.press(action.key!);
      await settle(ctx);
      return {
        status,
        ...sel,
        ...(tapped
          ? {
            playerActions: [
              `tapped the field at (${Math.round(point.x)}, ${Math.round(point.y)}) to focus it`,
            ],
          }
          : {}),
      };
    }
    case "scroll":
      await d.scroll(action.direction ?? "down", { point });
      return { status, ...sel };
    case "read_text": {
      const value = element?.text ?? "";
      if (action.storeAs) ctx.memory[action.storeAs] = value;
      return { status, ...sel, value, ...(action.storeAs ? { storeAs: action.storeAs } : {}) };
    }
    case "assert_visible":
      return { status, ...sel };
    case "assert_text":
      return { status, ...sel, value: await assertText(ctx, action, element, level) };
  }
  throw new ActionFailure("unsupported_action_type", `Cairn does not play ${action.type}`);
}

/**
 * A type without a target goes to the focused element, which must take text (blaze's
 * `notEditable` rule): typing into an error page's body types nothing and is no success.
 * Web only: Chrome's tree says exactly what has the focus, while a device's driver finds its
 * focused field itself (and types through the keyboard when it finds none).
 */
export async function checkFocusedField(ctx: RunContext): Promise<void> {
  const { root } = (await ctx.driver.snapshot()).screen;
  const field = focusedNode(root);
  if (!field || field === root || field.className === "RootWebArea") { // the page itself
    throw new ActionFailure(
      "selector_not_found",
      "No text field has the focus: a type without a selector types into the focused element",
    );
  }
  const refused = notEditable(field, `the focused ${describeNode(field)}`);
  if (refused) {
    const locked = !field.enabled || field.attrs?.readonly === "true";
    throw new ActionFailure(locked ? "element_disabled" : "selector_not_found", refused);
  }
}

/**
 * Gives the element at `point` the focus: the driver's own focus, else (a device) a tap when
 * the target is a text field, the element a key goes to; anything else is pressed as it is.
 * Returns whether it tapped (the player's own action, which the report lists).
 */
export async function focus(ctx: RunContext, point: Point, target: Target): Promise<boolean> {
  if (ctx.driver.focus) {
    try {
      await ctx.driver.focus(point);
    } catch (err) {
      throw new ActionFailure("element_disabled", errorText(err));
    }
    return false;
  }
  const field = [target, ...(target.alternatives ?? [])].some((t) =>
    /EditText|TextField|textbox|searchbox|combobox/i.test(`${t.className ?? ""} ${t.role ?? ""}`)
  );
  if (field) await ctx.driver.tap(point);
  return field;
}

/** The tag name of a found element, from the CSS path the Chrome driver gives as its handle. */
function tagOf(element: FoundElement | undefined): string | undefined {
  const last = element?.handle?.split(/\s*>+\s*/).at(-1);
  return last?.match(/^[a-z][a-z0-9-]*/)?.[0];
}
