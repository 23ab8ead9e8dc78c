import { assertEquals } from "../../_fixtures/assert.ts";
import { createHash } from "node:crypto";
import {
  decodeScreen,
  encodeScreen,
  makeNode,
  parsedScreenKind,
  parseHierarchy,
  type Screen,
  SCREEN_CODEC_VERSION,
} from "../../../engine/screens/mod.ts";

const CORPUS = new URL("../../../../shared/corpus/", import.meta.url);
const SNAPSHOTS = new URL("../../testdata/snapshots/", import.meta.url);

/**
 * Every real hierarchy at hand: the corpus's Android and iOS sources (UiAutomator, Appium, XCUITest,
 * Maestro, Trailblaze) and the repository's Chrome hierarchies, parsed as `cairn optimize` does.
 */
function realScreens(): [string, Screen][] {
  const out: [string, Screen][] = [];
  for (const dir of [new URL("android/", CORPUS), new URL("ios/", CORPUS), SNAPSHOTS]) {
    for (const e of Deno.readDirSync(dir)) {
      if (!e.isFile || !/\.(xml|json)$/.test(e.name)) continue;
      out.push([e.name, parseHierarchy(Deno.readTextFileSync(new URL(e.name, dir)))]);
    }
  }
  return out.sort(([a], [b]) => a.localeCompare(b));
}

Deno.test("decodeScreen(encodeScreen()) gives back every real screen the parser gave, to the key order", () => {
  const screens = realScreens();
  const formats = new Set(screens.map(([, s]) => s.format));
  assertEquals(screens.length >= 30, true, `only ${screens.length} screens found`);
  assertEquals(formats.size >= 5, true, `only ${[...formats].join(", ")}`);
  for (const [name, screen] of screens) {
    const bytes = encodeScreen(screen);
    assertEquals(bytes !== undefined, true, `${name}: not encoded`);
    const back = decodeScreen(bytes!);
    assertEquals(back, screen, name);
    assertEquals(JSON.stringify(back), JSON.stringify(screen), name);
  }
});

// The parsers' output on the real screens, as of this codec version. A parser change that moves it
// makes every stored parsed screen stale: raise SCREEN_CODEC_VERSION, then record the new print.
const FINGERPRINTS: Record<number, string> = {
  1: "6e4560358ac2b6e1af171c703d345d7c2a5eaecf21ae8d434192f9f664977d83",
};

Deno.test("the parsers' output on the real screens is the one this codec version was stored from", () => {
  const print = createHash("sha256");
  for (const [name, screen] of realScreens()) print.update(`${name}\n${JSON.stringify(screen)}\n`);
  assertEquals(
    print.digest("hex"),
    FINGERPRINTS[SCREEN_CODEC_VERSION],
    "the parsed screens changed: raise SCREEN_CODEC_VERSION (engine/screens/screen_codec.ts) " +
      "so screens stored by the old parsers are parsed again, and record the new fingerprint",
  );
});

Deno.test("encodeScreen() refuses what it cannot give back exactly, and decodeScreen() bytes not its own", () => {
  const screen = (root = makeNode({ className: "View", text: "ok" })): Screen => ({
    platform: "android",
    format: "uiautomator2",
    root,
    width: 100,
    height: 200,
  });
  // a lone surrogate does not survive UTF-8
  assertEquals(encodeScreen(screen(makeNode({ className: "View", text: "a\ud800" }))), undefined);
  // a field the node model does not name
  const odd = makeNode({ className: "View" }) as unknown as Record<string, unknown>;
  odd.extra = 1;
  assertEquals(encodeScreen(screen(odd as never)), undefined);
  // a screen field it does not know
  assertEquals(encodeScreen({ ...screen(), scale: 2 } as Screen), undefined);

  const bytes = encodeScreen(screen())!;
  assertEquals(decodeScreen(bytes), screen());
  assertEquals(decodeScreen(bytes.subarray(0, bytes.length - 1)), undefined);
  assertEquals(decodeScreen(new Uint8Array(3)), undefined);
  const other = bytes.slice();
  new DataView(other.buffer).setInt32(4, SCREEN_CODEC_VERSION + 1, true);
  assertEquals(decodeScreen(other), undefined);
  // bytes at an odd offset of a larger buffer (as a store may hand them out)
  const shifted = new Uint8Array(bytes.length + 3);
  shifted.set(bytes, 3);
  assertEquals(decodeScreen(shifted.subarray(3)), screen());
  // fractional bounds (CSS pixels) and a url survive
  const web: Screen = {
    platform: "web",
    format: "chrome",
    url: "http://127.0.0.1/é",
    root: makeNode({ className: "button", bounds: { x: 0.5, y: 1.25, w: 10.75, h: 3 } }),
    width: 1280.5,
    height: 720,
  };
  assertEquals(decodeScreen(encodeScreen(web)!), web);
  assertEquals(parsedScreenKind("chrome"), `cairn.screen/v${SCREEN_CODEC_VERSION} chrome`);
});
