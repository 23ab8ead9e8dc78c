/**
 * Heuristics v2's Android target choice on real page sources (captures over the corpus screens
 * in `testdata/android_v2/`): which node an action hit and how it is named. Each case checks v2's
 * trail and that v1's stays as stored trails named it (the `v1/` goldens, byte for byte).
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { loadCaptureFile } from "../../_fixtures/optimizer_support.ts";
import { optimize, type OptimizeResult } from "../../../engine/optimizer/optimize.ts";
import { projectTrail } from "../../../engine/optimizer/trail_projection.ts";
import { generatedIdReason } from "../../../engine/optimizer/generated.ts";
import { descendantLabelCandidates } from "../../../engine/optimizer/android_labels.ts";
import { androidTarget } from "../../../engine/optimizer/android_target.ts";
import { inputSlotName } from "../../../engine/nl/naming.ts";
import { buildCapture } from "../../_fixtures/optimizer_support.ts";
import { ScreenTable } from "../../../engine/screens/screen_table.ts";
import { parseAndroid } from "../../../engine/screens/parse_android.ts";
import { androidCascade, resolveTarget } from "../../../engine/playback/cascade.ts";
import { targetFromTrailSelectors } from "../../../engine/playback/from_trail.ts";
import { ScreenFinder } from "../../../drivers/android/screen_lookup.ts";
import { makeNode } from "../../../engine/screens/ui_node.ts";
import {
  type Selector,
  type SelectorMode,
  textAnchors,
  type TrailAction,
} from "../../../engine/trail/trail.ts";

const DIR = new URL("../../testdata/android_v2/", import.meta.url);
const CAPTURES = [
  "settings",
  "fb",
  "theapp",
  "tasks",
  "calc",
  "wdio",
  "gmail",
  "tiktok",
  "messages",
];

async function run(name: string, heuristics: string, mode?: SelectorMode) {
  const c = await loadCaptureFile(new URL(`${name}.capture.json`, DIR).pathname, name);
  return optimize(c.events, c.screens, { heuristics, ...(mode ? { mode } : {}) });
}

function action(r: OptimizeResult, step: number, index: number): TrailAction {
  const a = r.trail.trail[step]?.recording?.[index];
  assert(a, `no action ${index} in step ${step}`);
  return a;
}

/** The selector an action leads with (its own, or the first of its chain). */
function lead(a: TrailAction): Selector | undefined {
  return a.selector ?? a.selectors?.[0];
}

for (const name of CAPTURES) {
  for (const mode of ["adaptive", "strict", "flexible"] as const) {
    Deno.test(`optimize() under v1 keeps the ${name} capture's ${mode} trail byte for byte`, async () => {
      const c = await loadCaptureFile(new URL(`${name}.capture.json`, DIR).pathname, name);
      const got = projectTrail(c.events, { screens: c.screens, mode, heuristics: "v1" }).yaml;
      assertEquals(got, await Deno.readTextFile(new URL(`v1/${name}.${mode}.yaml`, DIR)));
    });
  }
}

Deno.test("optimize() under v2 names an unlabelled Compose row by its unique child text, not class + index", async () => {
  const v2 = await run("settings", "v2");
  assertEquals(lead(action(v2, 0, 0)), { text: "pet_time_lock" });
  const v1 = await run("settings", "v1");
  assertEquals(lead(action(v1, 0, 0)), { className: "android.view.View", index: 6 });
});

Deno.test("optimize() under v2 names Compose icon buttons by their child's content description", async () => {
  const v2 = await run("settings", "v2");
  assertEquals(lead(action(v2, 2, 0)), { contentDescription: "Navigate up" });
  assertEquals(lead(action(v2, 3, 0)), { contentDescription: "Search" });
  const strict = await run("settings", "v2", "strict");
  assertEquals(action(strict, 2, 0).selector, { contentDescription: "Navigate up" });
});

Deno.test("optimize() under v2 types into the EditText under the point, not the label over it", async () => {
  const v2 = await run("fb", "v2");
  assertEquals(lead(action(v2, 0, 0)), { contentDescription: "Celular o correo electrónico," });
  const e = v2.explain[0]!;
  assert(e.lines.some((l) => l.startsWith("input target: the editable android.widget.EditText")));
  const v1 = await run("fb", "v1");
  assertEquals(lead(action(v1, 0, 0)), { contentDescription: "Celular o correo electrónico" });
});

