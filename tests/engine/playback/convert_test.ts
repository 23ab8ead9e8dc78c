import { parseTrail } from "../../../engine/trail/trail.ts";
import { assert, assertEquals, assertRejects, assertThrows } from "../../_fixtures/assert.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import { recordingV1ToPlan } from "../../../engine/playback/from_recording_v1.ts";
import { chromeRecorderToPlan } from "../../../engine/playback/from_chrome_recorder.ts";
import { eventsToPlan, type SessionEvent } from "../../../engine/playback/from_events.ts";
import { webCascade } from "../../../engine/playback/cascade.ts";
import { syntheticToPlan } from "../../../engine/playback/from_synthetic.ts";
import { targetFromSelectors } from "../../../engine/playback/target_from_selectors.ts";
import { planFromText, rebasePlan } from "../../../engine/playback/load_plan.ts";
import { flowToEvents, parseChromeRecorder } from "../../../engine/formats/chrome_recorder.ts";

const FORMATS = new URL("../../testdata/formats/", import.meta.url).pathname;
const CORPUS = "/work/shared/corpus/chrome-recorder/";

Deno.test("trailToPlan() maps trail kinds onto 003 actions and keeps templates for replay time", async () => {
  const text = await Deno.readTextFile(
    new URL("../../testdata/optimizer/inventory/adaptive.yaml", import.meta.url),
  );
  const plan = trailToPlan(parseTrail(text, "adaptive.yaml"));
  assertEquals(plan.platform, "android");
  assertEquals(plan.memory, { email: "alice@example.com", password: "password123" });
  assertEquals(plan.actions.map((a) => a.type), [
    "type",
    "click",
    "type",
    "click",
    "read_text",
    "click",
    "click",
    "assert_text",
  ]);
  assertEquals(plan.actions[0]!.text, "{{email}}");
  assertEquals(plan.actions[4]!.storeAs, "inventoryCount");
  assertEquals(plan.actions[7]!.expected, "{{inventoryCount + 2}}");
  assertEquals(plan.actions[7]!.target, { id: "inventory-count" });
  assertEquals(plan.actions[1]!.label, "Sign in with the test account");
});

Deno.test("trailToPlan() carries a step's selector mode and turns recordable: false into a skipped agent step", () => {
  const trail = parseTrail(
    [
      "config: { platform: web, url: 'http://app.test/' }",
      "trail:",
      "  - step: Tap submit",
      "    selectorMode: strict",
      "    recording:",
      "      - tap: { selector: { testId: submit }, selectors: [ { text: Submit, xy: [10, 20] } ] }",
      "  - step: Pick any slot",
      "    recordable: false",
    ].join("\n"),
  );
  const plan = trailToPlan(trail);
  assertEquals(plan.actions.map((a) => a.type), ["navigate", "click", "agent_step"]);
  assertEquals(plan.actions[1]!.selectorMode, "strict");
  assertEquals(plan.actions[1]!.target, {
    testId: "submit",
    text: "Submit",
    point: { x: 10, y: 20 },
    alternatives: [{ testId: "submit" }, { text: "Submit" }],
  });
});

Deno.test("recordingV1ToPlan() reads a human recording's selectors, points and timing", async () => {
  const file = "vw-ax-human-hs-0042-20251219-130500.json";
  const value = JSON.parse(await Deno.readTextFile(FORMATS + file));
  const plan = recordingV1ToPlan(value, { file });
  assertEquals(plan.source.kind, "recording");
  const click = plan.actions.find((a) => a.type === "click" && a.target?.testId === "subscribe");
  assert(click, "the Subscribe click is in the plan");
  assertEquals(click.target!.role, "button");
  assertEquals(click.target!.name, "Subscribe");
  assertEquals(click.target!.point, { x: 160, y: 268 });
  const typed = plan.actions.find((a) => a.type === "type");
  assertEquals(typed?.text, "ana@work.example");
  assert(plan.actions.every((a) => typeof a.timestampMs === "number"));
});

Deno.test("recordingV1ToPlan() rejects an incompatible schema_version with a clear error", () => {
  assertThrows(
    () => recordingV1ToPlan({ schema_version: "recording_v2", timeline: [] }, { file: "x.json" }),
    SyntaxError,
    'x.json: schema_version: cannot play a recording with schema_version "recording_v2"; this Cairn plays recording_v1',
  );
  assertThrows(() => recordingV1ToPlan({ timeline: [] }), SyntaxError, "schema_version null");
});

