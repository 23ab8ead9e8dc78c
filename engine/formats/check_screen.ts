/**
 * The contents checks of an imported screen, before anything is stored: the hierarchy parses
 * with the parser that later reads it (`parseHierarchy`, as `cairn optimize` does) and the
 * screenshot's bytes are an image of its media type. A bad screen is refused at ingest, naming
 * its field, instead of failing a later command that cannot say which file and action it was.
 *
 * @module
 */
import { parseHierarchy } from "../hierarchy.ts";
import type { HierarchyFormat } from "../ui_node.ts";
import type { PendingBlob } from "./blob_ref.ts";
import { FormatError } from "./format_error.ts";
import { decodeUtf8 } from "./utf8_text.ts";

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
 * Checks that a hierarchy parses as its format, with the parser `cairn optimize` reads it with.
 *
 * @param text the hierarchy's text
 * @param format its format
 * @param field where to report a problem (`actions.3.viewHierarchy`)
 * @throws {FormatError} `FIELD: what` (the parser's message, with line and column or path)
 * @example
 * ```ts
 * checkHierarchy('<hierarchy><node bounds="[0,0][1,1]"/></hierarchy>', "uiautomator-dump", "h");
 * ```
 */
export function checkHierarchy(text: string, format: HierarchyFormat, field: string): void {
  try {
    parseHierarchy(text, { format });
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err; // FormatError is one
    throw new FormatError(`${field}: ${err.message}`, field);
  }
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