Deno.test("optimize() under v2 names a tap by its focusable, named ancestor (an accessibility id)", async () => {
  const v2 = await run("theapp", "v2");
  assertEquals(lead(action(v2, 0, 2)), { contentDescription: "loginBtn" });
  const v1 = await run("theapp", "v1");
  assertEquals(lead(action(v1, 0, 2)), {
    className: "android.widget.TextView",
    childOf: { contentDescription: "loginBtn" },
  });
});

Deno.test("optimize() under v2 scrolls the scrollable container under the point, not a row in it", async () => {
  const v2 = await run("tasks", "v2");
  assertEquals(action(v2, 1, 1), {
    kind: "scroll",
    selector: { id: "com.google.android.apps.tasks:id/tasks_list" },
    direction: "down",
  });
  const v1 = await run("tasks", "v1");
  assertEquals(lead(action(v1, 1, 1))?.childOf, { contentDescription: "Task 7" });
});

Deno.test("optimize() under v2 writes a swipe with no scrollable container under it as a screen swipe", async () => {
  const v2 = await run("theapp", "v2");
  assertEquals(action(v2, 0, 3), { kind: "swipe", direction: "up" });
  assert(v2.explain[3]!.lines.includes("no scrollable container under the point: a screen swipe"));
  const v1 = await run("theapp", "v1");
  assertEquals(lead(action(v1, 0, 3)), { className: "android.widget.FrameLayout", index: 4 });
});

Deno.test("optimize() under v2 keeps the calculator's real resource id eq", async () => {
  const v2 = await run("calc", "v2");
  assertEquals(action(v2, 0, 3).selector, { id: "com.google.android.calculator:id/eq" });
  const v1 = await run("calc", "v1");
  assertEquals(lead(action(v1, 0, 3)), { contentDescription: "equals" });
});

for (const id of ["eq", "ok", "go", "up", "fab"]) {
  Deno.test(`generatedIdReason() under v2 accepts the short resource name ${id} on a real screen`, () => {
    const calc = ScreenTable.from(parseAndroid(
      Deno.readTextFileSync(new URL("screens/uiautomator_google_calculator.xml", DIR)),
    ));
    assertEquals(generatedIdReason(`com.app:id/${id}`, { level: 2, screen: calc }), undefined);
  });
}

Deno.test("generatedIdReason() under v2 flags short names with digits, and letters-only ones in bulk", async () => {
  assertEquals(generatedIdReason("com.app:id/r7", { level: 2 }), "an obfuscated resource name");
  assertEquals(generatedIdReason("com.app:id/ak2", { level: 2 }), "an obfuscated resource name");
  const tiktok = ScreenTable.from(parseAndroid(
    await Deno.readTextFile(
      new URL(
        "../../../../shared/corpus/android/appium-source_tiktoklite_signup_id.xml",
        import.meta.url,
      ),
    ),
  ));
  assertEquals(
    generatedIdReason("com.zhiliaoapp.musically.go:id/bj", { level: 2, screen: tiktok }),
    "an obfuscated resource name (11 short ones on the screen)",
  );
  assertEquals(
    generatedIdReason("com.zhiliaoapp.musically.go:id/bsb", { level: 2, screen: tiktok }),
    "an obfuscated resource name (11 short ones on the screen)",
  );
  // v1 is unchanged: every short resource name is obfuscated.
  assertEquals(generatedIdReason("com.app:id/eq"), "an obfuscated resource name");
});

Deno.test("descendantLabelCandidates() skips a nested control's label and an icon glyph", () => {
  const b = (x: number) => ({ x, y: 0, w: 10, h: 10 });
  const row = makeNode({
    className: "android.view.View",
    clickable: true,
    bounds: { x: 0, y: 0, w: 100, h: 10 },
    children: [
      makeNode({ className: "android.widget.TextView", text: "\u{F02EB}", bounds: b(0) }),
      makeNode({
        className: "android.widget.Button",
        clickable: true,
        bounds: b(20),
        children: [makeNode({ className: "android.view.View", contentDescription: "Star" })],
      }),
      makeNode({ className: "android.widget.TextView", text: "Milk", bounds: b(40) }),
    ],
  });
  const t = ScreenTable.from(makeNode({ className: "hierarchy", children: [row] }));
  assertEquals(descendantLabelCandidates(t, t.indexOf(row)).map((c) => c.selector), [
    { text: "Milk" },
  ]);
});

Deno.test("descendantLabelCandidates() names nothing when the control has its own label or id", () => {
  const child = () => makeNode({ className: "android.view.View", contentDescription: "Inner" });
  for (
    const own of [{ contentDescription: "Outer" }, { resourceId: "com.app:id/outer" }, {
      testId: "outer",
    }]
  ) {
    const c = makeNode({
      className: "android.view.View",
      clickable: true,
      ...own,
      children: [child()],
    });
    const t = ScreenTable.from(makeNode({ className: "hierarchy", children: [c] }));
    assertEquals(descendantLabelCandidates(t, t.indexOf(c)), []);
  }
});

