/**
 * Set-of-mark screenshots: the screenshot with the box and ref label of every on-screen element
 * the text snapshot shows — the same refs, from the same walk (`snapshotTree`). An SVG overlay
 * is built here and composited with sharp; the screen's coordinates are scaled to the image
 * (device pixels on Android, points × scale on iOS, CSS pixels × device pixel ratio on the web).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import sharp from "sharp";
import { snapshotTree } from "./snapshot_tree.ts";
import type { Screen } from "./ui_node.ts";

/** Options of {@linkcode drawMarks} and {@linkcode marksSvg}. */
export interface MarksOptions {
  /** Also mark off-screen and hidden elements (default: only those on screen). */
  offscreen?: boolean;
  /** Only mark elements a user acts on (tap, type, toggle, scroll). Default: every shown element. */
  interactiveOnly?: boolean;
}

/** Colour-blind-friendly palette (Okabe–Ito), picked per ref so a ref keeps its colour. */
const PALETTE = ["#E69F00", "#56B4E9", "#009E73", "#D55E00", "#0072B2", "#CC79A7", "#F0E442"];

/**
 * Text made safe inside SVG/XML: `< > & " '` as character references.
 *
 * @param s the text
 * @returns the escaped text
 */
export function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function colourOf(ref: string): string {
  let h = 0;
  for (let i = 0; i < ref.length; i++) h = (h * 31 + ref.charCodeAt(i)) >>> 0;
  return PALETTE[h % PALETTE.length]!;
}

/**
 * Where a label goes: above the box's top-left corner, else inside it, else below it, else at its
 * top-right — the first spot that overlaps no label placed before (else the first spot).
 */
function placeLabel(
  placed: readonly [number, number, number, number][],
  x: number,
  y: number,
  w: number,
  h: number,
  tw: number,
  th: number,
  width: number,
  height: number,
): [number, number] {
  const clamp = (px: number, py: number): [number, number] => [
    Math.min(Math.max(0, px), Math.max(0, width - tw)),
    Math.min(Math.max(0, py), Math.max(0, height - th)),
  ];
  const spots = [
    clamp(x, y - th),
    clamp(x, y),
    clamp(x, y + h),
    clamp(x + w - tw, y - th),
    clamp(x + w - tw, y),
  ];
  const free = spots.find(([sx, sy]) =>
    !placed.some(([px, py, pw, ph]) => sx < px + pw && px < sx + tw && sy < py + ph && py < sy + th)
  );
  return free ?? spots[0]!;
}

/**
 * The SVG overlay of marks for an image of the given size.
 *
 * @param screen the parsed screen (its width and height give the scale)
 * @param image the image size in pixels
 * @param options which elements to mark
 * @returns the SVG text and the refs marked, in document order
 * @example
 * ```ts
 * import { makeNode } from "./ui_node.ts";
 * const screen = { platform: "android" as const, format: "uiautomator2" as const, width: 100, height: 100,
 *   root: makeNode({ className: "android.widget.Button", text: "OK", bounds: { x: 10, y: 10, w: 40, h: 20 } }) };
 * const { svg, refs } = marksSvg(screen, { width: 200, height: 200 });
 * if (refs.length !== 1 || !svg.includes('x="20"')) throw new Error(svg);
 * ```
 */
export function marksSvg(
  screen: Screen,
  image: { width: number; height: number },
  options: MarksOptions = {},
): { svg: string; refs: string[] } {
  const { width, height } = image;
  const sx = screen.width > 0 ? width / screen.width : 1;
  const sy = screen.height > 0 ? height / screen.height : 1;
  const font = Math.max(11, Math.round(Math.min(width, height) / 45));
  const stroke = Math.max(2, Math.round(font / 6));
  const boxes: string[] = [];
  const labels: string[] = [];
  const refs: string[] = [];
  const placed: [number, number, number, number][] = [];
  for (const e of snapshotTree(screen).entries) {
    if (e.offscreen && !options.offscreen) continue;
    const n = e.node;
    if (
      options.interactiveOnly &&
      !(n.clickable || n.checkable || n.scrollable || n.focused || n.className.endsWith("EditText"))
    ) continue;
    const b = n.bounds;
    const x = Math.round(b.x * sx), y = Math.round(b.y * sy);
    const w = Math.max(1, Math.round(b.w * sx)), h = Math.max(1, Math.round(b.h * sy));
    const colour = colourOf(e.ref);
    refs.push(e.ref);
    boxes.push(
      `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="none" stroke="${colour}" stroke-width="${stroke}"/>`,
    );
    const tw = Math.round(font * 0.62 * e.ref.length + font * 0.5);
    const th = Math.round(font * 1.25);
    const [lx, ly] = placeLabel(placed, x, y, w, h, tw, th, width, height);
    placed.push([lx, ly, tw, th]);
    labels.push(
      `<rect x="${lx}" y="${ly}" width="${tw}" height="${th}" fill="${colour}" rx="${
        Math.round(font / 5)
      }"/>` +
        `<text x="${lx + Math.round(font * 0.25)}" y="${
          ly + Math.round(font * 0.98)
        }" font-family="DejaVu Sans Mono, monospace" font-size="${font}" font-weight="bold" fill="#000">${
          escapeXml(e.ref)
        }</text>`,
    );
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    boxes.join("") + labels.join("") + "</svg>";
  return { svg, refs };
}

/**
 * Draws the set-of-mark overlay on a screenshot.
 *
 * @param screenshot the screenshot (PNG, JPEG or WebP bytes)
 * @param screen the screen the screenshot shows
 * @param options which elements to mark
 * @returns the marked image as PNG bytes and the refs drawn
 * @throws {Error} when the image cannot be decoded (sharp's message)
 */
export async function drawMarks(
  screenshot: Uint8Array,
  screen: Screen,
  options: MarksOptions = {},
): Promise<{ png: Uint8Array; refs: string[] }> {
  const image = sharp(screenshot);
  const meta = await image.metadata();
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  if (width <= 0 || height <= 0) throw new Error("Cannot draw marks: the screenshot has no size");
  const { svg, refs } = marksSvg(screen, { width, height }, options);
  const png = await image
    .composite([{ input: Buffer.from(svg), top: 0, left: 0 }])
    .png()
    .toBuffer();
  return { png: new Uint8Array(png.buffer, png.byteOffset, png.byteLength), refs };
}
