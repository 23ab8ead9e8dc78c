/**
 * Golden text snapshots of corpus screens (Android, iOS, Maestro, Trailblaze, Chrome). Each
 * golden was read by eye before it was committed. Regenerate after an intended change with
 * `UPDATE_GOLDEN=1 deno test -A tests/engine/screens/snapshot_golden_test.ts` and read the diff.
 */
import { parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { renderSnapshot, type RenderSnapshotOptions } from "../../../engine/screens/snapshot.ts";
import { assertEquals } from "../../_fixtures/assert.ts";

const CORPUS = new URL("../../../../shared/corpus/", import.meta.url);
const GOLDEN = new URL("../../testdata/snapshots/", import.meta.url);
const UPDATE = Deno.env.get("UPDATE_GOLDEN") === "1";

/** [golden name, source (corpus-relative, or `testdata:` for our own captures), options] */
const CASES: [string, string, RenderSnapshotOptions][] = [
  ["android_theapp_login", "android/appium-source_theapp_login.xml", {}],
  ["android_facebook_login_es", "android/appium-source_facebook_login_es.xml", {}],
  ["android_wikipedia_explore_feed", "android/uiautomator_wikipedia_explore_feed.xml", {}],
  ["android_google_tasks_list", "android/uiautomator_google_tasks_list.xml", { depth: 4 }],
  ["android_gmail_inbox", "android/uiautomator_gmail_inbox.xml", {}],
  [
    "android_settings_switch_bounds",
    "android/uiautomator_settings_display_over_apps_detail_switch.xml",
    { bounds: true },
  ],
  ["android_rn_login", "android/uiautomator_wdio_demo_reactnative_login.xml", {}],
  ["android_flutter_dialog_zh", "android/uiautomator_flutter_permission_dialog_zh.xml", {}],
  ["android_calculator", "android/uiautomator_google_calculator.xml", {}],
  ["android_anr_dialog", "android/uiautomator_system_anr_dialog.xml", {}],
  ["android_doctorapp_language", "android/appium-source_doctorapp_language_dialog.xml", {}],
  [
    "android_messages_compose",
    "android/uiautomator_google_messages_compose_conversation.xml",
    {},
  ],
  ["android_zomato_offers_sheet", "android/appium-source_zomato_offers_bottom_sheet.xml", {}],
  ["ios_safari_offscreen", "ios/xcuitest-source_safari_iphone.xml", { offscreen: true }],
  ["ios_lockscreen", "ios/xcuitest-source_ios_lockscreen_springboard.xml", { offscreen: true }],
  ["maestro_rn_iphone", "ios/maestro-hierarchy_rn_testingmaestro_iphone.json", {}],
  ["trailblaze_contacts_lists", "ios/trailblaze-waypoint_contacts_ios_lists.example.json", {}],
  [
    "trailblaze_contacts_block_confirm",
    "ios/trailblaze-waypoint_contacts_ios_block_contact_confirm.example.json",
    { bounds: true },
  ],
  ["web_form", "testdata:web_form.chrome.json", {}],
  ["web_form_offscreen", "testdata:web_form.chrome.json", { offscreen: true, bounds: true }],
  ["web_sample_app_form", "testdata:web_sample_app_form.chrome.json", {}],
];

function source(path: string): string {
  const url = path.startsWith("testdata:")
    ? new URL(path.slice("testdata:".length), GOLDEN)
    : new URL(path, CORPUS);
  return Deno.readTextFileSync(url);
}

for (const [name, path, options] of CASES) {
  Deno.test(`renderSnapshot() matches the golden ${name}.txt`, () => {
    const text = renderSnapshot(parseHierarchy(source(path)), options);
    const file = new URL(`${name}.txt`, GOLDEN);
    if (UPDATE) Deno.writeTextFileSync(file, text);
    assertEquals(text, Deno.readTextFileSync(file));
  });
}
