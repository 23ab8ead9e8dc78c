/**
 * Heuristics v2 on Chrome DevTools Recorder flows of the corpus: chained `aria/` selectors,
 * double clicks, clicks with another mouse button or inside a frame, and steps that change
 * nothing a trail replays. Each test fails under v2 as it was and checks that v1 still writes
 * what it wrote.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import {
  flowToEvents,
  parseChromeRecorder,
  type UserFlow,
} from "../../../engine/formats/chrome_recorder.ts";
import { optimize, type OptimizeResult } from "../../../engine/optimizer/optimize.ts";
import { parseTrail, type SelectorMode, stringifyTrail } from "../../../engine/trail/trail.ts";

const CORPUS = new URL("../../../../shared/corpus/chrome-recorder/", import.meta.url).pathname;
const DEVTOOLS = "devtools-frontend_recorder_test_snapshots.json";

async function flowsOf(file: string): Promise<{ key?: string; flow: UserFlow }[]> {
  return parseChromeRecorder(JSON.parse(await Deno.readTextFile(CORPUS + file)));
}

/** The flow of DevTools' map whose test name starts so. */
async function devtools(name: string): Promise<UserFlow> {
  const found = (await flowsOf(DEVTOOLS)).find((f) => f.key?.startsWith(name));
  assert(found, name);
  return found.flow;
}

function run(flow: UserFlow, heuristics: string, mode: SelectorMode = "adaptive"): OptimizeResult {
  const events = flowToEvents(flow, { sessionId: "s" });
  return optimize(events, new Map(), { heuristics, mode });
}

Deno.test("optimize() v2 reads a Recorder aria chain hop by hop: the named element, not a name ending in >>> aria/", async () => {
  const [walmart] = await flowsOf("catchpoint_walmart-product.json");
  const name =
    "Add to cart - 5 Surprise Mini Brands Mystery Capsule Real Miniature Brands Collectible Toy by ZURU (3 Pack)";
  const css = "[data-testid=add-to-cart-section] > div > div:nth-child(3) > div > button > span";
  const v2 = run(walmart!.flow, "v2");
  assertEquals(v2.trail.trail[0]!.recording![2], {
    kind: "tap",
    selectors: [{ name }, { cssPath: css }],
  });
  const lines = v2.explain.find((e) => e.action === 3)!.lines;
  assert(
    lines.some((l) => l.includes(`the element named "${name}" (the generic acted on`)),
    lines.join("\n"),
  );
  const hello = run(await devtools("Recorder should build an ARIA selector for the parent"), "v2");
  assertEquals(hello.trail.trail[0]!.recording![1], {
    kind: "tap",
    selectors: [{ name: "Hello World" }, { id: "span" }],
  });
  // v1 wrote what it wrote
  assertEquals(run(walmart!.flow, "v1").trail.trail[0]!.recording![2], {
    kind: "tap",
    selectors: [{ role: "generic", name: `${name} >>> aria/` }, { cssPath: css }],
  });
});

Deno.test("optimize() v2 writes a Recorder doubleClick as doubleClick and gives clicks with another mouse button a step of their own for the agent", async () => {
  const flow = await devtools("Recorder should capture non-primary clicks and double clicks");
  const v2 = run(flow, "v2");
  const selectors = [{ name: "Mouse click button" }, { id: "mouse-button" }, {
    text: "Mouse click button",
  }];
  assertEquals(v2.trail.trail, [
    {
      step: "New Recording",
      recording: [{
        kind: "navigate",
        url: "https://localhost:<test-port>/test/e2e/resources/recorder/recorder.html",
      }],
    },
    { step: "Middle-click “Mouse click button”", recordable: false },
    { step: "Right-click “Mouse click button”", recordable: false },
    { step: "Click with the mouse's forward button on “Mouse click button”", recordable: false },
    { step: "Click with the mouse's back button on “Mouse click button”", recordable: false },
    { step: "New Recording (continued)", recording: [{ kind: "doubleTap", selectors }] },
  ]);
  assertEquals(v2.warnings, [
    'Step 2 "Middle-click “Mouse click button”" is not recordable: a middle click (button "auxiliary"): a trail\'s click is a left click',
    'Step 3 "Right-click “Mouse click button”" is not recordable: a right click (button "secondary"): a trail\'s click is a left click',
    'Step 4 "Click with the mouse\'s forward button on “Mouse click button”" is not recordable: a forward-button click (button "forward"): a trail\'s click is a left click',
    'Step 5 "Click with the mouse\'s back button on “Mouse click button”" is not recordable: a back-button click (button "back"): a trail\'s click is a left click',
  ]);
  // the web spelling, read back the same
  const yaml = stringifyTrail(v2.trail);
  assert(yaml.includes("      - doubleClick:\n"), yaml);
  assertEquals(parseTrail(yaml), v2.trail);
  // strict: the agent's steps need no selector, the double click keeps its id
  const strict = run(flow, "v2", "strict");
  assertEquals(strict.trail.trail[5]!.recording, [{
    kind: "doubleTap",
    selector: { id: "mouse-button" },
  }]);
  // v1 wrote five plain clicks in one step
  const v1 = run(flow, "v1").trail.trail;
  assertEquals(v1.length, 1);
  assertEquals(v1[0]!.recording!.map((a) => a.kind), [
    "navigate",
    "tap",
    "tap",
    "tap",
    "tap",
    "tap",
  ]);
});

