import { assertEquals } from "../../_fixtures/assert.ts";
import { createHash } from "node:crypto";
import {
  decodeScreen,
  decodeScreenSize,
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
    // the size read from the head alone
    assertEquals(decodeScreenSize(bytes!), { width: screen.width, height: screen.height }, name);
  }
});

// The parsers' output on real screens, as of this codec version: a print of each screen by file
// (a screen added later is not in it). A parser change that moves one makes every stored parsed
// screen stale: raise SCREEN_CODEC_VERSION, then record the new prints under it.
const PRINTS: Record<number, Record<string, string>> = {
  1: {
    "appium-source_doctorapp_language_dialog.xml": "13e98d6fa598f83a",
    "appium-source_facebook_login_es.xml": "a1833e7d07debaa2",
    "appium-source_flutter_url_launcher_demo.xml": "0b49964c1f039648",
    "appium-source_theapp_login.xml": "91fdff4503d4b7b8",
    "appium-source_tiktoklite_signup_id.xml": "d99b778d22b32632",
    "appium-source_zomato_offers_bottom_sheet.xml": "329736580e05b5a5",
    "maestro-hierarchy_rn_testingmaestro_iphone.json": "a9c799f19c9bace0",
    "trailblaze-waypoint_contacts_ios_add_to_list_picker.example.json": "5f51afb9fb8fee87",
    "trailblaze-waypoint_contacts_ios_block_contact_confirm.example.json": "6254fceace49b643",
    "trailblaze-waypoint_contacts_ios_lists.example.json": "97d74060044f5faa",
    "uiautomator_aena_onboarding_viewpager.xml": "40f353d62f94d131",
    "uiautomator_cliphist_compose_settings_dialog.xml": "c51bc83c4fdcfc0c",
    "uiautomator_flutter_permission_dialog_zh.xml": "bf9586c00b2e092e",
    "uiautomator_gmail_inbox.xml": "ae91ec7a1c64892a",
    "uiautomator_google_calculator.xml": "41398c0dece4e403",
    "uiautomator_google_messages_compose_conversation.xml": "182d4c08746704e3",
    "uiautomator_google_tasks_list.xml": "3e0f0aa307be462b",
    "uiautomator_huawei_calendar_new_event_zh.xml": "668fc0609d2721a1",
    "uiautomator_lockscreen_2018_720p_pt.xml": "e77bd518fb212fba",
    "uiautomator_loophabit_compose_empty.xml": "e3bb0f7b34d067f4",
    "uiautomator_openweather_forecast.xml": "68c4f9b8c12c35c6",
    "uiautomator_philo_androidtv_home.xml": "a24cb3d89370b7b1",
    "uiautomator_pixel_launcher_home.xml": "f5a2718a6cfa2bab",
    "uiautomator_sample_bottom_navigation.xml": "b63ca6a4086ba911",
    "uiautomator_settings_display_over_apps_detail_switch.xml": "2b3561d755556011",
    "uiautomator_settings_display_over_apps_list.xml": "f80352dcf7c9d8b4",
    "uiautomator_system_anr_dialog.xml": "f54745bcb426e5ac",
    "uiautomator_systemui_notification_shade_es.xml": "62e4d702a09c4925",
    "uiautomator_wdio_demo_reactnative_forms.xml": "e5bc8be29acc8174",
    "uiautomator_wdio_demo_reactnative_login.xml": "bc6e5596ebe100ec",
    "uiautomator_wikipedia_explore_feed.xml": "caf94c911a262573",
    "uiautomator_wikipedia_search.xml": "1b3497e168362b81",
    "web_form.chrome.json": "8997da766368f352",
    "web_sample_app_form.chrome.json": "3df3ec1e7890a687",
    "xcuitest-source_ios_lockscreen_springboard.xml": "be86a3ff3af46b00",
    "xcuitest-source_safari_iphone.xml": "1a8ab87e2b497685",
  },
};

Deno.test("the parsers' output on the real screens is the one this codec version was stored from", () => {
  const prints = PRINTS[SCREEN_CODEC_VERSION]!;
  const printed = realScreens().filter(([name]) => name in prints);
  assertEquals(printed.length, Object.keys(prints).length, "a printed screen is missing");
  for (const [name, screen] of printed) {
    const print = createHash("sha256").update(JSON.stringify(screen)).digest("hex").slice(0, 16);
    assertEquals(
      print,
      prints[name],
      `${name}: the parsed screen changed: raise SCREEN_CODEC_VERSION ` +
        "(engine/screens/screen_codec.ts) so screens stored by the old parsers are parsed again, " +
        "and record the new prints",
    );
  }
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
  // the size alone: from its own bytes, at any offset; none from another version or cut bytes
  assertEquals(decodeScreenSize(bytes), { width: 100, height: 200 });
  assertEquals(decodeScreenSize(other), undefined);
  assertEquals(decodeScreenSize(bytes.subarray(0, bytes.length - 1)), undefined);
  assertEquals(decodeScreenSize(new Uint8Array(3)), undefined);
  // bytes at an odd offset of a larger buffer (as a store may hand them out)
  const shifted = new Uint8Array(bytes.length + 3);
  shifted.set(bytes, 3);
  assertEquals(decodeScreen(shifted.subarray(3)), screen());
  assertEquals(decodeScreenSize(shifted.subarray(3)), { width: 100, height: 200 });
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
