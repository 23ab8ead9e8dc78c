/**
 * One replay of a validation iteration: the trail played through the playback runner with its
 * screens recorded, an action whose selectors find nothing placed on the page and played on from
 * with its new selectors; and the replay's results read back from its playback streams.
 *
 * @module
 */
import { STATUS_CODES } from "node:http";
import type { EventStore } from "../../events/mod.ts";
import { NotFoundError } from "../../events/mod.ts";
import type { EventData } from "../../events/mod.ts";
import { rebasePlan, trailToPlan } from "../../engine/playback/mod.ts";
import type { Trail } from "../../engine/trail/mod.ts";
import type { ReplayedAction } from "../../engine/validation/mod.ts";
import type { DocumentAnswer, Snapshot } from "../../drivers/mod.ts";
import { playbackStream, runPlayback } from "../playback/mod.ts";
import { recordScreens } from "./_screens.ts";
import type { LoopContext } from "./_context.ts";
import { planOrigins } from "./_capture.ts";
import { place } from "./_refine.ts";

/**
 * Lookup failures a validation places the element for during the replay: the selectors found
 * nothing, only a hidden element (markup left behind, a layout for another width), or elements
 * of the chain that disagree (the player's `ambiguous`): the element may still be on the page.
 */
const PLACEABLE: ReadonlySet<string> = new Set([
  "selector_not_found",
  "element_hidden",
  "ambiguous",
]);

/** What one replay gave, by plan position. */
export interface ReplayRun {
  trail: Trail;
  openingError?: string;
  replayed: Map<number, ReplayedAction>;
  screens: Map<number, Snapshot>;
  documents: Map<number, DocumentAnswer>;
  repairs: Map<number, { failure: string; evidence: string[] }>;
  unplaced: Map<number, string>;
}

/**
 * Replays the trail once (one iteration). When refining is allowed, an action whose selectors
 * find nothing is placed on the page as it is then ({@linkcode placeSelectors}): the replay
 * stops there and goes on from that action with its new selectors, on the same page, so every
 * later step is played in the state the capture had (not skipped as after a failure) and each
 * failing step that can be placed is refined in this one iteration. At most one placement per
 * action; every continuation is a playback of its own (`<id>.2`, `<id>.3`, …), their results
 * merged by plan position.
 */