Deno.test("optimize() under v2 names a React Native field's slot from its cleaned id, not the library prefix", async () => {
  const v2 = await run("wdio", "v2");
  assertEquals(action(v2, 2, 0).text, "{{textInput}}");
  assertEquals(v2.trail.config.memory?.textInput, "hello world");
  const v1 = await run("wdio", "v1");
  assertEquals(action(v1, 2, 0).text, "{{rne}}");
});

Deno.test("inputSlotName() with cleanIds drops a library prefix and keeps an id of noise words", () => {
  const field = makeNode({
    className: "android.widget.EditText",
    resourceId: "RNE__Input__text-input",
    hint: "Type something",
  });
  assertEquals(inputSlotName(field, "Fill the form", { cleanIds: true }), "textInput");
  assertEquals(inputSlotName(field, "Fill the form"), "rne");
  const named = makeNode({ className: "android.widget.EditText", resourceId: "RNE__Input__city" });
  assertEquals(inputSlotName(named, "Fill the form", { cleanIds: true }), "city");
});

Deno.test("optimize() under v2 says which prompt an input slot's value came from", async () => {
  const v2 = await run("wdio", "v2");
  assert(v2.explain[6]!.lines.includes("input slot textInput from a value of the prompt"));
  const v1 = await run("wdio", "v1");
  assert(v1.explain[6]!.lines.includes("input slot rne from a value of the system prompt"));
  const field = makeNode({
    className: "android.widget.EditText",
    bounds: { x: 0, y: 0, w: 100, h: 40 },
  });
  const screen = {
    platform: "android" as const,
    format: "uiautomator2" as const,
    root: makeNode({
      className: "hierarchy",
      bounds: { x: 0, y: 0, w: 100, h: 40 },
      children: [field],
    }),
    width: 100,
    height: 40,
  };
  const c = buildCapture("android", [{
    step: "Search",
    screen,
    kind: "inputText",
    point: { x: 5, y: 5 },
    text: "Lisbon",
  }], {
    systemPrompt: "Search for Lisbon",
  });
  const r = optimize(c.events, c.screens, { heuristics: "v2" });
  assert(r.explain[0]!.lines.some((l) => l.endsWith("from a value of the system prompt")));
});

Deno.test("descendantLabelCandidates() takes a child's text over a description that summarises it", () => {
  const bubble = makeNode({
    className: "android.view.View",
    clickable: true,
    children: [makeNode({
      className: "android.widget.TextView",
      text: "Hiii",
      contentDescription: "You said  Hiii 12:30 pm .",
    })],
  });
  const t = ScreenTable.from(makeNode({ className: "hierarchy", children: [bubble] }));
  assertEquals(descendantLabelCandidates(t, t.indexOf(bubble)).map((c) => c.selector), [
    { text: "Hiii" },
  ]);
});

Deno.test("descendantLabelCandidates() names nothing on a node that is not clickable (a list)", () => {
  const list = makeNode({
    className: "androidx.recyclerview.widget.RecyclerView",
    scrollable: true,
    children: [makeNode({ className: "android.widget.TextView", text: "Sign up" })],
  });
  const t = ScreenTable.from(makeNode({ className: "hierarchy", children: [list] }));
  assertEquals(descendantLabelCandidates(t, t.indexOf(list)), []);
});

Deno.test("androidTarget() climbs a tap to a focusable, named ancestor but not past a scrollable one", () => {
  const box = { x: 0, y: 0, w: 100, h: 100 };
  const label = () =>
    makeNode({ className: "android.widget.TextView", text: "Login", bounds: box });
  const button = makeNode({
    className: "android.view.ViewGroup",
    contentDescription: "loginBtn",
    attrs: { focusable: "true" },
    bounds: box,
    children: [label()],
  });
  const pager = makeNode({
    className: "androidx.viewpager.widget.ViewPager",
    resourceId: "com.app:id/pager",
    scrollable: true,
    attrs: { focusable: "true" },
    bounds: box,
    children: [label()],
  });
  for (const [parent, climbs] of [[button, true], [pager, false]] as const) {
    const t = ScreenTable.from(
      makeNode({ className: "hierarchy", bounds: box, children: [parent] }),
    );
    const hit = t.indexOf(parent.children[0]!);
    const got = androidTarget(t, hit, { x: 50, y: 50 }, "tap").node;
    assertEquals(got, climbs ? t.indexOf(parent) : hit);
  }
});

