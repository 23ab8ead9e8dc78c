/**
 * Held-out checks of the assertion's carrier and of strict mode's parent context, on real
 * corpus screens the rules were not written against (Aena, Messages, the Doctor app, Zomato,
 * the Android notification shade and lock screen, Settings, Gmail; Safari on iOS; Chrome
 * hierarchies of two web forms), edited only in a label or an id where a case needs it:
 *
 * - an assertion checks the label that shows the value, never a container whose description
 *   or aria-label merely contains it (Android, iOS, the web);
 * - strict mode takes an id that repeats on the screen but is unique within its row, with the
 *   row's context (`childOf`), and refuses, saying why, when no row context picks it.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { buildCapture, type ScriptAction } from "../../_fixtures/optimizer_support.ts";
import { parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { optimize, type OptimizeResult } from "../../../engine/optimizer/optimize.ts";
import { holdsValue } from "../../../engine/optimizer/modes.ts";
import { androidCascade, resolveTarget } from "../../../engine/playback/cascade.ts";
import { targetFromTrailSelectors } from "../../../engine/playback/from_trail.ts";
import { ScreenFinder } from "../../../drivers/android/screen_lookup.ts";
import type { Selector, TrailAction } from "../../../engine/trail/trail.ts";
import type { Screen, UiNode } from "../../../engine/screens/ui_node.ts";

const CORPUS = new URL("../../../../shared/corpus/", import.meta.url).pathname;
const SNAPSHOTS = new URL("../../testdata/snapshots/", import.meta.url).pathname;
const text = (path: string) => Deno.readTextFileSync(path);
const screen = (path: string) => parseHierarchy(text(path));

type Mode = "strict" | "flexible" | "adaptive";

function run(
  platform: "android" | "ios" | "web",
  actions: ScriptAction[],
  mode: Mode = "adaptive",
  heuristics: "v2" | "v3" = "v3",
): OptimizeResult {
  const c = buildCapture(platform, actions);
  return optimize(c.events, c.screens, { mode, heuristics });
}

function first(r: OptimizeResult): TrailAction {
  const a = r.trail.trail[0]?.recording?.[0];
  assert(a, JSON.stringify(r.trail.trail[0]));
  return a;
}

function chainOf(a: TrailAction): Selector[] {
  return a.selectors ?? (a.selector ? [a.selector] : []);
}

function explain(r: OptimizeResult): string {
  return r.explain.flatMap((e) => e.lines).join("\n");
}

function find(s: Screen, pred: (n: UiNode) => boolean): UiNode[] {
  const out: UiNode[] = [];
  const walk = (n: UiNode) => {
    if (pred(n)) out.push(n);
    n.children.forEach(walk);
  };
  walk(s.root);
  return out;
}

function centre(n: UiNode): { x: number; y: number } {
  return { x: Math.floor(n.bounds.x + n.bounds.w / 2), y: Math.floor(n.bounds.y + n.bounds.h / 2) };
}

// ---------------------------------------------------------------------------------------------
// The assertion's carrier

Deno.test("carrier, Android Aena: the language label is asserted, not by its description 'Language selected: English. Change'", () => {
  const s = screen(`${CORPUS}android/uiautomator_aena_onboarding_viewpager.xml`);
  const r = run("android", [{
    step: "Verify the language",
    screen: s,
    kind: "assertText",
    point: { x: 886, y: 196 },
    expected: "English",
  }]);
  const a = first(r);
  assertEquals(a.kind, "assertText");
  assertEquals(a.equals, "English");
  assertEquals(chainOf(a)[0], { id: "es.aena.mobile:id/tv_fragment_welcoming_idioma" });
  assert(!JSON.stringify(a).includes("Language selected"), JSON.stringify(a));
  assert(
    explain(r).includes('left out {"contentDescription":"Language selected: English. Change"}'),
  );
});

Deno.test("carrier, Android Messages: a bubble's text is asserted, not its description 'You said  Hiii 12:30 pm .'", () => {
  const s = screen(`${CORPUS}android/uiautomator_google_messages_compose_conversation.xml`);
  const bubble = find(s, (n) => n.text === "Hiii")[0]!;
  const r = run("android", [{
    step: "Verify the message",
    screen: s,
    kind: "assertText",
    point: centre(bubble),
    expected: "Hiii",
  }]);
  const a = first(r);
  assertEquals([a.kind, a.equals], ["assertText", "Hiii"]);
  for (const sel of chainOf(a)) {
    assert(!holdsValue(sel, ["hiii"]), JSON.stringify(sel));
    assert(!JSON.stringify(sel).includes("You said"), JSON.stringify(sel));
  }
  // the point: the bubble, not the row around it
  const xy = chainOf(a).at(-1)!;
  assertEquals(xy.xy, [centre(bubble).x, centre(bubble).y]);
});

Deno.test("carrier, Android Doctor app: a language row that shows no text is checked by its own description, not the dialog's", () => {
  const s = screen(`${CORPUS}android/appium-source_doctorapp_language_dialog.xml`);
  const r = run("android", [{
    step: "Verify English is offered",
    screen: s,
    kind: "assertText",
    point: { x: 540, y: 976 },
    expected: "English",
  }]);
  const a = first(r);
  assertEquals(chainOf(a)[0], { contentDescription: "🇬🇧\nEnglish" });
  assert(!JSON.stringify(a).includes("Select Language"), JSON.stringify(a));
  assert(explain(r).includes("whose content description holds the expected value"), explain(r));
});

/** Safari's "Secure Area" heading, its frame's label edited to merely contain the text. */
function safariFramed(): Screen {
  const xml = text(`${CORPUS}ios/xcuitest-source_safari_iphone.xml`);
  const framed = xml.replace(
    '<XCUIElementTypeOther type="XCUIElementTypeOther" value="2" name="Secure Area" label="Secure Area"',
    '<XCUIElementTypeOther type="XCUIElementTypeOther" value="2" name="secure-area-header" label="Secure Area-page"',
  );
  assert(framed !== xml);
  return parseHierarchy(framed);
}

