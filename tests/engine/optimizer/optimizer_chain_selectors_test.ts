/**
 * Heuristics v3's fallback chains on captures of real screens (the Android corpus dumps of
 * `testdata/android_v2/`, the iOS Safari source, real Chromium captures of the shop, the form and
 * the duplicate list, the golden examples): every selector a chain lists is unique on the screen
 * the action saw and picks the node the action hit (or a node inside it: a control's label), the
 * Android player's own cascade finds it there too, no selector holds a value the capture typed,
 * read or asserted, no generated id is listed, and strict mode stays one selector.
 */
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import {
  loadCaptureFile,
  type LoadedCapture,
  loadEventsFile,
} from "../../_fixtures/optimizer_support.ts";
import { optimize, type OptimizeResult } from "../../../engine/optimizer/optimize.ts";
import { ScreenTable } from "../../../engine/screens/screen_table.ts";
import { matchSelector } from "../../../engine/optimizer/selector_match.ts";
import { matchWeb } from "../../../engine/optimizer/anchors.ts";
import { generatedIdReason } from "../../../engine/optimizer/generated.ts";
import { androidCascade, resolveTarget } from "../../../engine/playback/cascade.ts";
import { targetFromTrailSelectors } from "../../../engine/playback/from_trail.ts";
import { ScreenFinder } from "../../../drivers/android/screen_lookup.ts";
import {
  type Selector,
  type SelectorMode,
  textAnchors,
  type TrailAction,
} from "../../../engine/trail/trail.ts";
import { escapeRegex } from "../../../engine/trail/regex.ts";
import { parseAndroid } from "../../../engine/screens/parse_android.ts";
import { buildCapture } from "../../_fixtures/optimizer_support.ts";

const DATA = new URL("../../testdata/", import.meta.url).pathname;

/** Captures of real screens: name → loader. */
const CAPTURES: Record<string, () => Promise<LoadedCapture>> = {};
for (
  const n of ["settings", "fb", "theapp", "tasks", "calc", "wdio", "gmail", "tiktok", "messages"]
) {
  CAPTURES[`android ${n}`] = () => loadCaptureFile(`${DATA}android_v2/${n}.capture.json`, n);
}
CAPTURES["ios safari"] = () => loadCaptureFile(`${DATA}ios_v2/safari.capture.json`, "safari");
for (const n of ["shop", "form", "dup"]) {
  CAPTURES[`web ${n}`] = () => loadCaptureFile(`${DATA}optimizer_v2/${n}.capture.json`, n);
}
for (const n of ["inventory", "merchant_email", "web_checkout"]) {
  CAPTURES[`golden ${n}`] = () => loadEventsFile(`${DATA}optimizer/${n}/events.jsonl`);
}

function chainOf(a: TrailAction): Selector[] {
  return a.selectors ?? (a.selector ? [a.selector] : []);
}

/** Values of the capture no selector may hold: typed, read, asserted, selected. */
function captureValues(c: LoadedCapture): { typed: Set<string>; own: Map<string, string[]> } {
  const typed = new Set<string>();
  const own = new Map<string, string[]>();
  const read = new Map<string, string>();
  for (const e of c.events) {
    if (e.type === "ActionCompleted" && e.data.value !== undefined) {
      read.set(e.data.actionId, e.data.value);
    }
  }
  for (const e of c.events) {
    if (e.type !== "ActionPerformed") continue;
    const d = e.data;
    if (d.kind === "inputText" && d.text !== undefined && d.text.trim().length >= 2) {
      typed.add(d.text.trim());
    }
    const mine = [d.expected, read.get(d.actionId), d.value].filter((v): v is string =>
      v !== undefined && v.trim() !== ""
    );
    own.set(d.actionId, mine.map((v) => v.trim()));
  }
  return { typed, own };
}

/** Does the selector (or its parent) find the element by the value? */
function holds(sel: Selector, value: string): boolean {
  const v = value.replace(/\s+/g, " ").trim();
  for (const f of [sel.text, sel.name, sel.ariaLabel, sel.contentDescription]) {
    if (f !== undefined && f.replace(/\s+/g, " ").trim() === v) return true;
  }
  if (sel.textRegex !== undefined && sel.textRegex === escapeRegex(v)) return true;
  return sel.childOf !== undefined && holds(sel.childOf, value);
}