Deno.test("optimize() under v2 scrolls a list a dump marks not scrollable, and types only into a field under the point", async () => {
  const gmail = parseAndroid(
    await Deno.readTextFile(
      new URL("../../../../shared/corpus/android/uiautomator_gmail_inbox.xml", import.meta.url),
    ),
  );
  const center = { x: 540, y: 1200 };
  const c = buildCapture("android", [
    { step: "Scroll the inbox", screen: gmail, kind: "scroll", point: center, direction: "down" },
    { step: "Scroll the inbox", screen: gmail, kind: "inputText", point: center, text: "zz" },
  ]);
  const r = optimize(c.events, c.screens, { heuristics: "v2" });
  assertEquals(action(r, 0, 0).selector, { id: "com.google.android.gm:id/thread_list_view" });
  // No field under the point: the search box elsewhere on the screen is not the target.
  assert(lead(action(r, 0, 1))?.id !== "com.google.android.gm:id/open_search");
});

/** Every selector of an action, fallbacks and `childOf` parents included. */
function allSelectors(a: TrailAction): Selector[] {
  const out: Selector[] = [];
  for (const s of [...(a.selector ? [a.selector] : []), ...(a.selectors ?? [])]) {
    for (let p: Selector | undefined = s; p !== undefined; p = p.childOf) out.push(p);
  }
  return out;
}

Deno.test("optimize() under v2 scopes Android row controls by a labelled ancestor, never a text-only childOf, and the Android lookup finds each tapped node", async () => {
  // A text-only `childOf` (a web row anchor) has no Android lookup: the cascade scopes by an
  // ancestor's id or content description only (`new UiSelector().description(…).childSelector(…)`).
  const dir = new URL("../../../../shared/corpus/android/", import.meta.url);
  let taps = 0;
  let repeated = 0;
  let scoped = 0;
  for await (const f of Deno.readDir(dir)) {
    if (!f.name.endsWith(".xml")) continue;
    const screen = parseAndroid(await Deno.readTextFile(new URL(f.name, dir)));
    const table = ScreenTable.from(screen, { engine: "reference" });
    const script = [];
    const tapped: number[] = [];
    for (let i = 0; i < table.size; i++) {
      const n = table.node(i);
      if (!n.clickable || !n.visible || n.bounds.w <= 0 || n.bounds.h <= 0) continue;
      const label = n.text ?? n.contentDescription;
      if (label && table.count(n.text ? { text: label } : { contentDescription: label }) > 1) {
        repeated++;
      }
      tapped.push(i);
      script.push({
        step: `Tap ${i}`,
        screen,
        kind: "tap" as const,
        point: { x: n.bounds.x + n.bounds.w / 2, y: n.bounds.y + n.bounds.h / 2 },
      });
    }
    taps += script.length;
    const cap = buildCapture("android", script);
    const finder = new ScreenFinder(screen);
    for (const mode of ["adaptive", "flexible", "strict"] as const) {
      const r = optimize(cap.events, cap.screens, { heuristics: "v2", mode });
      for (const [k, step] of r.trail.trail.entries()) {
        const a = step.recording?.[0];
        if (!a) continue;
        for (const s of allSelectors(a)) {
          assertEquals(textAnchors(s), undefined, `${f.name} ${mode}: ${JSON.stringify(a)}`);
        }
        const lead = a.selector ?? a.selectors?.[0];
        if (mode !== "adaptive" || lead?.childOf === undefined) continue;
        // the scoped selector plays: the Android cascade finds the control the session tapped
        // (or a node inside it, as v2 names a control by its child), so tapping it taps there
        scoped++;
        const sels = [...(a.selector ? [a.selector] : []), ...(a.selectors ?? [])];
        const res = await resolveTarget(finder, androidCascade(targetFromTrailSelectors(sels)));
        const got = res.element?.bounds;
        const want = table.node(tapped[k]!).bounds;
        assert(got, `${f.name}: ${JSON.stringify(lead)} found nothing`);
        const [cx, cy] = [got.x + got.w / 2, got.y + got.h / 2];
        assert(
          cx >= want.x && cx <= want.x + want.w && cy >= want.y && cy <= want.y + want.h,
          `${f.name}: ${JSON.stringify(lead)} found ${JSON.stringify(got)}, tapped ${
            JSON.stringify(want)
          }`,
        );
      }
    }
  }
  // the corpus has controls a web page would anchor to rows (labels shown more than once)
  assert(taps > 100, `${taps} taps`);
  assert(repeated > 5, `${repeated} repeated labels`);
  assert(scoped > 10, `${scoped} scoped selectors`);
});

