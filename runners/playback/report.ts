/**
 * The live report: every event of a playback appended to its stream (scrubbed of secrets,
 * tagged with the test boundary), screenshots stored beside them, and the report read back as
 * a projection of those events.
 *
 * @module
 */
import type { BlobRef, EventStore, NewEvent } from "../../events/mod.ts";
import {
  describeAction,
  type PlaybackAction,
  type PlaybackReport,
  projectReport,
} from "../../engine/playback/mod.ts";
import type { Bounds } from "../../engine/screens/mod.ts";
import { showOverlay } from "./overlay.ts";
import { type Completed, errorText, playbackStream, type RunContext } from "./_context.ts";
import { bounded } from "./_settle.ts";

/**
 * The report of a playback, partial while it runs.
 *
 * @param store the event store
 * @param playbackId the playback id
 * @returns the report, or undefined for an unknown id
 */
export async function readPlaybackReport(
  store: EventStore,
  playbackId: string,
): Promise<PlaybackReport | undefined> {
  return await projectReport(store.readStream(playbackStream(playbackId)));
}

/** Appends events to the playback stream, scrubbed of secrets, at the version last written. */
export async function append(
  ctx: RunContext,
  events: NewEvent[],
  expected?: "no_stream",
): Promise<void> {
  const correlationId = ctx.options.testId;
  // Scrubbed whole: a secret can reach any of their strings (a url, an error, a value read).
  const scrubbed = events.map((e) => ({ ...e, data: ctx.secrets.value(e.data) }) as NewEvent);
  const withMeta = correlationId
    ? scrubbed.map((e) => ({ ...e, meta: { ...(e.meta ?? {}), correlationId } }) as NewEvent)
    : scrubbed;
  const res = await ctx.store.append(ctx.stream, withMeta, {
    expectedVersion: expected ?? ctx.version,
  });
  ctx.version = res.streamVersion;
}

/** Records an action as not played (its events only: nothing is asked of the page). */
export async function recordSkip(
  ctx: RunContext,
  index: number,
  action: PlaybackAction,
  rest: Pick<Completed, "status" | "errorCode" | "error">,
): Promise<void> {
  const n = ctx.numbers[index];
  const completed: Completed = {
    index,
    ...(n === undefined ? { added: true } : n !== index ? { sourceIndex: n } : {}),
    action: action.type,
    description: describeAction(action, ctx.plan.platform),
    ...rest,
    durationMs: 0,
  };
  await append(ctx, [{ type: "PlaybackActionCompleted", data: completed }]);
}

/**
 * Takes, stores and (with `screenshotDir`) writes a screenshot. Never throws: a screenshot
 * that could not be taken, stored or written comes back as a `warning` saying which and why,
 * with whatever was kept (the blob when only the file failed).
 */
export async function screenshot(
  ctx: RunContext,
  index: number,
  kind: string,
  highlight: Bounds | undefined,
): Promise<{ screenshot?: BlobRef; screenshotPath?: string; warning?: string }> {
  let png: Uint8Array;
  try {
    if (highlight) await bounded(ctx, showOverlay(ctx.driver, { highlight }), "highlight");
    png = await bounded(ctx, ctx.driver.screenshot(), "take a screenshot");
    if (highlight) {
      await bounded(ctx, showOverlay(ctx.driver, { highlight: null }), "clear the highlight");
    }
  } catch (err) {
    return { warning: `screenshot not taken: ${errorText(err)}` };
  }
  let ref: BlobRef;
  try {
    ref = await ctx.store.putBlob(png, "image/png");
  } catch (err) {
    return { warning: `screenshot not stored: ${errorText(err)}` };
  }
  if (!ctx.options.screenshotDir) return { screenshot: ref };
  const dir = `${ctx.options.screenshotDir}/${ctx.id}`;
  const path = `${dir}/${kind}-${ctx.numbers[index] ?? "open"}.png`;
  try {
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeFile(path, png);
  } catch (err) {
    return {
      screenshot: ref,
      warning: `screenshot not written to ${path}: ${errorText(err)} (stored as blob ${ref.hash})`,
    };
  }
  return { screenshot: ref, screenshotPath: path };
}

/** Two diagnostics of one action as one `warning`. */
export function joinWarnings(first: string | undefined, next: string): string {
  return first ? `${first}; ${next}` : next;
}
