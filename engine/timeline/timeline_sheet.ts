/**
 * A session's timeline as one picture: a contact sheet of its screenshots in order, each tile
 * captioned with its position, the step it belongs to and the action taken on that screen (its
 * point marked with a ring, green when the action succeeded, red when it failed), so a run can be
 * looked over at a glance (`cairn history SESSION --sheet timeline.png`).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import sharp, { type OverlayOptions } from "sharp";
import type { BlobRef, StoredEvent } from "../../events/mod.ts";
import { type EventStore, InvalidStreamError, NotFoundError } from "../../events/mod.ts";
import { escapeXml } from "../screens/mod.ts";
import { clip } from "./time_travel.ts";

/** One screen of the sheet: a screenshot and what happened on it. */
export interface SheetFrame {
  /** Position of its `ScreenCaptured`. */
  position: number;
  screenshot: BlobRef;
  /** The screen's size in the units of action points (CSS pixels on the web), when captured. */
  viewport: { width: number; height: number } | null;
  /** The page's url (web), or null. */
  url: string | null;
  /** `step 2: Enter the email`, or null before the first step. */
  step: string | null;
  /** The first action taken on this screen (`tap "Sign in"`), or null. */
  action: string | null;
  point: { x: number; y: number } | null;
  /** The action's result: null while none came (or no action). */
  ok: boolean | null;
  /** Why the action failed, when it did. */
  error?: string;
}

/**
 * The frames of a session's events: one for each `ScreenCaptured` with a screenshot, with the
 * first action performed before the next screen and the step that action served (the step in
 * progress at the screen when no action was taken on it). A screen with no action on it whose
 * screenshot is the next screen's too (a blaze `snapshot` before a `tap`, each capturing the same
 * page) is left out: the next frame shows it.
 *
 * @param events the session's events in order
 * @returns the frames in order
 * @example
 * ```ts
 * const shot = { hash: "a".repeat(64), mediaType: "image/png", size: 9 };
 * const e = (type: string, data: unknown, position: number) =>
 *   ({ type, data, position, streamId: "s", streamVersion: position, schemaVersion: 1, meta: { recordedAt: "" } }) as never;
 * const frames = sheetFrames([
 *   e("StepStarted", { index: 0, text: "Sign in" }, 1),
 *   e("ScreenCaptured", { hierarchy: shot, screenshot: shot, format: "chrome" }, 2),
 *   e("ActionPerformed", { actionId: "a", kind: "tap", point: { x: 5, y: 6 }, source: "agent" }, 3),
 * ]);
 * if (frames[0]?.action !== "tap" || frames[0]?.step !== "step 1: Sign in") throw new Error();
 * ```
 */
export function sheetFrames(events: Iterable<StoredEvent>): SheetFrame[] {
  const frames: SheetFrame[] = [];
  let step: string | null = null;
  let last: SheetFrame | undefined;
  let actionId: string | undefined;
  let point: { index: number; point: { x: number; y: number } | null } | undefined;
  let viewport: { width: number; height: number } | null = null;
  for (const e of events) {
    switch (e.type) {
      case "StepStarted":
        step = `step ${e.data.index + 1}: ${e.data.text}`; // numbered from 1, as summarizeEvent()
        break;
      case "ScreenCaptured": {
        const d = e.data;
        if (!d.screenshot) break;
        last = {
          position: e.position,
          screenshot: d.screenshot,
          viewport: d.viewport ?? null,
          url: d.url ?? null,
          step,
          action: null,
          point: null,
          ok: null,
        };
        actionId = undefined;
        const before = frames.at(-1);
        if (before?.action === null && before.screenshot.hash === d.screenshot.hash) frames.pop();
        frames.push(last);
        break;
      }
      case "ActionPerformed": {
        if (last === undefined || last.action !== null) break;
        const d = e.data;
        const target = d.target?.name ?? d.target?.ref;
        const what = d.text ?? d.value ?? d.url ?? d.key ?? d.expected;
        last.action = `${d.kind}${target ? ` "${target}"` : ""}${
          what !== undefined ? ` ${JSON.stringify(what)}` : ""
        }`;
        last.point = d.point ?? null;
        last.step = step;
        actionId = d.actionId;
        break;
      }
      case "ActionCompleted":
        if (last !== undefined && e.data.actionId === actionId) {
          last.ok = e.data.ok;
          if (!e.data.ok && e.data.error) last.error = e.data.error;
        }
        break;
      case "PlaybackActionResolved":
        point = { index: e.data.index, point: e.data.point ?? null };
        break;
      case "PlaybackActionCompleted": {
        // a playback's screen is the screenshot taken after each action
        const d = e.data;
        if (!d.screenshot) break;
        const frame: SheetFrame = {
          position: e.position,
          screenshot: d.screenshot,
          viewport: viewport,
          url: d.pageUrl ?? null,
          step: `action ${d.sourceIndex ?? d.index}${d.status === "ok" ? "" : ` (${d.status})`}`,
          action: d.description ?? d.action,
          point: point?.index === d.index ? point.point : null,
          ok: d.status === "skipped" ? null : d.status !== "failed",
        };
        if (d.status === "failed") frame.error = d.error ?? d.errorCode ?? "failed";
        frames.push(frame);
        last = undefined;
        break;
      }
      case "PlaybackStarted":
        viewport = e.data.viewport ?? null;
        break;
    }
  }
  return frames;
}

