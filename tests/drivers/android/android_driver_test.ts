/**
 * `AndroidDriver` against the STAND-IN WebDriver server of `android_standin.ts` (no Android
 * device or emulator can run here), serving real page sources from `../shared/corpus/android/`:
 * what the driver sends over the W3C protocol and what it makes of the answers.
 */
import { AndroidDriver, landedUrl } from "../../../drivers/android/android_driver.ts";
import {
  AndroidStart,
  androidStartUrl,
  connectAndroid,
} from "../../../drivers/android/android_start.ts";
import { DriverError } from "../../../drivers/driver.ts";
import { walk } from "../../../engine/screens/ui_node.ts";
import { startAndroidStandin } from "../../_fixtures/android_standin.ts";
import { assert, assertEquals, assertRejects, assertThrows } from "../../_fixtures/assert.ts";

const CORPUS = new URL("../../../../shared/corpus/android/", import.meta.url);

/** Reads a corpus page source. */
export function corpus(name: string): string {
  return Deno.readTextFileSync(new URL(name, CORPUS));
}

const THEAPP = "appium-source_theapp_login.xml";
const WIKI = "uiautomator_wikipedia_search.xml";
const NAV = "uiautomator_sample_bottom_navigation.xml";

Deno.test("AndroidDriver.connect() opens a UiAutomator2 session with the app's capabilities", async () => {
  const standin = startAndroidStandin({ screens: { login: corpus(THEAPP) } });
  try {
    const driver = await AndroidDriver.connect({
      appium: standin.url,
      session: {
        udid: "emulator-5554",
        appPackage: "io.cloudgrey.the_app",
        appActivity: ".MainActivity",
      },
    });
    assertEquals(await driver.versions(), {
      appium: "stand-in",
      automationName: "UiAutomator2",
      device: "stand-in",
      udid: "emulator-5554",
    });
    await driver.close();
    const caps =
      (standin.commands[0]!.body!.capabilities as { alwaysMatch: Record<string, unknown> })
        .alwaysMatch;
    assertEquals(caps.platformName, "Android");
    assertEquals(caps["appium:automationName"], "UiAutomator2");
    assertEquals(caps["appium:udid"], "emulator-5554");
    assertEquals(caps["appium:appPackage"], "io.cloudgrey.the_app");
    assertEquals(caps["appium:appActivity"], ".MainActivity");
    assertEquals(standin.commands.at(-1)!.method, "DELETE");
  } finally {
    await standin.close();
  }
});

