/**
 * A synthetic flow (see docs/replay.md): an action array an LLM or a script writes directly,
 * `{action: "click", selector: "[data-testid=login]"}`. Parsed at the edge: a bad field fails
 * with its path (`actions.2.url: …`). The same engine plays it — no separate code path.
 *
 * @module
 */
import { z } from "zod";
import type { PlaybackAction, PlaybackPlan, Target } from "./actions.ts";
import { targetFromSelectors } from "./target_from_selectors.ts";
import { Coordinate, ScreenPoint } from "../formats/mod.ts";

/** One synthetic action (field names as documented; `type` is accepted for `action`). */
export const SyntheticAction = z.object({
  action: z.string().min(1),
  selector: z.string().min(1).optional(),
  /** Every selector a recorder knows (`testId`, `ariaLabel`, `role`, `name`, `id`, `text`, `cssPath`). */
  selectors: z.record(z.string(), z.string()).optional(),
  text: z.string().optional(),
  value: z.string().optional(),
  url: z.string().optional(),
  key: z.string().optional(),
  checked: z.boolean().optional(),
  x: Coordinate.optional(),
  y: Coordinate.optional(),
  scroll_to: ScreenPoint.optional(),
  expected: z.string().optional(),
  store_as: z.string().optional(),
  timestamp_ms: z.number().optional(),
  viewport_width: z.number().positive().optional(),
  viewport_height: z.number().positive().optional(),
}).strict();
export type SyntheticAction = z.infer<typeof SyntheticAction>;

/** A synthetic action array. */
export const SyntheticActions = z.array(
  z.preprocess((v) => {
    if (v && typeof v === "object" && "type" in v && !("action" in v)) {
      const { type, ...rest } = v as Record<string, unknown>;
      return { action: type, ...rest };
    }
    return v;
  }, SyntheticAction),
);

function convert(a: SyntheticAction): PlaybackAction {
  const target: Target = a.selectors ? targetFromSelectors(a.selectors) : {};
  if (a.selector) target.css = a.selector;
  if (a.x !== undefined && a.y !== undefined) target.point = { x: a.x, y: a.y };
  const out: PlaybackAction = { type: a.action === "key" ? "key_press" : a.action };
  if (Object.keys(target).length > 0) out.target = target;
  if (a.text !== undefined) out.text = a.text;
  if (a.value !== undefined) out.value = a.value;
  if (a.url !== undefined) out.url = a.url;
  if (a.key !== undefined) out.key = a.key;
  if (a.checked !== undefined) out.checked = a.checked;
  if (a.scroll_to) out.scrollTo = a.scroll_to;
  if (a.action === "scroll" && !a.scroll_to && !a.selector && a.x !== undefined) {
    out.scrollTo = { x: a.x, y: a.y ?? 0 };
    delete out.target;
  }
  if (a.expected !== undefined) out.expected = a.expected;
  if (a.store_as !== undefined) out.storeAs = a.store_as;
  if (a.timestamp_ms !== undefined) out.timestampMs = a.timestamp_ms;
  if (a.viewport_width && a.viewport_height) {
    out.viewport = { width: a.viewport_width, height: a.viewport_height };
  }
  return out;
}

/**
 * Parses and converts a synthetic action array.
 *
 * @param value the `actions` array as received
 * @returns the plan
 * @throws {z.ZodError} naming the bad field
 * @example
 * ```ts
 * const plan = syntheticToPlan([{ action: "click", selector: "[data-testid=login]" }]);
 * if (plan.actions[0]!.target!.css !== "[data-testid=login]") throw new Error();
 * ```
 */
export function syntheticToPlan(value: unknown): PlaybackPlan {
  const actions = SyntheticActions.parse(value);
  return { source: { kind: "actions" }, platform: "web", actions: actions.map(convert) };
}