interface Checked {
  actions: number;
  chains: number;
  selectors: number;
  playerChecked: number;
}

/** Checks every written chain of one projection against its captured screens. */
async function checkChains(
  name: string,
  c: LoadedCapture,
  r: OptimizeResult,
  mode: SelectorMode,
): Promise<Checked> {
  const out: Checked = { actions: 0, chains: 0, selectors: 0, playerChecked: 0 };
  const values = captureValues(c);
  const actionIds = c.events.flatMap((e) => e.type === "ActionPerformed" ? [e.data.actionId] : []);
  const tables = new Map<string, ScreenTable>();
  const table = (hash: string) => {
    let t = tables.get(hash);
    if (!t) {
      t = ScreenTable.from(c.screens.get(hash)!, { engine: "auto" });
      tables.set(hash, t);
    }
    return t;
  };
  for (const e of r.explain) {
    const a = e.written;
    if (!a || !e.target) continue;
    const chain = chainOf(a);
    if (chain.length === 0) continue;
    const where = `${name} ${mode} step ${e.step} action ${e.action} ${JSON.stringify(chain)}`;
    out.actions++;
    if (chain.length > 1) out.chains++;
    if (mode === "strict") assertEquals(chain.length, 1, where);
    assert(chain.length <= 5, `${where}: longer than five`);
    const keys = chain.map((s) => JSON.stringify(s));
    assertEquals(new Set(keys).size, keys.length, `${where}: a selector twice`);
    chain.forEach((s, k) => {
      if (s.xy !== undefined) assertEquals(k, chain.length - 1, `${where}: coordinates not last`);
    });
    const t = table(e.target.screen);
    const node = e.target.node;
    const end = t.subtreeEnd(node);
    const own = values.own.get(actionIds[e.action - 1]!) ?? [];
    const web = c.screens.get(e.target.screen)!.platform === "web";
    for (const s of chain) {
      out.selectors++;
      if (s.xy !== undefined) {
        // coordinates: the point the action acted on, inside the node it hit
        const b = t.node(node).bounds;
        const [x, y] = s.xy;
        assert(x >= b.x && x <= b.x + b.w && y >= b.y && y <= b.y + b.h, `${where}: ${x},${y}`);
        continue;
      }
      // the web player finds a text as the element shows it (its text, or its children's)
      const m = web && (s.text !== undefined || s.textRegex !== undefined)
        ? matchWeb(t, s, textAnchors(s))
        : matchSelector(t, s, 2);
      assertEquals(m.count, 1, `${where}: ${JSON.stringify(s)} matches ${m.count} nodes`);
      const at = m.indices[0]!;
      assert(
        at >= node && at < end,
        `${where}: ${JSON.stringify(s)} picks node ${at}, the action hit ${node}`,
      );
      if (s.id !== undefined && chain[0] !== s) {
        assertEquals(generatedIdReason(s.id), undefined, `${where}: a generated id`);
      }
      // a presence check of a text (assertVisible) is checked by the selector that holds it
      if (a.kind !== "assertVisible") {
        for (const v of own) {
          assert(!holds(s, v), `${where}: ${JSON.stringify(s)} holds its value ${v}`);
        }
      }
      if (a.kind !== "inputText" && a.kind !== "readText") {
        for (const v of values.typed) {
          assert(!holds(s, v), `${where}: ${JSON.stringify(s)} holds the typed ${v}`);
        }
      }
    }
    // the Android player's cascade, each selector alone, on the captured page source
    const screen = c.screens.get(e.target.screen)!;
    if (screen.platform === "android") {
      const want = t.node(node).bounds;
      const finder = new ScreenFinder(screen);
      for (const s of chain) {
        if (s.xy !== undefined) continue;
        const res = await resolveTarget(finder, androidCascade(targetFromTrailSelectors([s])));
        const got = res.element?.bounds;
        assert(got, `${where}: the player finds nothing for ${JSON.stringify(s)}`);
        const [cx, cy] = [got.x + got.w / 2, got.y + got.h / 2];
        assert(
          cx >= want.x && cx <= want.x + want.w && cy >= want.y && cy <= want.y + want.h,
          `${where}: the player finds ${JSON.stringify(got)} for ${JSON.stringify(s)}, the ` +
            `action hit ${JSON.stringify(want)}`,
        );
        out.playerChecked++;
      }
    }
  }
  return out;
}

