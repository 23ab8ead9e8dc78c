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