/** Options of {@linkcode drawSheet}. */
export interface SheetOptions {
  /** Tiles a row (default 4). */
  columns?: number;
  /** A tile's width in pixels (default 480); a tall screenshot is cut off at twice that. */
  tileWidth?: number;
}

/** Most tiles a row a caller may ask for (`--columns`, `columns=`). */
export const MAX_SHEET_COLUMNS = 12;

const GAP = 12;
const FONT = 12;
const LINE = 16;
const CAPTION = 3 * LINE + 6;
const BACKGROUND = { r: 244, g: 244, b: 244 };

/**
 * Draws frames as a contact sheet.
 *
 * @param frames the frames, in order
 * @param screenshot the bytes of a frame's screenshot blob
 * @param options columns and tile width
 * @returns the sheet as PNG bytes, and its size
 * @throws {InvalidStreamError} when a screenshot cannot be decoded (sharp's message)
 */
export async function drawSheet(
  frames: readonly SheetFrame[],
  screenshot: (ref: BlobRef) => Promise<Uint8Array>,
  options: SheetOptions = {},
): Promise<{ png: Uint8Array<ArrayBuffer>; width: number; height: number }> {
  if (frames.length === 0) throw new Error("No screenshots to draw");
  const columns = Math.max(1, Math.min(options.columns ?? 4, frames.length));
  const tileWidth = options.tileWidth ?? 480;
  const chars = Math.floor(tileWidth / (FONT * 0.6));
  const tiles = await Promise.all(frames.map(async (f) => {
    const bytes = await screenshot(f.screenshot);
    const meta = await sharp(bytes).metadata().catch((err: Error) => {
      throw new InvalidStreamError(`Screenshot ${f.screenshot.hash}: ${err.message}`);
    });
    if (!meta.width || !meta.height) {
      throw new InvalidStreamError(`Screenshot ${f.screenshot.hash} has no size`);
    }
    // the screenshot at tileWidth wide, cut off below twice that (a full-page capture)
    const height = Math.min(Math.round((meta.height * tileWidth) / meta.width), tileWidth * 2);
    const image = await sharp(bytes)
      .resize({ width: tileWidth })
      .extract({ left: 0, top: 0, width: tileWidth, height })
      .png()
      .toBuffer();
    // action points are in viewport units (CSS pixels), the screenshot in device pixels
    const unit = tileWidth / (f.viewport?.width ?? meta.width);
    return { frame: f, image, width: tileWidth, height, unit };
  }));
  const rows: (typeof tiles)[] = [];
  for (let i = 0; i < tiles.length; i += columns) rows.push(tiles.slice(i, i + columns));
  const width = GAP + columns * (tileWidth + GAP);
  const rowHeights = rows.map((r) => Math.max(...r.map((t) => t.height)) + CAPTION);
  const height = GAP + rowHeights.reduce((a, h) => a + h + GAP, 0);
  const layers: OverlayOptions[] = [];
  const text: string[] = [];
  let top = GAP;
  rows.forEach((row, r) => {
    row.forEach((t, c) => {
      const left = GAP + c * (tileWidth + GAP);
      layers.push({ input: t.image, top, left });
      const f = t.frame;
      const colour = f.ok === false ? "#D55E00" : f.ok === true ? "#009E73" : "#0072B2";
      if (f.point) {
        const x = left + f.point.x * t.unit, y = top + f.point.y * t.unit;
        if (x >= left && x <= left + t.width && y >= top && y <= top + t.height) {
          text.push(
            `<circle cx="${x}" cy="${y}" r="11" fill="none" stroke="${colour}" stroke-width="4"/>`,
          );
        }
      }
      const lines = [
        `@${f.position}  ${f.step ?? ""}`,
        f.action ? `${f.ok === false ? "✗" : f.ok === true ? "✓" : "·"} ${f.action}` : "",
        f.error ? `✗ ${f.error}` : f.url ?? "", // a failed tile says why instead of where
      ];
      lines.forEach((l, i) => {
        if (!l) return;
        const fill = i === 1 || (i === 2 && f.error) ? colour : i === 2 ? "#666" : "#222";
        text.push(
          `<text x="${left}" y="${
            top + t.height + (i + 1) * LINE
          }" font-family="DejaVu Sans, sans-serif" font-size="${FONT}" fill="${fill}">${
            escapeXml(clip(l, chars))
          }</text>`,
        );
      });
    });
    top += rowHeights[r]! + GAP;
  });
  layers.push({
    input: Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${
        text.join("")
      }</svg>`,
    ),
    top: 0,
    left: 0,
  });
  const png = await sharp({ create: { width, height, channels: 3, background: BACKGROUND } })
    .composite(layers)
    .png()
    .toBuffer();
  // sharp's Buffer is never over shared memory
  const bytes = new Uint8Array(png.buffer as ArrayBuffer, png.byteOffset, png.byteLength);
  return { png: bytes, width, height };
}

/** The most tiles a session's sheet draws: the last ones up to `at`. */
export const SHEET_MAX = 60;

/** A session's sheet and what it shows. */
export interface SessionSheet {
  png: Uint8Array<ArrayBuffer>;
  width: number;
  height: number;
  /** The frames drawn (the last {@linkcode SHEET_MAX} up to `at`). */
  frames: SheetFrame[];
  /** How many screenshots the session has up to `at`. */
  total: number;
}

/**
 * Draws a stored session's timeline up to a position (`cairn history --sheet`, and
 * `GET /v1/sessions/:id/sheet.png`).
 *
 * @param store the event store
 * @param streamId the session's stream
 * @param options `at`: the last position drawn (default: the end); columns and tile width
 * @returns the sheet
 * @throws {NotFoundError} when the stream has no events, or no screenshots up to `at`
 */
export async function sessionSheet(
  store: EventStore,
  streamId: string,
  options: SheetOptions & { at?: number } = {},
): Promise<SessionSheet> {
  const events: StoredEvent[] = [];
  let exists = false; // an event after `at` proves the session exists too
  for await (const e of store.readStream(streamId)) {
    exists = true;
    if (options.at !== undefined && e.position > options.at) break;
    events.push(e);
  }
  if (!exists) throw new NotFoundError(`No session ${streamId}`);
  const all = sheetFrames(events);
  if (all.length === 0) {
    const upTo = options.at === undefined ? "" : ` up to position ${options.at}`;
    throw new NotFoundError(`${streamId} has no screenshots${upTo}`);
  }
  const frames = all.slice(-SHEET_MAX);
  const drawn = await drawSheet(
    frames,
    async (ref) => (await store.getBlob(ref.hash)).bytes,
    options,
  );
  return { ...drawn, frames, total: all.length };
}
