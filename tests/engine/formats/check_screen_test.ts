import { assertThrows } from "../../_fixtures/assert.ts";
import { checkHierarchy, checkScreenshot } from "../../../engine/formats/check_screen.ts";
import { FormatError } from "../../../engine/input/format_error.ts";

const PNG = await Deno.readFile(new URL("../../../docs/timeline_sheet.png", import.meta.url));
const CORPUS_XML = await Deno.readTextFile(
  new URL("../../../../shared/corpus/android/uiautomator_google_calculator.xml", import.meta.url),
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

const IOS_XML = await Deno.readTextFile(
  new URL("../../../../shared/corpus/ios/xcuitest-source_safari_iphone.xml", import.meta.url),
);

Deno.test("checkHierarchy() refuses a hierarchy of another platform than the capture's", () => {
  checkHierarchy(CORPUS_XML, "uiautomator-dump", "h", "android");
  checkHierarchy(IOS_XML, "xcuitest", "h", "ios");
  assertThrows(
    () => checkHierarchy(IOS_XML, "xcuitest", "actions.0.viewHierarchy", "android"),
    FormatError,
    "actions.0.viewHierarchy: this xcuitest hierarchy is an iOS screen, but the capture's platform is android",
  );
  assertThrows(
    () => checkHierarchy(CORPUS_XML, "uiautomator-dump", "h", "web"),
    FormatError,
    "h: this uiautomator-dump hierarchy is an Android screen, but the capture's platform is web",
  );
});

const corpus = (path: string) =>
  Deno.readTextFile(new URL(`../../../../shared/corpus/${path}`, import.meta.url));
const MAESTRO_IOS = await corpus("ios/maestro-hierarchy_rn_testingmaestro_iphone.json");
const TRAILBLAZE_IOS = await corpus("ios/trailblaze-waypoint_contacts_ios_lists.example.json");
const TRAILBLAZE_ANDROID = await corpus(
  "trailblaze/trailmap/calendar_android_add_location.example.json",
);
const MAESTRO_ANDROID = JSON.stringify({
  attributes: { bounds: "[0,0][1080,2400]", class: "android.widget.FrameLayout" },
  children: [{
    attributes: { text: "Go", bounds: "[0,0][200,100]", class: "android.widget.Button" },
    children: [],
  }],
});

Deno.test("checkHierarchy() compares a Maestro or Trailblaze screen's own platform with the capture's", () => {
  checkHierarchy(MAESTRO_IOS, "maestro", "h", "ios");
  checkHierarchy(MAESTRO_ANDROID, "maestro", "h", "android");
  checkHierarchy(TRAILBLAZE_IOS, "trailblaze", "h", "ios");
  checkHierarchy(TRAILBLAZE_ANDROID, "trailblaze", "h", "android");
  checkHierarchy(MAESTRO_IOS, "maestro", "h"); // no capture platform: nothing to compare
  assertThrows(
    () => checkHierarchy(MAESTRO_IOS, "maestro", "actions.0.viewHierarchy.file", "android"),
    FormatError,
    "actions.0.viewHierarchy.file: this maestro hierarchy is an iOS screen, but the capture's platform is android",
  );
  assertThrows(
    () => checkHierarchy(TRAILBLAZE_IOS, "trailblaze", "h", "web"),
    FormatError,
    "h: this trailblaze hierarchy is an iOS screen, but the capture's platform is web",
  );
  assertThrows(
    () => checkHierarchy(MAESTRO_ANDROID, "maestro", "h", "ios"),
    FormatError,
    "h: this maestro hierarchy is an Android screen, but the capture's platform is ios",
  );
  assertThrows(
    () => checkHierarchy(TRAILBLAZE_ANDROID, "trailblaze", "h", "web"),
    FormatError,
    "h: this trailblaze hierarchy is an Android screen, but the capture's platform is web",
  );
});

Deno.test("checkHierarchy() refuses element boxes beyond ±33,554,431 px and a native screen with no sized element", () => {
  const node = (bounds: string) =>
    `<hierarchy><node class="android.widget.FrameLayout" bounds="[0,0][1080,2400]">` +
    `<node class="android.widget.Button" text="Go" bounds="${bounds}"/></node></hierarchy>`;
  checkHierarchy(node("[0,0][33554431,100]"), "uiautomator-dump", "h");
  assertThrows(
    () => checkHierarchy(node("[0,0][99999999999,100]"), "uiautomator-dump", "h"),
    FormatError,
    'h: element android.widget.Button "Go" has bounds beyond ±33,554,431 px',
  );
  assertThrows(
    () => checkHierarchy("<hierarchy/>", "uiautomator-dump", "h"),
    FormatError,
    "h: no element has a size (bounds missing or empty)",
  );
  assertThrows(
    () =>
      checkHierarchy(
        '<hierarchy><node class="a.B" text="x"/></hierarchy>',
        "uiautomator-dump",
        "h",
      ),
    FormatError,
    "h: no element has a size",
  );
});
