import { assertEquals, assertThrows } from "../../_fixtures/assert.ts";
import type { NewEvent } from "../../../events/schemas.ts";
import {
  flowToEvents,
  looksLikeChromeRecorder,
  parseChromeRecorder,
  readAriaChain,
  recorderKeyPresses,
  recorderSelectors,
} from "../../../engine/formats/chrome_recorder.ts";
import { FormatError } from "../../../engine/input/format_error.ts";

const CORPUS = new URL("../../../../shared/corpus/chrome-recorder/", import.meta.url).pathname;

async function corpus(name: string): Promise<unknown> {
  return JSON.parse(await Deno.readTextFile(CORPUS + name));
}

function actions(events: NewEvent[]) {
  return events.flatMap((e) => e.type === "ActionPerformed" ? [e.data] : []);
}

Deno.test("flowToEvents() maps the coffee-order flow: viewport, selectors, change, keys, navigations", async () => {
  const [only] = parseChromeRecorder(await corpus("nightwatch_order-a-coffee.json"));
  const events = flowToEvents(only!.flow, { sessionId: "s", file: "f.json" });
  const started = events[0]!;
  assertEquals(started.type, "SessionStarted");
  assertEquals(started.data, {
    sessionId: "s",
    mode: "human",
    platform: "web",
    prompt: "order-a-coffee",
    url: "https://coffee-cart.netlify.app/",
    viewport: { width: 603, height: 679 },
    devicePixelRatio: 1,
    source: { format: "chrome-recorder", file: "f.json" },
  });
  const acts = actions(events);
  // setViewport went to SessionStarted; keyUp adds no action.
  assertEquals(acts.map((a) => `${a.kind}:${a.toolName}`), [
    "navigate:navigate",
    "tap:click",
    "tap:click",
    "tap:click",
    "tap:click",
    "tap:click",
    "tap:click",
    "inputText:change",
    "keyPress:keyDown",
    "inputText:change",
    "tap:click",
    "tap:click",
    "tap:click",
  ]);
  assertEquals(acts[1], {
    actionId: "a2",
    kind: "tap",
    toolName: "click",
    toolParams: { target: "main", offsetX: 190.90188598632812, offsetY: 120.25460815429688 },
    target: { selectors: { aria: "Mocha", css: "[data-test=Mocha]" } },
    source: "human",
  });
  assertEquals(acts[7]!.text, "jane");
  assertEquals(acts[8]!.key, "Tab");
  const navs = events.flatMap((e) => e.type === "NavigationOccurred" ? [e.data] : []);
  assertEquals(navs, [{ url: "https://coffee-cart.netlify.app/", reason: "navigate" }]);
});

Deno.test("recorderSelectors() keeps aria, text, chains and old string selectors", async () => {
  const [flow] = parseChromeRecorder(await corpus("tag-check_ng-gtm-sample_add_payment_info.json"));
  const acts = actions(flowToEvents(flow!.flow, { sessionId: "s" }));
  const selectors = acts.map((a) => a.target?.selectors).filter((s) => s !== undefined);
  assertEquals(selectors.some((s) => s!.css === "#navBasketItems"), true);
  const map = parseChromeRecorder(await corpus("devtools-frontend_recorder_test_snapshots.json"));
  const shadow = map.find((f) => f.key === "Recorder should work with shadow inputs - 1")!;
  const change = actions(flowToEvents(shadow.flow, { sessionId: "s" })).find((a) =>
    a.kind === "inputText"
  )!;
  assertEquals(change.target?.selectors, { css: "custom-input >>> input", pierce: "input" });
  const buttons = map.find((f) => f.key === "Recorder should capture clicks on buttons - 1")!;
  const click = actions(flowToEvents(buttons.flow, { sessionId: "s" })).find((a) =>
    a.kind === "tap"
  )!;
  assertEquals(click.target?.selectors, {
    aria: "Test Button",
    css: "#test",
    xpath: '//*[@id="test"]',
    pierce: "#test",
    text: "Test Button",
  });
});

Deno.test("readAriaChain() reads a stored aria selector hop by hop: the element named last, the roles inside it", () => {
  const cases: [string | string[], ReturnType<typeof readAriaChain>][] = [
    ["aria/Go", { name: "Go", inside: [] }],
    ['aria/Go[role="button"]', { name: "Go", role: "button", inside: [] }],
    // DevTools flow #10 and Walmart's add-to-cart: a click inside the named, interactive element
    [["aria/Hello World", 'aria/[role="generic"]'], {
      name: "Hello World",
      inside: ["generic"],
    }],
    [["aria/Add to cart - Toy (3 Pack)", 'aria/[role="generic"]'], {
      name: "Add to cart - Toy (3 Pack)",
      inside: ["generic"],
    }],
    // a later hop with a name names a descendant: it is the element
    [["aria/Form", 'aria/Email[role="textbox"]'], { name: "Email", role: "textbox", inside: [] }],
    // no hop names anything, or a hop is not an aria/ selector: nothing to read
    ['aria/[role="main"]', undefined],
    [["aria/Form", "#email"], undefined],
  ];
  for (const [selector, want] of cases) {
    const stored = recorderSelectors([typeof selector === "string" ? [selector] : selector]).aria!;
    assertEquals(readAriaChain(stored), want, stored);
  }
});

