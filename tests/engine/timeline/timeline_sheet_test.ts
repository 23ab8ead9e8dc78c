import sharp from "sharp";
import {
  drawSheet,
  type SheetFrame,
  sheetFrames,
} from "../../../engine/timeline/timeline_sheet.ts";
import type { BlobRef, StoredEvent } from "../../../events/schemas.ts";
import { assert, assertEquals, assertRejects } from "../../_fixtures/assert.ts";

const ref = (c: string): BlobRef => ({ hash: c.repeat(64), mediaType: "image/png", size: 1 });

function event(position: number, type: string, data: unknown): StoredEvent {
  return {
    position,
    streamId: "session-s",
    streamVersion: position,
    type,
    schemaVersion: 1,
    data,
    meta: { recordedAt: "2026-01-01T00:00:00.000Z" },
  } as StoredEvent;
}

Deno.test("sheetFrames() takes each screenshot with its step and the first action taken on it", () => {
  const frames = sheetFrames([
    event(1, "ScreenCaptured", { hierarchy: ref("0"), format: "chrome" }), // no screenshot
    event(2, "StepStarted", { index: 0, text: "Add a coffee" }),
    event(3, "ScreenCaptured", {
      hierarchy: ref("1"),
      screenshot: ref("a"),
      format: "chrome",
      url: "http://127.0.0.1/cart",
      viewport: { width: 200, height: 400 },
    }),
    event(4, "ActionPerformed", {
      actionId: "t1",
      kind: "tap",
      point: { x: 100, y: 200 },
      target: { ref: "h6", name: "Add one Coffee" },
      source: "agent",
    }),
    event(5, "ActionPerformed", {
      actionId: "t2",
      kind: "keyPress",
      key: "Enter",
      source: "agent",
    }),
    event(6, "ActionCompleted", { actionId: "t2", ok: false, durationMs: 1 }), // not the first
    event(7, "ActionCompleted", { actionId: "t1", ok: true, durationMs: 3 }),
    event(8, "ScreenCaptured", { hierarchy: ref("2"), screenshot: ref("b"), format: "chrome" }),
    event(9, "ActionPerformed", {
      actionId: "t3",
      kind: "inputText",
      text: "bob",
      source: "agent",
    }),
  ]);
  assertEquals(frames, [
    {
      position: 3,
      screenshot: ref("a"),
      viewport: { width: 200, height: 400 },
      url: "http://127.0.0.1/cart",
      step: "step 1: Add a coffee",
      action: 'tap "Add one Coffee"',
      point: { x: 100, y: 200 },
      ok: true,
    },
    {
      position: 8,
      screenshot: ref("b"),
      viewport: null,
      url: null,
      step: "step 1: Add a coffee",
      action: 'inputText "bob"',
      point: null,
      ok: null,
    },
  ]);
});

Deno.test("sheetFrames() names a screen by the step its action served and drops a repeat with no action", () => {
  const frames = sheetFrames([
    event(1, "ScreenCaptured", { hierarchy: ref("1"), screenshot: ref("a"), format: "chrome" }),
    event(2, "ScreenCaptured", { hierarchy: ref("1"), screenshot: ref("a"), format: "chrome" }),
    event(3, "StepStarted", { index: 0, text: "Add a coffee" }), // blaze: `tap -o STEP` after the screen
    event(4, "ActionPerformed", { actionId: "t1", kind: "tap", source: "agent" }),
    event(5, "ActionCompleted", { actionId: "t1", ok: true, durationMs: 3 }),
    event(6, "ScreenCaptured", { hierarchy: ref("2"), screenshot: ref("b"), format: "chrome" }),
    event(7, "ScreenCaptured", { hierarchy: ref("3"), screenshot: ref("c"), format: "chrome" }),
    event(8, "StepStarted", { index: 1, text: "Check out" }),
  ]);
  assertEquals(
    frames.map((f) => [f.position, f.step, f.action]),
    [
      [2, "step 1: Add a coffee", "tap"],
      [6, "step 1: Add a coffee", null], // a different screenshot follows: kept
      [7, "step 1: Add a coffee", null],
    ],
  );
});

async function solid(width: number, height: number, rgb: [number, number, number]) {
  const [r, g, b] = rgb;
  return new Uint8Array(
    await sharp({ create: { width, height, channels: 3, background: { r, g, b } } }).png()
      .toBuffer(),
  );
}

Deno.test("drawSheet() lays tiles out in rows, rings the action point and writes the captions", async () => {
  const blobs = new Map<string, Uint8Array>([
    [ref("a").hash, await solid(400, 800, [0, 0, 255])], // device pixel ratio 2
    [ref("b").hash, await solid(400, 3000, [0, 200, 0])], // a full-page shot: cut off
    [ref("c").hash, await solid(400, 800, [128, 128, 128])],
  ]);
  const frame = (c: string, over: Partial<SheetFrame> = {}): SheetFrame => ({
    position: 1,
    screenshot: ref(c),
    viewport: { width: 200, height: 400 },
    url: null,
    step: "step 1: Add a coffee",
    action: null,
    point: null,
    ok: null,
    ...over,
  });
  const frames = [
    frame("a", { action: 'tap "Add one Coffee"', point: { x: 100, y: 200 }, ok: true }),
    frame("b"),
    frame("c", { action: "tap", point: { x: 50, y: 50 }, ok: false }),
  ];
  const { png, width, height } = await drawSheet(
    frames,
    (r) => Promise.resolve(blobs.get(r.hash)!),
    { columns: 2, tileWidth: 160 },
  );
  // 12 px gaps; tiles 160 × 320 (the tall one cut at twice its width); 54 px of caption
  assertEquals([width, height], [12 + 2 * (160 + 12), 12 + 2 * (320 + 54 + 12)]);
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  assertEquals([info.width, info.height], [width, height]);
  const px = (x: number, y: number) => {
    const o = (Math.round(y) * info.width + Math.round(x)) * info.channels;
    return [data[o]!, data[o + 1]!, data[o + 2]!];
  };
  // frame a: the tap at (100, 200) CSS px is (80, 160) on its tile; a green ring (ok) around it
  const [cx, cy] = [12 + 80, 12 + 160];
  assertEquals(px(cx, cy), [0, 0, 255]);
  const ring = px(cx + 11, cy);
  assert(ring[1]! > 120 && ring[2]! < 180 && ring[0]! < 60, `ring ${ring}`);
  // frame c failed: its ring is red-orange
  const bad = px(12 + 40 + 11, 12 + 320 + 54 + 12 + 40);
  assert(bad[0]! > 180 && bad[2]! < 80, `ring ${bad}`);
  assertEquals(px(12 + 172 + 80, 12 + 300), [0, 200, 0]); // frame b, near its cut-off bottom
  assertEquals(px(width - 20, height - 20), [244, 244, 244]); // no fourth tile
  // the caption under frame a has text in it
  let dark = 0;
  for (let y = 12 + 320; y < 12 + 320 + 54; y++) {
    for (let x = 12; x < 12 + 160; x++) if (px(x, y)[0]! < 120) dark++;
  }
  assert(dark > 50, `${dark} dark caption pixels`);
});

Deno.test("drawSheet() refuses an empty timeline", async () => {
  await assertRejects(() => drawSheet([], () => Promise.reject()), Error, "No screenshots");
});