Deno.test("carrier, iOS Safari: a point on the heading's frame asserts the static text inside it, not the frame labelled 'Secure Area-page'", () => {
  const s = safariFramed();
  const staticText = { id: "Secure Area" };
  for (const point of [{ x: 60, y: 165 }, { x: 250, y: 165 }]) { // on the text, beside it
    const script: ScriptAction[] = [{
      step: "Verify the heading",
      screen: s,
      kind: "assertText",
      point,
      expected: "Secure Area",
    }];
    const r = run("ios", script);
    const a = first(r);
    assertEquals([a.kind, a.equals], ["assertText", "Secure Area"]);
    assertEquals(chainOf(a)[0], staticText, JSON.stringify(point));
    assert(!JSON.stringify(a).includes('secure-area-header"}') || chainOf(a)[1]?.childOf);
    assert(!JSON.stringify(a).includes("Secure Area-page"), JSON.stringify(a));
    if (point.x === 250) {
      assert(
        explain(r).includes(
          'assertion target: the XCUIElementTypeStaticText "Secure Area" inside the XCUIElementTypeOther "secure-area-header" the point hit, which shows the expected value',
        ),
        explain(r),
      );
      // v2 writes what it wrote: the frame
      assertEquals(chainOf(first(run("ios", script, "adaptive", "v2")))[0], {
        id: "secure-area-header",
      });
    }
  }
});

/** The web form's "Far below" button, without its id, alone in a region "Far below the fold". */
function webRegion(): Screen {
  const d = JSON.parse(text(`${SNAPSHOTS}web_form.chrome.json`));
  const [region, button] = [d.nodes[30], d.nodes[31]];
  assertEquals([region.role, button.name], ["generic", "Far below"]);
  Object.assign(region, {
    role: "region",
    name: "Far below the fold",
    dom: { "aria-label": "Far below the fold" },
  });
  Object.assign(button, { dom: {}, cssPath: "body > div:nth-of-type(2) > button" });
  return parseHierarchy(JSON.stringify(d));
}

Deno.test("carrier, web form: an assertion on a button alone in a region labelled 'Far below the fold' checks the button", () => {
  const s = webRegion();
  const button = { cssPath: "body > div:nth-of-type(2) > button" };
  // on the button's text, and on the region beside the button
  for (const point of [{ x: 40, y: 1744 }, { x: 400, y: 1744 }]) {
    const script: ScriptAction[] = [{
      step: "Verify the button",
      screen: s,
      kind: "assertText",
      point,
      expected: "Far below",
    }];
    const r = run("web", script);
    const a = first(r);
    assertEquals([a.kind, a.equals], ["assertText", "Far below"]);
    assertEquals(chainOf(a)[0], button, JSON.stringify(point));
    assert(!JSON.stringify(a).includes("Far below the fold"), JSON.stringify(a));
    // v2 asserted the region (by its path, or by its label)
    const v2 = chainOf(first(run("web", script, "adaptive", "v2")))[0]!;
    assert(
      v2.cssPath === "body > div:nth-of-type(2)" || v2.ariaLabel === "Far below the fold",
      JSON.stringify(v2),
    );
  }
});

