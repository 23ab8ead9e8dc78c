/**
 * Set-of-mark screenshots drawn with sharp: the same refs as the text snapshot, boxes where the
 * elements are (scaled from screen coordinates to image pixels).
 */
import sharp from "sharp";
import { parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { drawMarks } from "../../../engine/screens/marks.ts";
import { renderSnapshot } from "../../../engine/screens/snapshot.ts";
import { snapshotTree } from "../../../engine/screens/snapshot_tree.ts";
import { assert, assertEquals } from "../../_fixtures/assert.ts";

const DATA = new URL("../../testdata/snapshots/", import.meta.url);
const CORPUS = new URL("../../../../shared/corpus/", import.meta.url);

async function pixels(png: Uint8Array) {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    at: (x: number, y: number) => {
      const i = (y * info.width + x) * 3;
      return [data[i]!, data[i + 1]!, data[i + 2]!];
    },
  };
}

Deno.test("drawMarks() marks a real Chromium screenshot with the refs of the text snapshot", async () => {
  const screen = parseHierarchy(Deno.readTextFileSync(new URL("web_form.chrome.json", DATA)));
  const shot = Deno.readFileSync(new URL("web_form.png", DATA));
  const { png, refs } = await drawMarks(shot, screen);
  const text = renderSnapshot(screen);
  const shown = [...text.matchAll(/\[ref=([a-z0-9]+)\]/g)].map((m) => m[1]);
  assertEquals(refs, shown); // every on-screen ref of the text, in the same order
  const before = await pixels(shot);
  const after = await pixels(png);
  assertEquals([after.width, after.height], [before.width, before.height]);
  const button = snapshotTree(screen).entries.find((e) =>
    e.node.name === "Sign in" && e.node.className === "button"
  )!;
  const b = button.node.bounds;
  const x = Math.round(b.x + b.w / 2), y = Math.round(b.y + b.h); // bottom edge of its box
  assert(after.at(x, y).join() !== before.at(x, y).join(), `box drawn at ${x},${y}`);
  assertEquals(after.at(790, 590), before.at(790, 590)); // blank corner untouched
});

Deno.test("drawMarks() scales iOS points to a 3x screenshot", async () => {
  const screen = parseHierarchy(
    Deno.readTextFileSync(
      new URL("ios/trailblaze-waypoint_contacts_ios_lists.example.json", CORPUS),
    ),
  );
  const blank = await sharp({
    create: { width: 1206, height: 2622, channels: 3, background: "#ffffff" },
  }).png().toBuffer();
  const { png, refs } = await drawMarks(new Uint8Array(blank), screen);
  assert(refs.length > 5);
  const img = await pixels(png);
  const cancel = snapshotTree(screen).entries.find((e) => e.node.contentDescription === "Cancel")!;
  const b = cancel.node.bounds; // 20,82 36x36 pt
  const x = Math.round((b.x + b.w / 2) * 3), y = Math.round((b.y + b.h) * 3);
  assert(img.at(x, y).join() !== "255,255,255", `stroke at ${x},${y}`);
  assert(img.at(x, Math.round((b.y + b.h / 2) * 3)).join() === "255,255,255", "inside stays clear");
});