Deno.test("chromeRecorderToPlan() maps Recorder steps and selector alternatives", async () => {
  const flows = parseChromeRecorder(
    JSON.parse(await Deno.readTextFile(CORPUS + "catchpoint_timkadlec-nav-new-format.json")),
  );
  const plan = chromeRecorderToPlan(flows[0]!.flow);
  assert(plan.viewport, "setViewport gives the recorded viewport");
  assertEquals(plan.viewport, { width: 812, height: 609 });
  assertEquals(plan.actions[0]!.type, "navigate");
  assert(plan.actions.slice(1).every((a) => a.type === "click"));
  assertEquals(plan.actions[1]!.target, {
    name: "WORK WITH ME",
    cssPath: "#nav > ul > li:nth-child(2) > a",
    xpath: '//*[@id="nav"]/ul/li[2]/a',
    // `text/`: Chrome matches text the element contains (the Recorder writes its first words)
    textContains: "Work With Me",
  });
  assert(plan.actions.every((a) => a.type !== "keyUp"), "keyUp is folded into key_press");
  const inline = chromeRecorderToPlan({
    steps: [
      { type: "setViewport", width: 800, height: 600, deviceScaleFactor: 2 },
      {
        type: "click",
        selectors: [['aria/Log in[role="button"]'], ["[data-testid=login]"], [
          'xpath///*[@id="b"]',
        ]],
      },
      { type: "change", selectors: [["#email"]], value: "a@b.c" },
      { type: "keyDown", key: "Enter" },
      { type: "keyUp", key: "Enter" },
      { type: "hover", selectors: [["#menu"]] },
    ],
  });
  assertEquals(inline.devicePixelRatio, 2);
  assertEquals(inline.actions.map((a) => a.type), ["click", "type", "key_press", "hover"]);
  assertEquals(inline.actions[0]!.target, {
    name: "Log in",
    role: "button",
    testId: "login",
    xpath: '//*[@id="b"]',
  });
  assertEquals(inline.actions[1]!.target, { id: "email" });
});

Deno.test("targetFromSelectors() reads recorder keys, DOM spellings and Recorder kinds", () => {
  const cases: [Record<string, string>, Record<string, unknown>][] = [
    [{ testId: "a", ariaLabel: "A", id: "x", cssPath: "main > b" }, {
      testId: "a",
      ariaLabel: "A",
      id: "x",
      cssPath: "main > b",
    }],
    [{ "data-testid": "a", "aria-label": "L" }, { testId: "a", ariaLabel: "L" }],
    [{ css: "#go", "css.2": "div > button.x" }, { id: "go", cssPath: "div > button.x" }],
    [{ css: "[aria-label='Close']" }, { ariaLabel: "Close" }],
    [{ aria: "Search" }, { name: "Search" }],
    [{ text: "Buy now", pierce: "x-el >>> button" }, {
      text: "Buy now",
      cssPath: "x-el >>> button",
    }],
  ];
  for (const [input, expected] of cases) assertEquals(targetFromSelectors(input), expected);
});

Deno.test("syntheticToPlan() reads 003 R8 arrays and names the bad field", () => {
  const plan = syntheticToPlan([
    { action: "navigate", url: "http://a.test" },
    { action: "click", selector: "[data-testid=login]" },
    { action: "type", selector: "#email", text: "user@test.com" },
    { type: "key_press", key: "Enter" },
    { action: "scroll", x: 0, y: 400 },
  ]);
  assertEquals(plan.actions.map((a) => a.type), [
    "navigate",
    "click",
    "type",
    "key_press",
    "scroll",
  ]);
  assertEquals(plan.actions[2]!.target, { css: "#email" });
  assertEquals(plan.actions[4]!.scrollTo, { x: 0, y: 400 });
  const err = assertThrows(() => syntheticToPlan([{ action: "click" }, { action: "go", url: 3 }]));
  assert(err.message.includes("url"), err.message);
});

Deno.test("planFromText() detects the file kind and rebasePlan() re-points navigations", async () => {
  const synthetic = await planFromText('{"actions":[{"action":"click","selector":"#a"}]}');
  assertEquals(synthetic.source.kind, "actions");
  const rebased = rebasePlan(synthetic, "http://127.0.0.1:9/app.html");
  assertEquals(rebased.actions[0], {
    type: "navigate",
    url: "http://127.0.0.1:9/app.html",
    label: "Open the app",
    added: true,
  });
  const trail = await planFromText("config: { platform: web }\ntrail: []\n", { file: "t.yaml" });
  assertEquals(trail.source, { kind: "trail", file: "t.yaml" });
  await assertRejects(
    () => planFromText('{"schema_version":"recording_v9"}', { file: "r.json" }),
    SyntaxError,
  );
  await assertRejects(() => planFromText("{ nope", { file: "bad.json" }), SyntaxError);
});