Deno.test("AndroidDriver.snapshot() parses the served page source into a screen of device size", async () => {
  const xml = corpus(THEAPP);
  const standin = startAndroidStandin({ screens: { login: xml } });
  const driver = await AndroidDriver.connect({ appium: standin.url });
  try {
    const snap = await driver.snapshot();
    assertEquals(snap.screen.platform, "android");
    assertEquals(snap.screen.format, "uiautomator2");
    assertEquals([snap.screen.width, snap.screen.height], [1440, 2392]);
    assertEquals(new TextDecoder().decode(snap.raw.bytes), xml);
    const user = [...walk(snap.screen.root)].map(([n]) => n).find((n) =>
      n.contentDescription === "username"
    );
    assertEquals(user?.bounds, { x: 175, y: 628, w: 1090, h: 131 });
    const png = await driver.screenshot();
    assertEquals([...png.slice(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
    assertEquals((await driver.viewport()).devicePixelRatio, 420 / 160);
  } finally {
    await driver.close();
    await standin.close();
  }
});

Deno.test("AndroidDriver.tap() and scroll() send W3C touch pointer actions in device pixels", async () => {
  const standin = startAndroidStandin({ screens: { nav: corpus(NAV) } });
  const driver = await AndroidDriver.connect({ appium: standin.url });
  try {
    await driver.tap({ x: 540.4, y: 2263.6 });
    const sent = standin.commands.find((c) => c.path === "/actions" && c.method === "POST")!;
    const seq = (sent.body!.actions as { parameters: unknown; actions: unknown[] }[])[0]!;
    assertEquals(seq.parameters, { pointerType: "touch" });
    assertEquals(seq.actions[0], {
      type: "pointerMove",
      duration: 0,
      x: 540,
      y: 2264,
      origin: "viewport",
    });
    await driver.scroll("down", { point: { x: 540, y: 1200 }, distance: 800 });
    assertEquals(standin.gestures, [
      { kind: "tap", from: { x: 540, y: 2264 }, to: { x: 540, y: 2264 } },
      { kind: "swipe", from: { x: 540, y: 1600 }, to: { x: 540, y: 800 } },
    ]);
  } finally {
    await driver.close();
    await standin.close();
  }
});

Deno.test("AndroidDriver.find() answers id, accessibility id, UiSelector and xpath lookups with element rects", async () => {
  const standin = startAndroidStandin({ screens: { nav: corpus(NAV) } });
  const driver = await AndroidDriver.connect({ appium: standin.url });
  try {
    const dash = { x: 360, y: 2190, w: 360, h: 147 };
    const byId = await driver.find({
      using: "id",
      value: "com.example.my_sample_application:id/navigation_dashboard",
    });
    assertEquals(byId.map((e) => e.bounds), [dash]);
    const byShortId = await driver.find({ using: "id", value: "navigation_dashboard" });
    assertEquals(byShortId.map((e) => e.bounds), [dash]);
    const byDesc = await driver.find({ using: "accessibility id", value: "Dashboard" });
    assertEquals(byDesc.map((e) => e.bounds), [dash]);
    const byText = await driver.find({
      using: "-android uiautomator",
      value: 'new UiSelector().text("Dashboard")',
    });
    assertEquals(byText.map((e) => e.text), ["Dashboard"]);
    const second = await driver.find({
      using: "-android uiautomator",
      value: 'new UiSelector().className("android.widget.ImageView").instance(1)',
    });
    assertEquals(second.map((e) => e.bounds), [{ x: 508, y: 2211, w: 63, h: 63 }]);
    const byXpath = await driver.find({
      using: "xpath",
      value: '//*[@content-desc="Notifications"]',
    });
    assertEquals(byXpath.length, 1);
    assertEquals(await driver.find({ using: "id", value: "no_such_id" }), []);
    const lookups = standin.commands.filter((c) => c.path === "/elements").map((c) =>
      c.body!.using
    );
    assertEquals(lookups, [
      "id",
      "id",
      "accessibility id",
      "-android uiautomator",
      "-android uiautomator",
      "xpath",
      "id",
    ]);
    await assertRejects(
      () => driver.find({ using: "css", value: "#a" }),
      DriverError,
      "Cannot find by",
    );
  } finally {
    await driver.close();
    await standin.close();
  }
});

Deno.test("AndroidDriver.type() types into the field it focused, press() sends mobile: pressKey keycodes and chords with their meta state", async () => {
  const standin = startAndroidStandin({ screens: { wiki: corpus(WIKI) } });
  const driver = await AndroidDriver.connect({ appium: standin.url });
  try {
    await driver.type("Appium", { point: { x: 542, y: 201 }, clear: true });
    assertEquals(standin.typed, [{
      resourceId: "org.wikipedia.alpha:id/search_src_text",
      text: "Appium",
    }]);
    assert(standin.commands.some((c) => /^\/element\/[^/]+\/clear$/.test(c.path)), "no clear sent");
    await driver.press("Enter");
    await driver.press("Back");
    const keys = standin.commands.filter((c) => c.body?.script === "mobile: pressKey").map((c) =>
      c.body!.args
    );
    assertEquals(keys, [[{ keycode: 66 }], [{ keycode: 4 }]]);
    // chords: the last key's code, the modifiers as KeyEvent meta state (SHIFT 1, ALT 2,
    // CTRL 4096, META 65536)
    for (const chord of ["Ctrl+A", "Shift+Tab", "Control+Shift+ArrowLeft", "Alt+F4", "Meta+z"]) {
      await driver.press(chord);
    }
    assertEquals(standin.keys.slice(2).map((k) => [k.keycode, k.metastate, k.via]), [
      [29, 4096, "mobile: pressKey"],
      [61, 1, "mobile: pressKey"],
      [21, 4097, "mobile: pressKey"],
      [134, 2, "mobile: pressKey"],
      [54, 65536, "mobile: pressKey"],
    ]);
    const sent = standin.keys.length;
    await assertRejects(() => driver.press("Hyper"), DriverError, "no Android key code");
    await assertRejects(
      () => driver.press("Hyper+A"),
      DriverError,
      'Cannot press "Hyper+A": "Hyper" in "Hyper+A" is not a modifier (Shift, Ctrl, Alt, Meta)',
    );
    await assertRejects(
      () => driver.press("Ctrl+Nope"),
      DriverError,
      'no Android key code for "Nope"',
    );
    assertEquals(standin.keys.length, sent, "a refused key was sent");
  } finally {
    await driver.close();
    await standin.close();
  }
});

Deno.test("AndroidDriver.connect() maps a refused session to a DriverError that names the missing device", async () => {
  const standin = startAndroidStandin({
    screens: { nav: corpus(NAV) },
    refuseSession: "Could not find a connected Android device in 20000ms.",
  });
  try {
    const err = await assertRejects(
      () => AndroidDriver.connect({ appium: standin.url }),
      DriverError,
      "no Android device or emulator is connected",
    );
    assertEquals((err as DriverError).code, "device_missing");
  } finally {
    await standin.close();
  }
});

Deno.test("AndroidDriver.navigate() activates an app, starts an activity or opens a deep link", async () => {
  const standin = startAndroidStandin({ screens: { nav: corpus(NAV) } });
  const driver = await AndroidDriver.connect({ appium: standin.url });
  try {
    const nav = await driver.navigate("android-app://com.example.my_sample_application/");
    assertEquals(nav.finalUrl, "android-app://com.example.my_sample_application/");
    const activity = await driver.navigate(
      "android-app://com.example.my_sample_application/.MainActivity",
    );
    assertEquals(
      activity.finalUrl,
      "android-app://com.example.my_sample_application/.MainActivity",
    );
    const link = await driver.navigate("https://example.com/items/42");
    assertEquals(link.finalUrl, "https://example.com/items/42");
    const sent = standin.commands.filter((c) =>
      c.path === "/execute/sync" &&
      /activateApp|startActivity|deepLink/.test(String(c.body!.script))
    ).map((c) => [c.body!.script, c.body!.args]);
    assertEquals(sent, [
      ["mobile: activateApp", [{ appId: "com.example.my_sample_application" }]],
      ["mobile: startActivity", [{
        intent: "com.example.my_sample_application/.MainActivity",
        wait: true,
      }]],
      ["mobile: deepLink", [{ url: "https://example.com/items/42", waitForLaunch: true }]],
    ]);
  } finally {
    await driver.close();
    await standin.close();
  }
});

Deno.test("landedUrl() names where the device is when it is not the app asked for", () => {
  const landed = "android-app://com.android.permissioncontroller/.GrantPermissionsActivity";
  assertEquals(landedUrl("android-app://com.example.shop/", landed), landed);
  assertEquals(
    landedUrl("android-app://com.example.shop/", "android-app://com.example.shop/.Main"),
    "android-app://com.example.shop/",
  );
  assertEquals(landedUrl("com.example.shop/.Main", landed), landed);
});

Deno.test("connectAndroid() reads CAIRN_APPIUM_URL and CAIRN_ANDROID_UDID when the request names none", async () => {
  const standin = startAndroidStandin({ screens: { nav: corpus(NAV) } });
  const env: Record<string, string> = {
    CAIRN_APPIUM_URL: standin.url,
    CAIRN_ANDROID_UDID: "emulator-5556",
  };
  const start = AndroidStart.parse({ appPackage: "com.example.my_sample_application" });
  const driver = await connectAndroid(start, (n) => env[n]);
  try {
    const caps =
      (standin.commands[0]!.body!.capabilities as { alwaysMatch: Record<string, unknown> })
        .alwaysMatch;
    assertEquals(caps["appium:udid"], "emulator-5556");
    assertEquals(caps["appium:appPackage"], "com.example.my_sample_application");
    assertEquals(androidStartUrl(start), "android-app://com.example.my_sample_application/");
  } finally {
    await driver.close();
    await standin.close();
  }
  assertThrows(
    () => AndroidStart.parse({ appPackage: "not a package" }),
    Error,
    "expected a package",
  );
});

Deno.test("AndroidDriver.waitForSettle() reads the source twice when quiet and the next snapshot reuses it", async () => {
  const standin = startAndroidStandin({ screens: { nav: corpus(NAV) } });
  const driver = await AndroidDriver.connect({ appium: standin.url });
  const sources = () => standin.commands.filter((c) => c.path === "/source").length;
  try {
    await driver.waitForSettle({ quietMs: 30 });
    assertEquals(sources(), 2);
    const snap = await driver.snapshot();
    assertEquals(sources(), 2); // the settled source, no new round trip
    assertEquals(new TextDecoder().decode(snap.raw.bytes), corpus(NAV));
    await driver.snapshot();
    assertEquals(sources(), 3); // used once only
    await driver.waitForSettle({ quietMs: 30 });
    await driver.tap({ x: 540, y: 2264 });
    await driver.snapshot();
    assertEquals(sources(), 6); // an action in between: read afresh
  } finally {
    await driver.close();
    await standin.close();
  }
});