Deno.test("carrier, web sample app: a point on the navigation beside its links asserts the link 'Home', not the navigation", () => {
  const s = screen(`${SNAPSHOTS}web_sample_app_form.chrome.json`);
  const script: ScriptAction[] = [{
    step: "Verify the Home link is there",
    screen: s,
    kind: "assertText",
    point: { x: 600, y: 120 },
    expected: "Home",
  }];
  const r = run("web", script);
  const a = first(r);
  assertEquals(chainOf(a)[0], { id: "nav-home" });
  assert(!JSON.stringify(a).includes("Main navigation"), JSON.stringify(a));
  assert(explain(r).includes("inside the navigation"), explain(r));
  // v2 asserted the navigation
  assertEquals(chainOf(first(run("web", script, "adaptive", "v2")))[0], {
    ariaLabel: "Main navigation",
  });
  // on the link's own text it was the link already
  const onText = run("web", [{ ...script[0]!, point: { x: 50, y: 120 } }]);
  assertEquals(chainOf(first(onText))[0], { id: "nav-home" });
});

// ---------------------------------------------------------------------------------------------
// Strict mode: an id unique within its row

/** Checks that the Android player's lookup finds the node at `at` by the selector alone. */
async function playerFinds(s: Screen, sel: Selector, at: { x: number; y: number }) {
  const res = await resolveTarget(
    new ScreenFinder(s),
    androidCascade(targetFromTrailSelectors([sel])),
  );
  const b = res.element?.bounds;
  assert(b, `the player finds nothing for ${JSON.stringify(sel)}`);
  assert(
    at.x >= b.x && at.x < b.x + b.w && at.y >= b.y && at.y < b.y + b.h,
    `${JSON.stringify(sel)} finds ${JSON.stringify(b)}, not the node at ${JSON.stringify(at)}`,
  );
}

Deno.test("strict, notification shade: the expand button repeated in every notification is taken with its row's title", async () => {
  const s = screen(`${CORPUS}android/uiautomator_systemui_notification_shade_es.xml`);
  const buttons = find(s, (n) => n.resourceId === "android:id/expand_button");
  assertEquals(buttons.length, 3);
  const titles = ["Depuración USB activada", "Se activó el modo Hora de dormir"];
  for (const [i, title] of titles.entries()) {
    const at = centre(buttons[i]!);
    const script: ScriptAction[] = [{
      step: "Expand the notification",
      screen: s,
      kind: "tap",
      point: at,
    }];
    const r = run("android", script, "strict");
    assertEquals(r.warnings, []);
    const sel = { id: "android:id/expand_button", childOf: { text: title } };
    assertEquals(r.trail.trail[0]!.recording, [{ kind: "tap", selector: sel }]);
    assert(explain(r).includes('rejected {"id":"android:id/expand_button"}: matches 3 nodes'));
    await playerFinds(s, sel, at);
    // v2 refused it
    assertEquals(run("android", script, "strict", "v2").trail.trail[0]!.recordable, false);
  }
});

Deno.test("strict, Zomato offers: the info icon of an offer row is taken with its row's context; the sheet's title with its container's id", async () => {
  const s = screen(`${CORPUS}android/appium-source_zomato_offers_bottom_sheet.xml`);
  const icon = { x: 1215, y: 2430 }; // the "FLAT 10% OFF" offer, with "See items on offer"
  const r = run("android", [{
    step: "Open the offer's details",
    screen: s,
    kind: "tap",
    point: icon,
  }], "strict");
  assertEquals(r.warnings, []);
  const sel = {
    id: "com.application.zomato:id/title_right_icon_end",
    childOf: { text: "See items on offer" },
  };
  assertEquals(first(r).selector, sel);
  await playerFinds(s, sel, icon);
  const title = run("android", [{
    step: "Verify the sheet's title",
    screen: s,
    kind: "assertText",
    point: { x: 600, y: 1650 },
    expected: "Offers at Chung Fa Chinese Restaurant - Since 1984",
  }], "strict");
  assertEquals(first(title).selector, {
    id: "com.application.zomato:id/title",
    childOf: { id: "com.application.zomato:id/titleSubtitleContainer" },
  });
});