Deno.test("optimize() under v2 taps Gmail's Compose button drawn over the thread list, not the deeper list", async () => {
  for (const mode of ["adaptive", "strict"] as const) {
    const v2 = await run("gmail", "v2", mode);
    assertEquals(lead(action(v2, 4, 0)), { id: "com.google.android.gm:id/compose_button" }, mode);
  }
  const v1 = await run("gmail", "v1");
  assertEquals(lead(action(v1, 4, 0)), { id: "com.google.android.gm:id/thread_list_view" });
});

Deno.test("optimize() under v2 taps TikTok's clickable sign-in text, a sibling drawn after the list", async () => {
  const v2 = await run("tiktok", "v2");
  assertEquals(lead(action(v2, 2, 0)), { text: "Sudah memiliki akun? Masuk" });
  const v1 = await run("tiktok", "v1");
  assertEquals(lead(action(v1, 2, 0)), { className: "androidx.recyclerview.widget.RecyclerView" });
});

Deno.test("androidTarget() sends a tap to the clickable node drawn on top, by drawing-order", () => {
  const box = { x: 0, y: 0, w: 100, h: 100 };
  const row = makeNode({ className: "android.widget.TextView", text: "Row", bounds: box });
  const list = makeNode({
    className: "androidx.recyclerview.widget.RecyclerView",
    resourceId: "com.app:id/list",
    attrs: { focusable: "true", "drawing-order": "2" },
    bounds: box,
    children: [makeNode({ className: "android.widget.FrameLayout", bounds: box, children: [row] })],
  });
  const fab = makeNode({
    className: "android.widget.Button",
    resourceId: "com.app:id/fab",
    clickable: true,
    attrs: { "drawing-order": "1" },
    bounds: { x: 50, y: 50, w: 50, h: 50 },
  });
  for (const [order, onTop] of [["3", true], ["1", false]] as const) {
    fab.attrs!["drawing-order"] = order; // drawn after the list, then before it
    const t = ScreenTable.from(
      makeNode({ className: "hierarchy", bounds: box, children: [fab, list] }),
    );
    const hit = t.hitTest({ x: 60, y: 60 });
    assertEquals(t.node(hit), row); // the deepest node: the list's row
    const got = androidTarget(t, hit, { x: 60, y: 60 }, "tap").node;
    // drawn beneath the list, the button does not get the tap: the list (focusable, named) does
    assertEquals(got, t.indexOf(onTop ? fab : list), `fab drawing-order ${order}`);
  }
});

Deno.test("optimize() under v2 asserts Gmail's signed-in account on the disc whose description carries it", async () => {
  const desc =
    "Signed in as Test QA testqadbiz8@dbizs-ub22-1912-101.zimbraeng.com\nAccount and settings.";
  // the capture's memory holds the account: the description is asserted by the disc's id
  for (const mode of ["adaptive", "strict", "flexible"] as const) {
    const a = action(await run("gmail", "v2", mode), 3, 0);
    assertEquals(a.kind, "assertVisible", mode);
    assertEquals(lead(a), { id: "com.google.android.gm:id/selected_account_disc_gmail" }, mode);
    assertEquals(a.equals, undefined, mode);
  }
  // with no slot value in it, the disc's description is the selector that checks it
  const screen = parseAndroid(
    await Deno.readTextFile(new URL("screens/uiautomator_gmail_inbox.xml", DIR)),
  );
  const c = buildCapture("android", [{
    step: "Verify the signed-in account is shown",
    screen,
    kind: "assertText",
    point: { x: 971, y: 222 },
    expected: desc,
  }]);
  const plain = action(optimize(c.events, c.screens, { heuristics: "v2" }), 0, 0);
  assertEquals(plain.kind, "assertVisible");
  assertEquals(lead(plain), { contentDescription: desc });
  const v1 = action(await run("gmail", "v1"), 3, 0);
  assertEquals(v1.kind, "assertText");
  assertEquals(lead(v1), { id: "com.google.android.gm:id/og_apd_internal_image_view" });
});