/** A Recorder flow that opens a menu by hovering its button, then clicks an item of it. */
const HOVER_MENU_FLOW: UserFlow = {
  title: "Sign out from the account menu",
  steps: [
    { type: "setViewport", width: 800, height: 600, deviceScaleFactor: 1 },
    { type: "navigate", url: "http://127.0.0.1:8765/hover_menu.html" },
    { type: "hover", selectors: [["aria/Account"], ["#account"]] },
    { type: "click", selectors: [["aria/Sign out"], ["#sign-out"]], offsetX: 10, offsetY: 8 },
  ],
};

Deno.test("optimize() v2 writes a Recorder hover as hover, not assertVisible; v1 still writes assertVisible", () => {
  const v2 = run(HOVER_MENU_FLOW, "v2");
  const [, hover, click] = v2.trail.trail[0]!.recording!;
  assertEquals(hover, {
    kind: "hover",
    selectors: [{ name: "Account" }, { id: "account" }],
  });
  assertEquals(click?.kind, "tap");
  const yaml = stringifyTrail(v2.trail);
  assert(yaml.includes("      - hover:\n"), yaml);
  assertEquals(parseTrail(yaml), v2.trail);
  // strict: one exact selector, as a click gets
  const strict = run(HOVER_MENU_FLOW, "v2", "strict").trail.trail[0]!.recording!;
  assertEquals(strict[1], { kind: "hover", selector: { id: "account" } });
  // v1 wrote what it wrote
  assertEquals(run(HOVER_MENU_FLOW, "v1").trail.trail[0]!.recording![1]!.kind, "assertVisible");
});

Deno.test("optimize() v2 hands Recorder clicks inside frames to the agent, naming the frame", async () => {
  const flow = await devtools("Recorder should record interactions with elements within iframes");
  const v2 = run(flow, "v2");
  assertEquals(v2.trail.trail.map((s) => [s.step, s.recordable ?? s.recording?.length]), [
    ["New Recording", 1],
    ["Click “iframe button” inside a frame", false],
    ["Click “Inner iframe button” inside a frame inside a frame", false],
  ]);
  assertEquals(
    v2.warnings[1],
    'Step 3 "Click “Inner iframe button” inside a frame inside a frame" is not recordable: click inside a frame inside a frame (frame [0,0]): the player acts on the top frame only',
  );
  assertEquals(v2.explain.find((e) => e.action === 2)!.outcome, "step not recordable");
  const v1 = run(flow, "v1").trail.trail;
  assertEquals(v1[0]!.recording!.map((a) => a.kind), ["navigate", "tap", "tap"]);
});

Deno.test("optimize() v2 drops emulateNetworkConditions with a warning instead of writing wait: {}", async () => {
  const flow = await devtools("Recorder should also record network conditions");
  const v2 = run(flow, "v2");
  assertEquals(v2.trail.trail[0]!.recording!.map((a) => a.kind), ["navigate", "tap", "tap"]);
  assertEquals(
    v2.explain[0]!.outcome,
    "dropped: emulateNetworkConditions (download 50000, upload 50000, latency 2000) changes the network, not the app: not replayed",
  );
  assertEquals(v2.warnings, [
    'Step 1 "New Recording", action 1: emulateNetworkConditions (download 50000, upload 50000, latency 2000) is not replayed: the trail runs at the network\'s own speed',
    'Step 1 "New Recording", action 4: emulateNetworkConditions (download 180000, upload 84375, latency 562.5) is not replayed: the trail runs at the network\'s own speed',
  ]);
  const v1 = run(flow, "v1").trail.trail[0]!.recording!;
  assertEquals(v1.map((a) => a.kind), ["wait", "navigate", "tap", "wait", "tap"]);
});