Deno.test("rebasePlan() re-points a url whose origin is a placeholder: what follows it is the path", () => {
  const cases: [string, string][] = [
    // DevTools' own flows
    [
      "https://localhost:<test-port>/test/e2e/resources/recorder/recorder.html",
      "http://127.0.0.1:9/test/e2e/resources/recorder/recorder.html",
    ],
    ["https://<host>/a?b=1#c", "http://127.0.0.1:9/a?b=1#c"],
    ["https://<host>", "http://127.0.0.1:9/"],
    // a real url: the base's path names the page to open, it replaces the url whole
    ["http://a.test:8080/x?v=0", "http://127.0.0.1:9/app/"],
    ["page.html", "http://127.0.0.1:9/app/page.html"],
  ];
  for (const [url, want] of cases) {
    const plan = rebasePlan(
      { source: { kind: "flow" }, platform: "web", actions: [{ type: "navigate", url }] },
      "http://127.0.0.1:9/app/",
    );
    assertEquals(plan.actions[0]!.url, want, url);
  }
});

/** The flow of DevTools' map whose test name starts so. */
async function devtools(name: string) {
  const flows = parseChromeRecorder(
    JSON.parse(await Deno.readTextFile(CORPUS + "devtools-frontend_recorder_test_snapshots.json")),
  );
  const found = flows.find((f) => f.key?.startsWith(name));
  assert(found, name);
  return found.flow;
}

Deno.test("chromeRecorderToPlan() presses Shift+Tab as one chord and a Shift alone not at all", async () => {
  const back = chromeRecorderToPlan(
    await devtools("Recorder should capture navigation without change"),
  );
  assertEquals(back.actions.map((a) => a.key ?? a.type), ["navigate", "Tab", "Shift+Tab"]);
  const shifts = chromeRecorderToPlan(await devtools("Recorder should break out shifts"));
  assertEquals(shifts.actions.map((a) => a.key ?? a.type), ["navigate", "Tab", "type", "type"]);
});

Deno.test("chromeRecorderToPlan() reads text/ as contained text and tries the flow's selectorAttribute first", async () => {
  const plan = chromeRecorderToPlan(
    await devtools("Recorder should capture clicks on buttons with custom selector attribute"),
  );
  const target = plan.actions[1]!.target!;
  assertEquals(target, {
    css: "[data-devtools-test='selector-attribute']",
    xpath: '//*[@data-devtools-test="selector-attribute"]',
    name: "Custom selector attribute",
    textContains: "Custom selector",
  });
  assertEquals(webCascade(target).map((l) => l.selector), [
    "[data-devtools-test='selector-attribute']",
    "aria/Custom selector attribute",
    "text/Custom selector",
    '//*[@data-devtools-test="selector-attribute"]',
  ]);
  // a stored session of the flow plays the same
  const flow = await devtools("Recorder should capture clicks on buttons with custom selector");
  const events = flowToEvents(flow, { sessionId: "s" }) as SessionEvent[];
  assertEquals(eventsToPlan(events).actions[1]!.target, target);
});

Deno.test("planFromText() plays a capture file's actions, not its actions array as synthetic ones", async () => {
  const file = new URL("../../../examples/web_checkout.capture.json", import.meta.url);
  const capture = JSON.parse(await Deno.readTextFile(file));
  const plan = await planFromText(JSON.stringify(capture), {
    file: "web_checkout.capture.json",
    readFile: (rel) => Deno.readFile(new URL(`../../../examples/${rel}`, import.meta.url)),
  });
  assertEquals([plan.source.kind, plan.source.file], ["recording", "web_checkout.capture.json"]);
  assertEquals(
    plan.actions.filter((a) => a.type !== "navigate").length,
    capture.actions.filter((a: { action: string }) => a.action !== "navigate").length,
  );
});

Deno.test("trailToPlan() maps childOf to a scoped lookup, textRegex to a regex level and index to the nth match", () => {
  const trail = parseTrail(`config:
  platform: web
trail:
  - step: Buy the deal
    recording:
      - tap:
          selector:
            testId: buy
            childOf:
              testId: deal-card
      - assertText:
          selector:
            textRegex: "Cart \\\\(\\\\d+\\\\)"
          matches: "Cart \\\\(\\\\d+\\\\)"
      - tap:
          selector:
            text: Remove
            index: 1
`);
  const [buy, cart, remove] = trailToPlan(trail).actions;
  assertEquals(buy!.target, { testId: "buy", within: { testId: "deal-card" } });
  assertEquals(cart!.target, { textRegex: "Cart \\(\\d+\\)" });
  assertEquals(remove!.target, { text: "Remove", index: 1 });
});