Deno.test("strict, notification shade: an asserted title is anchored by another text of its row, never by itself", () => {
  const s = screen(`${CORPUS}android/uiautomator_systemui_notification_shade_es.xml`);
  const r = run("android", [{
    step: "Verify the USB notification",
    screen: s,
    kind: "assertText",
    point: { x: 300, y: 935 },
    expected: "Depuración USB activada",
  }], "strict");
  const a = first(r);
  assertEquals(a.equals, "Depuración USB activada");
  assertEquals(a.selector?.id, "android:id/title");
  assert(a.selector?.childOf?.text !== undefined, JSON.stringify(a));
  assert(!holdsValue(a.selector!, ["depuración usb activada"]), JSON.stringify(a));
});

Deno.test("strict refuses, saying why, where no row context picks the node: two lock-screen notifications alike, Settings rows with no id, a web list", () => {
  // the lock screen: two notifications both titled "Conteúdo oculto"
  const lock = screen(`${CORPUS}android/uiautomator_lockscreen_2018_720p_pt.xml`);
  const second = find(lock, (n) => n.resourceId === "android:id/expand_button")[1]!;
  const reason = "no unique id, testId or contentDescription, alone or within a unique parent " +
    "or row (strict mode)";
  const cases: [string, "android" | "web", ScriptAction][] = [
    ["lock screen", "android", {
      step: "Expand",
      screen: lock,
      kind: "tap",
      point: centre(second),
    }],
    ["Settings", "android", {
      step: "Open Google's setting",
      screen: screen(`${CORPUS}android/uiautomator_settings_display_over_apps_list.xml`),
      kind: "tap",
      point: { x: 500, y: 1000 },
    }],
    ["web list", "web", {
      step: "Verify the third item",
      screen: screen(`${SNAPSHOTS}web_form.chrome.json`),
      kind: "assertText",
      point: { x: 60, y: 187 },
      expected: "Three",
    }],
  ];
  for (const [name, platform, action] of cases) {
    const r = run(platform, [action], "strict");
    assertEquals(r.trail.trail[0]!.recordable, false, name);
    assertEquals(r.warnings.length, 1, name);
    assert(r.warnings[0]!.endsWith(reason), `${name}: ${r.warnings[0]}`);
    // adaptive still writes the step
    assert(run(platform, [action]).trail.trail[0]!.recording?.length === 1, name);
  }
});

Deno.test("strict, Gmail inbox: the conversation row's own id is unique, taken alone", () => {
  const s = screen(`${CORPUS}android/uiautomator_gmail_inbox.xml`);
  const r = run("android", [{
    step: "Open the conversation",
    screen: s,
    kind: "tap",
    point: { x: 500, y: 750 },
  }], "strict");
  assertEquals(r.warnings, []);
  assertEquals(first(r).selector, {
    id: "com.google.android.gm:id/viewified_conversation_item_view",
  });
});

Deno.test("carrier, web search results (a real corpus page): a point on a result's padding asserts the subtitle, not the result labelled 'Wireless Mouse - Bluetooth, Black - $29.99'", () => {
  // trailblaze-playwright-native-sample-app/search-duplicates.html in Chromium, captured by
  // tests/_fixtures/snapshot_capture_fixture.ts: each result is a button whose aria-label joins
  // its title, subtitle and price
  const s = screen(`${SNAPSHOTS}web_search_duplicates.chrome.json`);
  const result = "#results-list > button.result-item:nth-of-type(1)";
  const script: ScriptAction[] = [{
    step: "Verify the first result's variant",
    screen: s,
    kind: "assertText",
    point: { x: 25, y: 280 }, // inside the button, beside its three lines
    expected: "Bluetooth, Black",
  }];
  const r = run("web", script);
  const a = first(r);
  assertEquals([a.kind, a.equals], ["assertText", "Bluetooth, Black"]);
  assertEquals(chainOf(a)[0], { cssPath: `${result} > div.result-subtitle` });
  assert(!JSON.stringify(a).includes("Wireless Mouse - "), JSON.stringify(a));
  assert(explain(r).includes("inside the listitem"), explain(r));
  // v2 asserted the whole result, whose text is all three lines
  assertEquals(chainOf(first(run("web", script, "adaptive", "v2")))[0], { cssPath: result });
  // on the subtitle's own text it was the subtitle already
  const onText = run("web", [{ ...script[0]!, point: { x: 60, y: 243 } }]);
  assertEquals(chainOf(first(onText))[0], { cssPath: `${result} > div.result-subtitle` });
});