export async function replay(
  ctx: LoopContext,
  start: Trail,
  playbackId: string,
  refine: boolean,
): Promise<ReplayRun> {
  const planOf = (t: Trail) =>
    ctx.options.url ? rebasePlan(trailToPlan(t), ctx.options.url) : trailToPlan(t);
  const origins = planOrigins(start);
  const replayed = new Map<number, ReplayedAction>();
  const screens = new Map<number, Snapshot>();
  const documents = new Map<number, DocumentAnswer>();
  const repairs = new Map<number, { failure: string; evidence: string[] }>();
  const unplaced = new Map<number, string>();
  /** Values read into memory so far (a continuation starts with them). */
  const read: Record<string, string> = {};
  let trail = start;
  let from = 0;
  for (let segment = 1; segment <= origins.length + 1; segment++) {
    const plan = planOf(trail);
    const id = segment === 1 ? playbackId : `${playbackId}.${segment}`;
    const rec = recordScreens(ctx.driver, ctx.store, ctx.secrets);
    // The page could not be opened: the run proves nothing about any step, so it stops there
    // (no later lookup is recorded against its selectors) and the validation fails.
    const stop = new AbortController();
    let openingError: string | undefined;
    let placed: { index: number; trail: Trail } | undefined;
    const memory = { ...(ctx.options.memory ?? {}), ...read };
    await runPlayback(rec.driver, rec.store, { ...plan, actions: plan.actions.slice(from) }, {
      playbackId: id,
      overlay: false,
      onError: "continue",
      locateWaitMs: ctx.options.locateWaitMs ?? 1_000,
      // an assertion fails as fast as a lookup does: each iteration replays the whole trail
      expectWaitMs: ctx.options.locateWaitMs ?? 1_000,
      ...(Object.keys(memory).length > 0 ? { memory } : {}),
      ...(ctx.options.actionTimeoutMs ? { actionTimeoutMs: ctx.options.actionTimeoutMs } : {}),
      signal: ctx.options.signal ? AbortSignal.any([ctx.options.signal, stop.signal]) : stop.signal,
      afterAction: async (local, action, result) => {
        const index = local + from;
        if (
          result.storeAs && result.value !== undefined &&
          (result.status === "ok" || result.status === "healed")
        ) read[result.storeAs] = result.value;
        if (index === 0 && action.type === "navigate") {
          if (result.status === "failed") {
            openingError = result.error ?? `${action.url}: ${result.errorCode ?? "failed"}`;
          } else {
            // An error page loads (as Playwright's goto, replay only warns), but a trail
            // replayed on it proves nothing about the recorded page.
            const nav = rec.navigations.get(local);
            if (nav?.status === undefined || nav.status < 400) return;
            openingError = answerError({ ...nav, url: nav.finalUrl });
            if (openingError === undefined) return;
          }
          stop.abort();
          return;
        }
        if (!refine || result.status !== "failed" || !PLACEABLE.has(result.errorCode ?? "")) {
          return;
        }
        const o = origins[index];
        if (!o || repairs.has(index) || unplaced.has(index)) return;
        const next = await place(ctx, trail, o.step, o.action);
        if (!next.trail) {
          unplaced.set(index, next.line);
          return;
        }
        repairs.set(index, {
          failure: `${result.errorCode}: ${result.error ?? ""}`.trim(),
          evidence: next.evidence,
        });
        placed = { index, trail: next.trail };
        stop.abort();
      },
    });
    ctx.options.signal?.throwIfAborted();
    const results = await readReplay(ctx.store, id);
    for (const [local, r] of results) {
      const index = local + from;
      // the action placed is played again by the next segment: its failure is not its result
      if (placed?.index === index) continue;
      // a segment stopped for a placement records nothing after it
      if (placed && index > placed.index) continue;
      replayed.set(index, r);
    }
    for (const [local, snap] of rec.screens) {
      if (placed && local + from > placed.index) continue;
      screens.set(local + from, snap);
    }
    for (const [local, doc] of rec.documents) {
      if (placed && local + from > placed.index) continue;
      documents.set(local + from, doc);
    }
    if (openingError !== undefined) {
      return { trail, openingError, replayed, screens, documents, repairs, unplaced };
    }
    if (!placed) break;
    const p: { index: number; trail: Trail } = placed;
    trail = p.trail;
    from = p.index;
    ctx.say(
      `  step ${origins[p.index]!.step + 1}: its element was placed on the page; ` +
        `replaying on from it with the new selectors (playback ${playbackId}.${segment + 1})`,
    );
  }
  return { trail, replayed, screens, documents, repairs, unplaced };
}

/**
 * What is wrong with a document's answer, when it is an error page: an HTTP error status
 * (`http://…/shop answered HTTP 404 Not Found`) or a load that failed and left the browser's own
 * error page (`http://…/next could not be loaded (net::ERR_CONNECTION_REFUSED)`).
 */
export function answerError(
  doc: { url: string; status?: number; statusText?: string; error?: string },
): string | undefined {
  if (doc.error !== undefined) return `${doc.url} could not be loaded (${doc.error})`;
  if (doc.status === undefined || doc.status < 400) return undefined;
  const reason = doc.statusText || STATUS_CODES[doc.status] || "";
  return `${doc.url} answered HTTP ${doc.status}${reason ? ` ${reason}` : ""}`;
}

async function readReplay(
  store: EventStore,
  playbackId: string,
): Promise<Map<number, ReplayedAction>> {
  const out = new Map<number, ReplayedAction>();
  const resolved = new Map<number, EventData<"PlaybackActionResolved">>();
  let any = false;
  for await (const e of store.readStream(playbackStream(playbackId))) {
    any = true;
    if (e.type === "PlaybackActionResolved") resolved.set(e.data.index, e.data);
    if (e.type !== "PlaybackActionCompleted") continue;
    const d = e.data;
    const r = resolved.get(d.index);
    out.set(d.index, {
      status: d.status,
      ...(d.errorCode ? { errorCode: d.errorCode } : {}),
      ...(d.error ? { error: d.error } : {}),
      ...(d.value !== undefined ? { value: d.value } : {}),
      ...(r && r.strategy !== "none"
        ? { strategy: r.strategy, selector: r.selector, healed: r.healed }
        : {}),
      ...(r?.bounds ? { bounds: r.bounds } : {}),
    });
  }
  if (!any) throw new NotFoundError(`Playback ${playbackId} recorded nothing`);
  return out;
}
