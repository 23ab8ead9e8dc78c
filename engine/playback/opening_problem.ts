/**
 * Why a web plan cannot be played as it is (`cairn replay`, HTTP `POST /v1/playbacks`): a
 * navigate to something that is not a url (Chrome DevTools Recorder flows record
 * `https://localhost:<test-port>/…`), which the browser could only fail on, or no page opened
 * at all: its first action the player runs is not a navigate, so it would run on about:blank (a
 * new browser) or on whatever page a previous playback left (a server's shared browser). A url
 * given with the plan (`--url`, body `url`) fixes both: `rebasePlan` re-points the navigates and
 * opens the page first. Checked on the final plan.
 *
 * @module
 */
import { isSupported, type PlaybackPlan } from "./actions.ts";

/** Why a plan cannot be played, without its source's name or the remedy. */
export interface OpeningProblem {
  kind: "not_a_url" | "no_page";
  /** `action 0 navigates to "https://localhost:<test-port>/x", which is not a url (…)`. */
  message: string;
}

/**
 * Finds the first reason a web plan cannot be played as it is.
 *
 * @param plan the final plan (after a url given with it re-pointed it)
 * @param options `pageOpen`: it plays in a page already open (a remote browser's, a named tab),
 *   so opening none is what is asked
 * @returns the problem, or undefined when the plan can be played
 * @example
 * ```ts
 * const plan = { source: { kind: "actions" as const }, platform: "web" as const, actions: [{ type: "click" as const, selector: "#go" }] };
 * if (openingProblem(plan)?.kind !== "no_page") throw new Error();
 * if (openingProblem(plan, { pageOpen: true }) !== undefined) throw new Error();
 * ```
 */
export function openingProblem(
  plan: PlaybackPlan,
  options: { pageOpen?: boolean } = {},
): OpeningProblem | undefined {
  if (plan.platform !== "web") return undefined;
  let n = 0;
  for (const a of plan.actions) {
    const which = a.added ? "the page opened first" : `action ${n}`;
    if (!a.added) n++;
    if (a.type !== "navigate" || !a.url || a.url.includes("{{") || URL.canParse(a.url)) continue;
    return {
      kind: "not_a_url",
      message: `${which} navigates to ${JSON.stringify(a.url)}, which is not a url ` +
        "(a placeholder host or port?)",
    };
  }
  if (options.pageOpen) return undefined;
  // a step the player skips (a Recorder flow's emulateNetworkConditions) opens nothing
  const first = plan.actions.find((a) => isSupported(a.type));
  if (first?.type === "navigate") return undefined;
  return {
    kind: "no_page",
    message: `the plan opens no page (${
      first ? `its first action is a ${first.type}, not a navigate` : "it has no action to play"
    })`,
  };
}

/**
 * The first action of a device plan that a device can never play — a `hover`, a `double_click`
 * or a click with another mouse button: a touch screen has no mouse — named by its number in the
 * source and its step: refused before anything starts (`cairn replay` exit 2, HTTP 400) rather
 * than skipped, which would let the run pass without it.
 *
 * @param plan the final plan
 * @returns the message, or undefined when every action can be played on the plan's platform
 * @example
 * ```ts
 * const plan = { source: { kind: "trail" as const }, platform: "android" as const, actions: [{ type: "hover", label: "Open the menu" }] };
 * if (platformProblem(plan) !== 'action 0 (step "Open the menu"): a hover cannot be played on android: a touch screen has no mouse') throw new Error();
 * ```
 */
export function platformProblem(plan: PlaybackPlan): string | undefined {
  if (plan.platform === "web") return undefined;
  let n = 0;
  for (const a of plan.actions) {
    const which = a.added ? "the page opened first" : `action ${n}`;
    if (!a.added) n++;
    if (a.type !== "hover" && a.type !== "double_click" && !a.button) continue;
    const what = a.button ? `${a.button} ${a.type}` : a.type;
    return `${which}${a.label ? ` (step ${JSON.stringify(a.label)})` : ""}: a ${what} cannot ` +
      `be played on ${plan.platform}: a touch screen has no mouse`;
  }
  return undefined;
}