Deno.test("androidTarget() keeps a tap on a dialog's content over a scrim or under a dismiss barrier", () => {
  const screen = { x: 0, y: 0, w: 1000, h: 2000 };
  const cancel = makeNode({
    className: "android.widget.Button",
    contentDescription: "Cancel",
    clickable: true,
    bounds: { x: 500, y: 1000, w: 200, h: 100 },
  });
  const title = makeNode({
    className: "android.view.View",
    contentDescription: "Allow overlay",
    attrs: { focusable: "true" },
    bounds: { x: 100, y: 800, w: 800, h: 100 },
  });
  const dialog = makeNode({
    className: "android.view.View",
    bounds: { x: 50, y: 700, w: 900, h: 500 },
    children: [title, cancel],
  });
  const scrim = () =>
    makeNode({
      className: "android.view.View",
      contentDescription: "Dismiss",
      clickable: true,
      bounds: screen,
    });
  // Flutter lists its barrier after the dialog; a bottom sheet draws its scrim before it.
  for (const kids of [[dialog, scrim()], [scrim(), dialog]]) {
    const where = kids[0] === dialog ? "barrier after the dialog" : "scrim before it";
    const t = ScreenTable.from(
      makeNode({ className: "hierarchy", bounds: screen, children: kids }),
    );
    for (const [node, p] of [[cancel, { x: 600, y: 1050 }], [title, { x: 300, y: 850 }]] as const) {
      const got = androidTarget(t, t.indexOf(node), p, "tap");
      assertEquals(got.node, t.indexOf(node), `${node.contentDescription}, ${where}`);
    }
  }
});

Deno.test("optimize() under v2 names Facebook's sign-in button by its unique text before an index", async () => {
  const v2 = action(await run("fb", "v2"), 0, 2);
  assertEquals(v2.selectors, [
    { text: "Iniciar sesión" },
    { contentDescription: "Iniciar sesión", index: 0 },
    { xy: [540, 1471], viewport: { width: 1080, height: 2400 } },
  ]);
  const v1 = action(await run("fb", "v1"), 0, 2);
  assertEquals(lead(v1), { contentDescription: "Iniciar sesión", index: 0 });
});

Deno.test("optimize() under v2 lists a bare resource name once in a fallback chain, as id (not again as testId)", async () => {
  // (the bubble's description, with its time in it, is no selector under v2: the id leads)
  const r = await run("messages", "v2");
  const v2 = action(r, 1, 0);
  assertEquals(v2.selector, { id: "message_text", index: 5 });
  assert(!r.explain[1]!.lines.some((l) => l.includes(`"testId":"message_text"`)));
  assert(r.explain[1]!.lines.some((l) => l.includes(`{"id":"message_text","index":5}`)));
  const v1 = action(await run("messages", "v1"), 1, 0);
  assertEquals(v1.selectors?.slice(1, 3), [
    { id: "message_text", index: 5 },
    { testId: "message_text", index: 5 },
  ]);
});

Deno.test("optimize() under v2 taps TikTok's close button by its unique obfuscated id bf2 before an ImageView index", async () => {
  const bf2 = "com.zhiliaoapp.musically.go:id/bf2";
  const v2 = action(await run("tiktok", "v2"), 1, 0);
  assertEquals(v2.selectors, [
    { id: bf2 },
    { xy: [1006, 597], viewport: { width: 1080, height: 2094 } },
  ]);
  assertEquals(action(await run("tiktok", "v2", "flexible"), 1, 0).selector, { id: bf2 });
  // strict takes a durable id only: an R8 resource name is renamed by the next build
  const strict = await run("tiktok", "v2", "strict");
  assertEquals(strict.trail.trail[1]?.recordable, false);
  // the rule still calls it obfuscated (17 of the screen's 18 app ids are 2-3 characters)
  const tiktok = ScreenTable.from(parseAndroid(
    await Deno.readTextFile(new URL("screens/appium-source_tiktoklite_signup_id.xml", DIR)),
  ));
  assertEquals(
    generatedIdReason(bf2, { level: 2, screen: tiktok }),
    "an obfuscated resource name",
  );
  // a repeated obfuscated id (`r7` on every sign-in row) stays out; the row keeps its text
  assertEquals(lead(action(await run("tiktok", "v2"), 0, 0)), { text: "Lanjutkan dengan Google" });
  const v1 = action(await run("tiktok", "v1"), 1, 0);
  assertEquals(lead(v1), { className: "android.widget.ImageView", index: 1 });
});

/** Every string a selector chain holds (properties of each selector and its `childOf`s). */
function selectorStrings(a: TrailAction): string[] {
  return allSelectors(a).flatMap((s) =>
    Object.values(s).filter((v): v is string => typeof v === "string")
  );
}

const CLOCK = /\d{1,2}:\d{2}/;

