/**
 * The contents checks of an imported screen, before anything is stored: the hierarchy parses
 * with the parser that later reads it (`parseHierarchy`, as `cairn optimize` does) and the
 * screenshot's bytes are an image of its media type. A bad screen is refused at ingest, naming
 * its field, instead of failing a later command that cannot say which file and action it was.
 *
 * @module
 */
import { parseHierarchy } from "../screens/mod.ts";
import {
  type HierarchyFormat,
  type Platform,
  type Screen,
  type UiNode,
  walk,
} from "../screens/mod.ts";
import type { PendingBlob } from "./blob_ref.ts";
import { FormatError } from "../input/mod.ts";
import { MAX_COORDINATE } from "./screen_point.ts";
import { decodeUtf8 } from "../input/mod.ts";

function startsWith(bytes: Uint8Array, at: number, signature: string | readonly number[]) {
  const sig = typeof signature === "string"
    ? [...signature].map((c) => c.charCodeAt(0))
    : signature;
  return sig.every((b, i) => bytes[at + i] === b);
}

/** The screenshot media types Cairn stores: name, file extensions and the bytes they start with. */
export const SCREENSHOT_TYPES: Record<
  string,
  { name: string; extensions: readonly string[]; matches(bytes: Uint8Array): boolean }
> = {
  "image/png": {
    name: "PNG",
    extensions: ["png"],
    matches: (b) => startsWith(b, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  },
  "image/jpeg": {
    name: "JPEG",
    extensions: ["jpg", "jpeg"],
    matches: (b) => startsWith(b, 0, [0xff, 0xd8, 0xff]),
  },
  "image/webp": {
    name: "WebP",
    extensions: ["webp"],
    matches: (b) => startsWith(b, 0, "RIFF") && startsWith(b, 8, "WEBP"),
  },
  "image/gif": {
    name: "GIF",
    extensions: ["gif"],
    matches: (b) => startsWith(b, 0, "GIF87a") || startsWith(b, 0, "GIF89a"),
  },
};

/**
 * The text of a hierarchy read as bytes (a file next to a capture, a blob of an events file).
 *
 * @param bytes the hierarchy's bytes
 * @param field where to report a problem (`actions.3.viewHierarchy.file`)
 * @returns the text (a UTF-8 byte order mark skipped)
 * @throws {FormatError} `FIELD: byte offset N (line L): not UTF-8 …` (see `decodeUtf8`)
 */
export function hierarchyText(bytes: Uint8Array, field: string): string {
  try {
    return decodeUtf8(bytes);
  } catch (err) {
    if (err instanceof FormatError) throw new FormatError(`${field}: ${err.message}`, field);
    throw err;
  }
}

/**
 * The one platform a hierarchy format belongs to. Maestro and Trailblaze captures are of either
 * mobile platform: their parser tells which from the content (`Screen.platform`).
 */
const FORMAT_PLATFORM: Partial<Record<HierarchyFormat, Platform>> = {
  "uiautomator2": "android",
  "uiautomator-dump": "android",
  "xcuitest": "ios",
  "chrome": "web",
  "axtree_v1": "web",
};

const PLATFORM_NAME: Record<Platform, string> = {
  android: "an Android",
  ios: "an iOS",
  web: "a web",
};

/** Formats whose every element has bounds: a screen of them with no element of any size is no screen. */
const NATIVE_FORMATS: ReadonlySet<HierarchyFormat> = new Set([
  "uiautomator2",
  "uiautomator-dump",
  "xcuitest",
]);

/**
 * Checks that a hierarchy parses as its format, with the parser `cairn optimize` reads it with,
 * and that it is a screen of the capture's platform: its format belongs to that platform (for a
 * format of either platform, Maestro and Trailblaze, the platform its parser reads), no
 * element's box lies beyond ±33,554,431 px (`MAX_COORDINATE`), and a native screen (Android,
 * iOS) has at least one element of some size.
 *
 * @param text the hierarchy's text
 * @param format its format
 * @param field where to report a problem (`actions.3.viewHierarchy`)
 * @param platform the capture's platform, when known
 * @returns the parsed screen
 * @throws {FormatError} `FIELD: what` (the parser's message, with line and column or path)
 * @example
 * ```ts
 * checkHierarchy('<hierarchy><node bounds="[0,0][1,1]"/></hierarchy>', "uiautomator-dump", "h");
 * ```
 */
export function checkHierarchy(
  text: string,
  format: HierarchyFormat,
  field: string,
  platform?: Platform,
): Screen {
  const belongs = FORMAT_PLATFORM[format];
  if (platform !== undefined && belongs !== undefined && belongs !== platform) {
    throw new FormatError(
      `${field}: this ${format} hierarchy is ${PLATFORM_NAME[belongs]} screen, ` +
        `but the capture's platform is ${platform}`,
      field,
    );
  }
  let screen: Screen;
  try {
    screen = parseHierarchy(text, { format });
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err; // FormatError is one
    throw new FormatError(`${field}: ${err.message}`, field);
  }
  if (platform !== undefined && belongs === undefined && screen.platform !== platform) {
    throw new FormatError(
      `${field}: this ${format} hierarchy is ${PLATFORM_NAME[screen.platform]} screen, ` +
        `but the capture's platform is ${platform}`,
      field,
    );
  }
  checkGeometry(screen, field);
  return screen;
}

/**
 * Checks a parsed screen's geometry: no element's box beyond ±33,554,431 px, and on a native
 * screen (Android, iOS) at least one element of some size.
 *
 * @param screen the parsed screen
 * @param field where to report a problem (a file name, `actions.3.viewHierarchy`)
 * @throws {FormatError} `FIELD: what`
 */
export function checkGeometry(screen: Screen, field: string): void {
  const far = outOfRange(screen.root);
  if (far !== undefined) {
    const { x, y, w, h } = far.bounds;
    const label = far.text ?? far.contentDescription ?? far.resourceId;
    throw new FormatError(
      `${field}: element ${far.className}${
        label === undefined ? "" : ` ${JSON.stringify(label)}`
      } ` +
        `has bounds beyond ±${MAX_COORDINATE.toLocaleString("en-US")} px ` +
        `(x ${x}, y ${y}, width ${w}, height ${h}); no screen is that large`,
      field,
    );
  }
  if (NATIVE_FORMATS.has(screen.format) && !hasSize(screen.root)) {
    throw new FormatError(
      `${field}: no element has a size (bounds missing or empty): nothing on this screen can be found again`,
      field,
    );
  }
}

/** The deepest element whose box lies beyond the largest screen (a parent's box may be its union). */
function outOfRange(node: UiNode): UiNode | undefined {
  for (const child of node.children) {
    const far = outOfRange(child);
    if (far !== undefined) return far;
  }
  const { x, y, w, h } = node.bounds;
  const inside = Math.abs(x) <= MAX_COORDINATE && Math.abs(y) <= MAX_COORDINATE &&
    Math.abs(x + w) <= MAX_COORDINATE && Math.abs(y + h) <= MAX_COORDINATE;
  return inside ? undefined : node;
}

function hasSize(root: UiNode): boolean {
  for (const [n] of walk(root)) if (n.bounds.w > 0 && n.bounds.h > 0) return true;
  return false;
}

/**
 * Checks that a screenshot is of a media type of {@linkcode SCREENSHOT_TYPES} and that its
 * bytes start with that type's signature.
 *
 * @param shot the bytes and media type
 * @param field where to report a problem (`actions.3.screenshot`)
 * @throws {FormatError} `FIELD: what`
 * @example
 * ```ts
 * checkScreenshot({ bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xe0]), mediaType: "image/jpeg" }, "s");
 * ```
 */
export function checkScreenshot(shot: PendingBlob, field: string): void {
  const type = SCREENSHOT_TYPES[shot.mediaType];
  if (!type) {
    throw new FormatError(
      `${field}: unsupported media type ${JSON.stringify(shot.mediaType)} (expected ${
        Object.keys(SCREENSHOT_TYPES).join(", ")
      })`,
      field,
    );
  }
  if (!type.matches(shot.bytes)) {
    throw new FormatError(
      `${field}: not a ${type.name} image (its bytes do not start with the ${type.name} signature)`,
      field,
    );
  }
}
