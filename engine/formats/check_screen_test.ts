import { assertThrows } from "../../tests/assert.ts";
import { checkHierarchy, checkScreenshot } from "./check_screen.ts";
import { FormatError } from "./format_error.ts";

const PNG = await Deno.readFile(new URL("../../docs/timeline_sheet.png", import.meta.url));
const CORPUS_XML = await Deno.readTextFile(
  new URL("../../../shared/corpus/android/uiautomator_google_calculator.xml", import.meta.url),
);
function ascii(s: string): number[] {
  return [...s].map((c) => c.charCodeAt(0));
}

const IMAGES: [string, number[]][] = [
  ["image/jpeg", [0xff, 0xd8, 0xff, 0xe0, 0, 0x10, ...ascii("JFIF")]],
  ["image/webp", [...ascii("RIFF"), 0x24, 0, 0, 0, ...ascii("WEBPVP8 ")]],
  ["image/gif", ascii("GIF89a\x01\x00\x01\x00")],
];

Deno.test("checkScreenshot() accepts a real PNG and the signatures of JPEG, WebP and GIF", () => {
  checkScreenshot({ bytes: PNG, mediaType: "image/png" }, "s");
  for (const [mediaType, bytes] of IMAGES) {
    checkScreenshot({ bytes: new Uint8Array(bytes), mediaType }, "s");
  }
});

Deno.test("checkScreenshot() refuses bytes of another type than their media type", () => {
  const text = new TextEncoder().encode("not a png\n");
  assertThrows(
    () => checkScreenshot({ bytes: text, mediaType: "image/png" }, "actions.0.screenshot"),
    FormatError,
    "actions.0.screenshot: not a PNG image (its bytes do not start with the PNG signature)",
  );
  assertThrows(
    () => checkScreenshot({ bytes: PNG, mediaType: "image/jpeg" }, "s"),
    FormatError,
    "s: not a JPEG image",
  );
  assertThrows(
    () => checkScreenshot({ bytes: PNG.subarray(0, 7), mediaType: "image/png" }, "s"),
    FormatError,
    "s: not a PNG image",
  );
});

Deno.test("checkScreenshot() refuses a media type that is not an image Cairn stores", () => {
  assertThrows(
    () => checkScreenshot({ bytes: PNG, mediaType: "text/plain" }, "s"),
    FormatError,
    's: unsupported media type "text/plain" (expected image/png, image/jpeg, image/webp, image/gif)',
  );
});

Deno.test("checkHierarchy() parses a corpus hierarchy as its format and names the field of a mismatch", () => {
  checkHierarchy(CORPUS_XML, "uiautomator-dump", "h");
  assertThrows(
    () => checkHierarchy(CORPUS_XML, "chrome", "actions.2.viewHierarchy"),
    FormatError,
    "actions.2.viewHierarchy: Invalid Chrome hierarchy JSON at line 1, column 1",
  );
  assertThrows(
    () => checkHierarchy(CORPUS_XML.slice(0, 500), "uiautomator-dump", "h"),
    FormatError,
    "h: Unterminated",
  );
});