Deno.test("optimize() under v2 never selects a Messages bubble by a description holding its time", async () => {
  const screen = parseAndroid(
    await Deno.readTextFile(
      new URL("screens/uiautomator_google_messages_compose_conversation.xml", DIR),
    ),
  );
  // the bubble "Hiii" reads "You said  Hiii 12:30 pm ." to TalkBack
  const bubble = { x: 658, y: 1040 };
  const c = buildCapture("android", [
    {
      step: "Type the message",
      screen,
      kind: "inputText",
      point: { x: 300, y: 1513 },
      text: "Hiii",
    },
    { step: "Send it", screen, kind: "tap", point: { x: 658, y: 1513 } },
    { step: "Open the sent message", screen, kind: "tap", point: bubble },
    {
      step: "Verify the message was sent",
      screen,
      kind: "assertText",
      point: bubble,
      expected: "Hiii",
    },
  ]);
  for (const mode of ["adaptive", "flexible", "strict"] as const) {
    const r = optimize(c.events, c.screens, { heuristics: "v2", mode });
    for (const [k, step] of r.trail.trail.entries()) {
      for (const a of step.recording ?? []) {
        for (const s of selectorStrings(a)) assert(!CLOCK.test(s), `${mode} step ${k}: ${s}`);
      }
    }
  }
  const v2 = optimize(c.events, c.screens, { heuristics: "v2" });
  const assertion = action(v2, 3, 0);
  assertEquals(assertion.equals, "{{input}}");
  assertEquals(assertion.selector, { id: "message_text", index: 3 });
  assert(
    v2.explain[3]!.lines.some((l) =>
      l.includes("You said  Hiii 12:30 pm .") && l.includes('dynamic: holds the time "12:30 pm"')
    ),
    v2.explain[3]!.lines.join("\n"),
  );
  // strict has no durable exact selector for a message left: the agent handles the check
  const strict = optimize(c.events, c.screens, { heuristics: "v2", mode: "strict" });
  assertEquals(strict.trail.trail[3]?.recordable, false);
  // v1 keeps the description
  const v1 = optimize(c.events, c.screens, { heuristics: "v1" });
  assertEquals(lead(action(v1, 3, 0)), { contentDescription: "You said  Hiii 12:30 pm ." });
});

Deno.test("optimize() under v2 reads and asserts the Messages capture's alerts without their timestamps", async () => {
  for (const mode of ["adaptive", "flexible", "strict"] as const) {
    const r = await run("messages", "v2", mode);
    for (const step of r.trail.trail) {
      for (const a of step.recording ?? []) {
        for (const s of selectorStrings(a)) assert(!CLOCK.test(s), `${mode}: ${s}`);
      }
    }
  }
  const v2 = await run("messages", "v2");
  assertEquals(action(v2, 1, 0).selector, { id: "message_text", index: 5 });
  assertEquals(action(v2, 2, 0).selector, { id: "message_text", index: 10 });
  assertEquals(action(v2, 2, 0).equals, "ALERT: CPU usage 11.1% on Keval");
});

Deno.test("optimize() under v2 asserts Gmail's account disc without the email typed earlier in its selector", async () => {
  const email = "testqadbiz8@dbizs-ub22-1912-101.zimbraeng.com";
  const desc = `Signed in as Test QA ${email}\nAccount and settings.`;
  const screen = parseAndroid(
    await Deno.readTextFile(new URL("screens/uiautomator_gmail_inbox.xml", DIR)),
  );
  const c = buildCapture("android", [
    {
      step: `Search for ${email}`,
      screen,
      kind: "inputText",
      point: { x: 540, y: 222 },
      text: email,
    },
    {
      step: "Verify the signed-in account is shown",
      screen,
      kind: "assertText",
      point: { x: 971, y: 222 },
      expected: desc,
    },
  ]);
  for (const mode of ["adaptive", "strict", "flexible"] as const) {
    const r = optimize(c.events, c.screens, { heuristics: "v2", mode });
    assertEquals(action(r, 0, 0).text, "{{searchTerm}}", mode);
    const a = action(r, 1, 0);
    for (const s of selectorStrings(a)) assert(!s.includes(email), `${mode}: ${s}`);
    assertEquals(a.kind, "assertVisible", mode);
    assertEquals(lead(a), { id: "com.google.android.gm:id/selected_account_disc_gmail" }, mode);
    assert(
      r.explain[1]!.lines.some((l) => l.includes("{{searchTerm}}")),
      r.explain[1]!.lines.join("\n"),
    );
  }
  // v1 keeps what it chose
  const v1 = action(optimize(c.events, c.screens, { heuristics: "v1" }), 1, 0);
  assertEquals(lead(v1), { id: "com.google.android.gm:id/og_apd_internal_image_view" });
});

