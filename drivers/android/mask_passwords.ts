/**
 * Password fields painted over in an Android screenshot. Android draws a password as one dot a
 * character and, by default, shows the character just typed for a moment: a screenshot taken
 * right after typing would keep part of a secret, and always its length. Every password field
 * of the page source taken with the screenshot (`password="true"`) is covered with a flat grey
 * rectangle over its whole bounds, so a stored screenshot shows where the field is and nothing
 * of what is in it (as a web screenshot shows an empty field: `maskSecretFieldsInPage`).
 *
 * @module
 */
import sharp, { type OverlayOptions } from "sharp";
import { parseHierarchy } from "../../engine/screens/mod.ts";
import { type Bounds, walk } from "../../engine/screens/mod.ts";

/** The grey a password field is painted with. */
const MASK = { r: 128, g: 128, b: 128, alpha: 1 };

/**
 * The bounds of every password field in a page source, in its device pixels.
 *
 * @param xml an Android page source (UiAutomator2 or uiautomator dump)
 * @returns the fields' bounds and the screen size the source gives (0 when it gives none)
 */
export function passwordFields(xml: string): { fields: Bounds[]; width: number; height: number } {
  const screen = parseHierarchy(xml);
  const fields: Bounds[] = [];
  for (const [node] of walk(screen.root)) {
    if (node.password && node.bounds.w > 0 && node.bounds.h > 0) fields.push(node.bounds);
  }
  return { fields, width: screen.width, height: screen.height };
}

/**
 * Paints over the password fields of `xml` in `png`.
 *
 * @param png the screenshot
 * @param xml the page source taken with it
 * @returns the screenshot itself when the source has no password field, else a new PNG with each
 *   field's bounds (scaled when the screenshot is not at the source's size) painted grey
 * @throws {Error} when the source has a password field and the screenshot cannot be decoded:
 *   the caller keeps no screenshot rather than one that may show a secret
 */
export async function maskPasswordFields(png: Uint8Array, xml: string): Promise<Uint8Array> {
  const { fields, width, height } = passwordFields(xml);
  if (fields.length === 0) return png;
  const image = sharp(png);
  const meta = await image.metadata();
  const w = meta.width;
  const h = meta.height;
  if (!w || !h) throw new Error("the screenshot is not an image");
  const sx = width > 0 ? w / width : 1;
  const sy = height > 0 ? h / height : 1;
  const covers: OverlayOptions[] = [];
  for (const b of fields) {
    // whole pixels that cover the field, clipped to the image
    const left = Math.max(0, Math.floor(b.x * sx));
    const top = Math.max(0, Math.floor(b.y * sy));
    const right = Math.min(w, Math.ceil((b.x + b.w) * sx));
    const bottom = Math.min(h, Math.ceil((b.y + b.h) * sy));
    if (right <= left || bottom <= top) continue;
    covers.push({
      input: {
        create: { width: right - left, height: bottom - top, channels: 4, background: MASK },
      },
      left,
      top,
    });
  }
  if (covers.length === 0) return png;
  return new Uint8Array(await image.composite(covers).png().toBuffer());
}