Deno.test("optimize() v2 drops waitForExpression, customStep, close and a later setViewport; a click in a frame fails no strict step", () => {
  const flow: UserFlow = {
    title: "Checkout",
    steps: [
      { type: "navigate", url: "https://shop.test/" },
      { type: "setViewport", width: 400, height: 800 },
      { type: "waitForExpression", expression: "window.ready === true" },
      { type: "customStep", name: "login", parameters: {} },
      // only a positional CSS path: strict mode has nothing exact for it
      { type: "click", selectors: [["div > button:nth-child(2)"]], frame: [1] },
      { type: "click", selectors: [["#pay"]] },
      { type: "close" },
    ],
  } as UserFlow;
  const v2 = run(flow, "v2", "strict");
  assertEquals(v2.trail.trail, [
    { step: "Checkout", recording: [{ kind: "navigate", url: "https://shop.test/" }] },
    { step: "Click the element div > button:nth-child(2) inside a frame", recordable: false },
    { step: "Checkout (continued)", recording: [{ kind: "tap", selector: { id: "pay" } }] },
  ]);
  assertEquals(v2.explain.map((e) => e.outcome.split(":")[0]), [
    'navigate {"url"',
    "dropped",
    "dropped",
    "dropped",
    "step not recordable",
    'tap {"selector"',
    "dropped",
  ]);
  assertEquals(v2.warnings.map((w) => w.replace(/:.*/, "")), [
    'Step 1 "Checkout", action 2',
    'Step 1 "Checkout", action 3',
    'Step 1 "Checkout", action 4',
    'Step 2 "Click the element div > button',
  ]);
  assert(v2.warnings[1]!.includes("waitForExpression window.ready === true is not replayed"));
  // v1: the waits stay, and the positional click fails the whole step in strict mode
  assertEquals(run(flow, "v1", "strict").trail.trail, [{ step: "Checkout", recordable: false }]);
});

Deno.test("optimize() v2 writes no chained aria name and no wait action for any Recorder flow of the corpus", async () => {
  let flows = 0;
  for await (const entry of Deno.readDir(CORPUS)) {
    for (const { flow } of await flowsOf(entry.name)) {
      flows++;
      for (const mode of ["strict", "flexible", "adaptive"] as const) {
        const yaml = stringifyTrail(run(flow, "v2", mode).trail);
        assert(!yaml.includes(">>> aria/"), `${entry.name} ${mode}:\n${yaml}`);
        assert(!yaml.includes("- wait"), `${entry.name} ${mode}:\n${yaml}`);
      }
    }
  }
  assertEquals(flows, 46);
});

Deno.test("optimize() v2 writes a Recorder text/ selector, the first words of the text, as a textRegex of the text's start", async () => {
  const custom = await devtools("Recorder should capture clicks on buttons with custom selector");
  const synthetic = await devtools("Recorder should not capture synthetic events");
  const pages = await devtools("Recorder should wait for navigations in the generated scripts");
  const clicks = (flow: UserFlow, heuristics: string, mode: SelectorMode) =>
    run(flow, heuristics, mode).trail.trail[0]!.recording!.filter((a) => a.kind === "tap");
  // flexible takes text first: `text/Custom selector` of "Custom selector attribute"
  assertEquals(clicks(custom, "v2", "flexible")[0]!.selector, { textRegex: "Custom selector.*" });
  assertEquals(clicks(synthetic, "v2", "flexible")[0]!.selector, {
    textRegex: "Trigger Synthetic.*",
  });
  // `Page 2` is whole (the Recorder shortens no text under 12 characters); `Back to Page` of
  // "Back to Page 1" is 12
  assertEquals(clicks(pages, "v2", "flexible").map((a) => a.selector), [
    { text: "Page 2" },
    { textRegex: "Back to Page.*" },
  ]);
  assertEquals(clicks(synthetic, "v2", "adaptive")[0]!.selectors, [
    { name: "Trigger Synthetic Event" },
    { id: "synthetic" },
    { textRegex: "Trigger Synthetic.*" },
  ]);
  // a text equal to the step's aria/ name is whole
  const whole = run(
    {
      steps: [{
        type: "click",
        selectors: [["aria/Proceed to checkout"], ["text/Proceed to checkout"]],
      }],
    },
    "v2",
    "flexible",
  );
  assertEquals(whole.trail.trail[0]!.recording![0]!.selector, { text: "Proceed to checkout" });
  // v1 wrote what it wrote
  assertEquals(clicks(custom, "v1", "flexible")[0]!.selector, { text: "Custom selector" });
  assertEquals(clicks(pages, "v1", "flexible")[1]!.selector, { text: "Back to Page" });
});

Deno.test("optimize() v2 ranks a selector on the flow's selectorAttribute as a test id", async () => {
  const flow = await devtools("Recorder should capture clicks on buttons with custom selector");
  const css = "[data-devtools-test='selector-attribute']";
  const tap = (heuristics: string, mode: SelectorMode) =>
    run(flow, heuristics, mode).trail.trail[0]!.recording![1]!;
  assertEquals(tap("v2", "adaptive").selector, { cssPath: css });
  assertEquals(tap("v2", "strict").selector, { cssPath: css });
  // another flow's attribute is no test id of this one
  const other = run({ ...flow, selectorAttribute: "data-qa" }, "v2").trail.trail[0]!.recording![1]!;
  assertEquals(other.selectors?.[0], { name: "Custom selector attribute" });
  // v1 ranked it last, as a CSS path
  assertEquals(tap("v1", "adaptive").selectors, [
    { ariaLabel: "Custom selector attribute" },
    { name: "Custom selector attribute" },
    { text: "Custom selector" },
    { cssPath: css },
  ]);
});