/** Gmail's inbox from the corpus, as the device dumped it. */
async function gmailInbox() {
  return parseAndroid(
    await Deno.readTextFile(
      new URL("../../../../shared/corpus/android/uiautomator_gmail_inbox.xml", import.meta.url),
    ),
  );
}

const GMAIL_EMAIL = "testqadbiz8@dbizs-ub22-1912-101.zimbraeng.com";
const GMAIL_DISC = { id: "com.google.android.gm:id/selected_account_disc_gmail" };
const GMAIL_AVATAR = { id: "com.google.android.gm:id/og_apd_internal_image_view" };
const AVATAR_POINT = { x: 967, y: 222 }; // inside the avatar ImageView, inside the disc

Deno.test("optimize() under v2 checks the email typed earlier on Gmail's avatar for presence, never as the image's text", async () => {
  const screen = await gmailInbox();
  const c = buildCapture("android", [
    {
      step: `Search for ${GMAIL_EMAIL}`,
      screen,
      kind: "inputText",
      point: { x: 540, y: 222 },
      text: GMAIL_EMAIL,
    },
    {
      step: "Verify the account email is shown",
      screen,
      kind: "assertText",
      point: AVATAR_POINT,
      expected: GMAIL_EMAIL,
    },
  ]);
  for (const mode of ["adaptive", "strict", "flexible"] as const) {
    const r = optimize(c.events, c.screens, { heuristics: "v2", mode });
    assertEquals(action(r, 0, 0).text, "{{searchTerm}}", mode);
    const a = action(r, 1, 0);
    // the avatar shows no text: the player's assertText would read "" and fail
    assertEquals(a.kind, "assertVisible", mode);
    assertEquals(a.equals, undefined, mode);
    assertEquals(a.matches, undefined, mode);
    assertEquals(lead(a), GMAIL_DISC, mode);
    for (const s of selectorStrings(a)) assert(!s.includes(GMAIL_EMAIL), `${mode}: ${s}`);
    const why = r.explain[1]!.lines.join("\n");
    assert(why.includes("{{searchTerm}}"), why);
    assert(why.includes("shows no text"), why);
  }
  // v1 keeps what it wrote
  for (const mode of ["adaptive", "strict", "flexible"] as const) {
    const v1 = action(optimize(c.events, c.screens, { heuristics: "v1", mode }), 1, 0);
    assertEquals(v1.kind, "assertText", mode);
    assertEquals(lead(v1), GMAIL_AVATAR, mode);
    assertEquals(v1.equals, "{{searchTerm}}", mode);
  }
});

Deno.test("optimize() under v2 checks an email asserted on Gmail's avatar by the disc's description that holds it", async () => {
  const desc = `Signed in as Test QA ${GMAIL_EMAIL}\nAccount and settings.`;
  const c = buildCapture("android", [{
    step: "Verify the account email is shown",
    screen: await gmailInbox(),
    kind: "assertText",
    point: AVATAR_POINT,
    expected: GMAIL_EMAIL,
  }]);
  for (const mode of ["adaptive", "strict", "flexible"] as const) {
    const r = optimize(c.events, c.screens, { heuristics: "v2", mode });
    const a = action(r, 0, 0);
    assertEquals(a.kind, "assertVisible", mode);
    assertEquals(a.equals, undefined, mode);
    // finding the disc by its description checks the email in it
    assertEquals(lead(a), { contentDescription: desc }, mode);
  }
});

Deno.test("optimize() under v2 writes a presence check for an assertion on an image that carries no value at all", async () => {
  // the conversation's star: an ImageView with no text and no description, nor a frame with one
  const c = buildCapture("android", [{
    step: "Verify the email is starred",
    screen: await gmailInbox(),
    kind: "assertText",
    point: { x: 1017, y: 786 },
    expected: "Starred",
  }]);
  for (const mode of ["adaptive", "strict", "flexible"] as const) {
    const r = optimize(c.events, c.screens, { heuristics: "v2", mode });
    const a = action(r, 0, 0);
    assertEquals(a.kind, "assertVisible", mode);
    assertEquals(a.equals, undefined, mode);
    assertEquals(lead(a), { id: "com.google.android.gm:id/star" }, mode);
    const why = r.explain[0]!.lines.join("\n");
    assert(why.includes("shows no text"), why);
  }
  const v1 = action(optimize(c.events, c.screens, { heuristics: "v1" }), 0, 0);
  assertEquals(v1.kind, "assertText");
  assertEquals(v1.equals, "Starred");
});