Deno.test("parseChromeRecorder() reads a single step and DevTools' map of 35 flows", async () => {
  const single = parseChromeRecorder(await corpus("catchpoint_singlestep.json"));
  assertEquals(single.length, 1);
  const events = flowToEvents(single[0]!.flow, { sessionId: "s" });
  assertEquals(events.map((e) => e.type), [
    "SessionStarted",
    "ActionPerformed",
    "NavigationOccurred",
    "SessionEnded",
  ]);
  const map = parseChromeRecorder(await corpus("devtools-frontend_recorder_test_snapshots.json"));
  assertEquals(map.length, 35);
  const net = map.find((f) => f.key === "Recorder should also record network conditions - 1")!;
  const acts = actions(flowToEvents(net.flow, { sessionId: "s" }));
  // emulateNetworkConditions before the viewport: both stay actions (wait) with their raw fields.
  assertEquals(acts[0]!.kind, "wait");
  assertEquals(acts[0]!.toolParams, { download: 50000, upload: 50000, latency: 2000 });
});

Deno.test("looksLikeChromeRecorder() tells flows from other JSON", () => {
  assertEquals(looksLikeChromeRecorder({ title: "x", steps: [] }), true);
  assertEquals(looksLikeChromeRecorder({ type: "navigate", url: "https://a.test/" }), true);
  assertEquals(looksLikeChromeRecorder({ type: "StepStarted", data: {} }), false);
  assertEquals(looksLikeChromeRecorder({ hello: "world" }), false);
});

Deno.test("parseChromeRecorder() names the field of a bad step", () => {
  assertThrows(
    () =>
      parseChromeRecorder({
        title: "t",
        steps: [{ type: "navigate" }, { type: "click", selectors: [] }],
      }),
    FormatError,
    "steps.0.url: navigate needs url; steps.1.selectors: ",
  );
  assertThrows(
    () => parseChromeRecorder({ title: "t", steps: [{ type: "teleport" }] }),
    FormatError,
    "steps.0.type: ",
  );
  assertThrows(
    () => parseChromeRecorder({ "flow a": { steps: [{ type: "keyDown" }] } }),
    FormatError,
    '"flow a".steps.0.key: keyDown needs key',
  );
});

Deno.test("parseChromeRecorder() refuses a viewport a capture could not hold", async () => {
  const flow = await corpus("nightwatch_order-a-coffee.json") as {
    steps: Record<string, unknown>[];
  };
  assertEquals(flow.steps[0]!.type, "setViewport");
  Object.assign(flow.steps[0]!, { width: -5, height: 0 });
  assertThrows(
    () => parseChromeRecorder(flow),
    FormatError,
    "steps.0.width: Too small: expected number to be >0; steps.0.height: Too small",
  );
  Object.assign(flow.steps[0]!, { width: 603, height: 679, deviceScaleFactor: 0 });
  assertThrows(
    () => parseChromeRecorder(flow),
    FormatError,
    "steps.0.deviceScaleFactor: Too small",
  );
});

/** The flow of DevTools' map whose test name starts so. */
async function devtools(name: string) {
  const flows = parseChromeRecorder(await corpus("devtools-frontend_recorder_test_snapshots.json"));
  const found = flows.find((f) => f.key?.startsWith(name));
  if (!found) throw new Error(name);
  return found.flow;
}

Deno.test("recorderKeyPresses() writes a key pressed while a modifier is held as one chord", () => {
  const cases: [string, [string, string][], Record<number, string>][] = [
    ["Tab alone", [["keyDown", "Tab"], ["keyUp", "Tab"]], { 0: "Tab" }],
    ["Shift+Tab", [["keyDown", "Shift"], ["keyDown", "Tab"], ["keyUp", "Tab"], [
      "keyUp",
      "Shift",
    ]], { 1: "Shift+Tab" }],
    ["a modifier alone adds nothing", [["keyDown", "Shift"], ["keyUp", "Shift"]], {}],
    ["two presses under one Shift", [
      ["keyDown", "Shift"],
      ["keyDown", "Tab"],
      ["keyUp", "Tab"],
      ["keyDown", "Tab"],
      ["keyUp", "Shift"],
      ["keyDown", "Enter"],
    ], { 1: "Shift+Tab", 3: "Shift+Tab", 5: "Enter" }],
    ["modifiers in the order pressed", [
      ["keyDown", "Control"],
      ["keyDown", "Shift"],
      ["keyDown", "ArrowLeft"],
    ], { 2: "Control+Shift+ArrowLeft" }],
  ];
  for (const [what, steps, want] of cases) {
    const keys = recorderKeyPresses(
      steps.map(([type, key]) => ({ type: type as "keyDown" | "keyUp", key })),
    );
    assertEquals(Object.fromEntries(keys), want, what);
  }
});

Deno.test("flowToEvents() writes DevTools' Shift+Tab as one keyPress and drops a Shift pressed alone", async () => {
  const back = actions(
    flowToEvents(await devtools("Recorder should capture navigation without change"), {
      sessionId: "s",
    }),
  );
  // keyDown Tab, keyUp Tab, keyDown Shift, keyDown Tab, keyUp Tab, keyUp Shift
  assertEquals(back.filter((a) => a.kind === "keyPress").map((a) => a.key), ["Tab", "Shift+Tab"]);
  const shifts = actions(flowToEvents(await devtools("Recorder should break out shifts"), {
    sessionId: "s",
  }));
  assertEquals(shifts.map((a) => a.key ?? a.toolName), ["navigate", "Tab", "change", "change"]);
});

Deno.test("flowToEvents() gives each step with selectors the flow's selectorAttribute", async () => {
  const acts = actions(
    flowToEvents(
      await devtools("Recorder should capture clicks on buttons with custom selector attribute"),
      {
        sessionId: "s",
      },
    ),
  );
  assertEquals(acts.map((a) => a.toolParams?.selectorAttribute), [undefined, "data-devtools-test"]);
  const plain = actions(
    flowToEvents(await devtools("Recorder should capture clicks on buttons - 1"), {
      sessionId: "s",
    }),
  );
  assertEquals(plain.some((a) => a.toolParams?.selectorAttribute !== undefined), false);
});