for (const [name, load] of Object.entries(CAPTURES)) {
  Deno.test(`optimize() v3 chains on the ${name} capture: unique, on the hit node, value-free`, async () => {
    const c = await load();
    // the default mode lists fallbacks wherever the screen offers more than one kind (the
    // duplicate list's "View" buttons are found by their row only: position would move)
    let chains = 0;
    for (const mode of ["adaptive", "flexible", "strict"] as const) {
      const r = optimize(c.events, c.screens, { heuristics: "v3", mode });
      const got = await checkChains(name, c, r, mode);
      if (mode === "adaptive") {
        chains = got.chains;
        assert(got.actions > 0, `${name}: no targeted action checked`);
      }
    }
    if (!name.endsWith(" dup")) assert(chains > 0, `${name}: no action got a fallback chain`);
  });
}

Deno.test("optimize() v3 lists more than one selector for most targeted actions over every real capture", async () => {
  let actions = 0, chains = 0, selectors = 0, player = 0;
  for (const [name, load] of Object.entries(CAPTURES)) {
    const c = await load();
    const r = optimize(c.events, c.screens, { heuristics: "v3" });
    const got = await checkChains(name, c, r, "adaptive");
    actions += got.actions;
    chains += got.chains;
    selectors += got.selectors;
    player += got.playerChecked;
  }
  // measured: see the assertion message when it fails
  const share = chains / actions;
  assert(share >= 0.75, `${chains} of ${actions} actions have a chain (${selectors} selectors)`);
  assert(player > 50, `${player} selectors checked by the Android player`);
});

const CORPUS = "/work/shared/corpus/android/";

Deno.test("optimize() v3 never reads or asserts Calculator's result by its content description, which is the value shown", async () => {
  // the real Calculator dump, its texts edited to a computed 7 + 8
  const xml = (await Deno.readTextFile(`${CORPUS}uiautomator_google_calculator.xml`))
    .replace('content-desc="No formula"', 'content-desc="7+8"')
    .replace('content-desc="No result"', 'content-desc="15"');
  const screen = parseAndroid(xml);
  const cap = buildCapture("android", [
    { step: "Compute 7+8", screen, kind: "tap", point: { x: 196, y: 1137 } },
    { screen, kind: "tap", point: { x: 1182, y: 2172 } },
    { screen, kind: "tap", point: { x: 503, y: 1137 } },
    { screen, kind: "tap", point: { x: 811, y: 2153 } },
    {
      step: "Note the result",
      screen,
      kind: "readText",
      point: { x: 720, y: 770 },
      value: "15",
      storeAs: "result",
    },
  ]);
  // v2's flexible trail read it so: a selector that can only match the value it reads
  const v2 = optimize(cap.events, cap.screens, { heuristics: "v2", mode: "flexible" });
  assertEquals(v2.trail.trail[1]!.recording![0]!.selector, { contentDescription: "15" });
  for (const mode of ["adaptive", "flexible", "strict"] as const) {
    const r = optimize(cap.events, cap.screens, { heuristics: "v3", mode });
    const read = r.trail.trail[1]!.recording![0]!;
    assertEquals(read.kind, "readText");
    const chain = chainOf(read);
    assertEquals(chain[0], { id: "com.google.android.calculator:id/result" }, mode);
    for (const s of chain) assert(!holds(s, "15"), `${mode}: ${JSON.stringify(s)}`);
    if (mode === "adaptive") assert(chain.length >= 2, JSON.stringify(chain));
    const why = r.explain.find((e) => e.kind === "readText")!.lines.join("\n");
    assertStringIncludes(why, 'left out {"contentDescription":"15"}');
  }
});

Deno.test("optimize() v3 names no tap by the text typed into a field inside the tapped row", async () => {
  // the real React Native login dump; the e-mail field shows what was typed, the icon no glyph
  const xml = await Deno.readTextFile(`${CORPUS}uiautomator_wdio_demo_reactnative_login.xml`);
  const before = parseAndroid(xml);
  const typed = parseAndroid(
    xml.replace('text="&#983536;"', 'text=""').replace(
      'text="Email" resource-id="RNE__Input__text-input"',
      'text="alice@example.com" resource-id="RNE__Input__text-input"',
    ),
  );
  const cap = buildCapture("android", [
    {
      step: "Type the email",
      screen: before,
      kind: "inputText",
      point: { x: 600, y: 850 },
      text: "alice@example.com",
    },
    { step: "Tap beside the field", screen: typed, kind: "tap", point: { x: 160, y: 850 } },
  ]);
  // v2 led with it: the fallback taps whatever shows that text once the slot changes
  const v2 = optimize(cap.events, cap.screens, { heuristics: "v2" });
  assertEquals(v2.trail.trail[1]!.recording![0]!.selectors![0], { text: "alice@example.com" });
  for (const mode of ["adaptive", "flexible"] as const) {
    const r = optimize(cap.events, cap.screens, { heuristics: "v3", mode });
    const tap = r.trail.trail[1]!.recording![0]!;
    for (const s of chainOf(tap)) assert(!holds(s, "alice@example.com"), JSON.stringify(s));
    const input = r.trail.trail[0]!.recording![0]!;
    assertEquals(chainOf(input)[0], { contentDescription: "input-email" }, mode);
  }
});

Deno.test("optimize() v3 flexible keeps an exact date assertion exact, with no textRegex ahead of it", async () => {
  // the real Google Tasks dump: the status bar shows "Mon, Sep 23"
  const screen = parseAndroid(
    await Deno.readTextFile(`${CORPUS}uiautomator_google_tasks_list.xml`),
  );
  const cap = buildCapture("android", [{
    step: "Verify the date is exactly Mon, Sep 23",
    screen,
    kind: "assertVisible",
    expected: "Mon, Sep 23",
  }]);
  // v2 wrote a pattern first: any other date passed
  const v2 = optimize(cap.events, cap.screens, { heuristics: "v2", mode: "flexible" });
  assertEquals(v2.trail.trail[0]!.recording![0]!.selectors![0], { textRegex: "Mon, Sep \\d+" });
  for (const mode of ["flexible", "adaptive", "strict"] as const) {
    const r = optimize(cap.events, cap.screens, { heuristics: "v3", mode });
    const a = r.trail.trail[0]!.recording![0]!;
    for (const s of chainOf(a)) {
      assertEquals(s.textRegex, undefined, `${mode}: ${JSON.stringify(a)}`);
    }
    assertEquals(a.kind, "assertText", mode);
    assertEquals(a.equals, "Mon, Sep 23", mode);
  }
});

Deno.test("optimize() v3 strict takes an id unique within its described tile (parent context), which v2 refused", async () => {
  // the real Philo Android TV home: every tile has a `flag_new`, one tile is "Mayfair Witches"
  const screen = parseAndroid(
    await Deno.readTextFile(`${CORPUS}uiautomator_philo_androidtv_home.xml`),
  );
  const cap = buildCapture("android", [{
    step: "Verify the Mayfair Witches tile is flagged new",
    screen,
    kind: "assertVisible",
    point: { x: 628, y: 294 },
    expected: "New",
  }]);
  const v2 = optimize(cap.events, cap.screens, { heuristics: "v2", mode: "strict" });
  assertEquals(v2.trail.trail[0]!.recordable, false);
  const r = optimize(cap.events, cap.screens, { heuristics: "v3", mode: "strict" });
  assertEquals(r.warnings, []);
  assertEquals(r.trail.trail[0]!.recording, [{
    kind: "assertText",
    selector: {
      id: "com.philo.philo:id/flag_new",
      childOf: { contentDescription: "Mayfair Witches" },
    },
    equals: "New",
  }]);
});

Deno.test("optimize() v3 reads nothing by the value read, not even as a last resort: strict refuses, adaptive keeps the point", async () => {
  // Google Tasks: the row around "Task 16" is described "Task 16", the name's id repeats
  const screen = parseAndroid(
    await Deno.readTextFile(`${CORPUS}uiautomator_google_tasks_list.xml`),
  );
  const cap = buildCapture("android", [{
    step: "Note the name of the third task",
    screen,
    kind: "readText",
    point: { x: 800, y: 400 },
    value: "Task 16",
    storeAs: "taskName",
  }]);
  const strict = optimize(cap.events, cap.screens, { heuristics: "v3", mode: "strict" });
  assertEquals(strict.trail.trail[0]!.recordable, false);
  const adaptive = optimize(cap.events, cap.screens, { heuristics: "v3" });
  const read = adaptive.trail.trail[0]!.recording![0]!;
  for (const s of chainOf(read)) assert(!holds(s, "Task 16"), JSON.stringify(s));
});

Deno.test("optimize() v3 --explain names each fallback and each candidate left out for holding a value", async () => {
  const c = await loadEventsFile(`${DATA}optimizer/inventory/events.jsonl`);
  const r = optimize(c.events, c.screens, { heuristics: "v3" });
  const next = r.explain.find((e) => e.action === 3)!.lines.join("\n");
  assertStringIncludes(next, 'fallback {"text":"Next"} (text, score 4)');
  assertStringIncludes(next, 'chose [{"id":"next-button"},{"text":"Next"},');
  const check = r.explain.find((e) => e.kind === "assertVisible")!.lines.join("\n");
  assertStringIncludes(
    check,
    `left out {"text":"7"}: holds a value the action types, reads or asserts, or a slot's value`,
  );
  // what was written is what the explanation says was chosen
  const tap = r.explain.find((e) => e.action === 3)!.written!;
  assertEquals(tap.selectors?.map((s) => JSON.stringify(s)).slice(0, 2), [
    '{"id":"next-button"}',
    '{"text":"Next"}',
  ]);
});

Deno.test("optimize() v3 writes a key press with the chain of the element that had focus (the real Calculator's formula)", async () => {
  const screen = parseAndroid(
    await Deno.readTextFile(`${CORPUS}uiautomator_google_calculator.xml`),
  );
  const cap = buildCapture("android", [
    { step: "Compute", screen, kind: "tap", point: { x: 196, y: 1137 } },
    { screen, kind: "keyPress" },
  ]);
  // buildCapture has no key field: the key goes on the event
  for (const e of cap.events) {
    if (e.type === "ActionPerformed" && e.data.kind === "keyPress") e.data.key = "Enter";
  }
  const v2 = optimize(cap.events, cap.screens, { heuristics: "v2" });
  assertEquals(v2.trail.trail[0]!.recording![1], { kind: "keyPress", key: "Enter" });
  const r = optimize(cap.events, cap.screens, { heuristics: "v3" });
  const key = r.trail.trail[0]!.recording![1]!;
  assertEquals([key.kind, key.key], ["keyPress", "Enter"]);
  const chain = chainOf(key);
  assertEquals(chain[0], { id: "com.google.android.calculator:id/formula" });
  assert(chain.length >= 2, JSON.stringify(chain));
  for (const s of chain) assertEquals(s.xy, undefined, "no coordinates: focusing by a tap acts");
  const strict = optimize(cap.events, cap.screens, { heuristics: "v3", mode: "strict" });
  assertEquals(strict.trail.trail[0]!.recording![1], {
    kind: "keyPress",
    selector: { id: "com.google.android.calculator:id/formula" },
    key: "Enter",
  });
});

Deno.test("optimize() v3 chains of the corpus Chrome Recorder flows (no screens): at most five, distinct, none by a typed value", async () => {
  const dir = "/work/shared/corpus/chrome-recorder/";
  let chains = 0;
  for await (const f of Deno.readDir(dir)) {
    const c = await loadCaptureFile(`${dir}${f.name}`, f.name);
    const typed = captureValues(c).typed;
    const r = optimize(c.events, c.screens, { heuristics: "v3" });
    for (const a of r.trail.trail.flatMap((s) => s.recording ?? [])) {
      const chain = chainOf(a);
      const where = `${f.name}: ${JSON.stringify(a)}`;
      assert(chain.length <= 5, where);
      assertEquals(new Set(chain.map((s) => JSON.stringify(s))).size, chain.length, where);
      if (a.kind !== "inputText") {
        for (const s of chain) for (const v of typed) assert(!holds(s, v), `${where} holds ${v}`);
      }
      if (chain.length > 1) chains++;
    }
  }
  // the Recorder's own fallbacks (aria, css, xpath, text) stay fallbacks
  assert(chains >= 20, `${chains} chains`);
});
