import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
} from "../../_fixtures/assert.ts";
import type { BlobRef, NewEvent } from "../../../events/schemas.ts";
import { captureToEvents, CaptureV1, eventsToCapture } from "../../../engine/formats/capture_v1.ts";
import { loadCaptureScreens, resolveScreens } from "../../../engine/formats/capture_screens.ts";
import { FormatError, zodToFormatError } from "../../../engine/input/format_error.ts";
import { comparableEvents } from "../../../engine/formats/round_trip.ts";

/** An in-memory blob table with real sha256 hashes. */
function memoryBlobs() {
  const blobs = new Map<string, Uint8Array>();
  async function put(bytes: Uint8Array, mediaType: string): Promise<BlobRef> {
    const digest = new Uint8Array(
      await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
    );
    const hash = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
    blobs.set(hash, bytes);
    return { hash, mediaType, size: bytes.length };
  }
  return { blobs, put };
}

const XML = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">` +
  `<node index="0" text="Add item" resource-id="add-item-button" class="android.widget.Button" ` +
  `bounds="[0,0][200,100]" /></hierarchy>`;

const SAMPLE = {
  format: "cairn.capture/v1",
  platform: "android",
  prompt: "Add two items",
  memory: { email: "alice@example.com" },
  memoryWrittenBy: { email: "accountFactory_load" },
  actions: [
    {
      action: "readText",
      coordinates: { x: 100, y: 50 },
      viewHierarchy: XML,
      nlStep: "Note the count",
      value: "5",
      storeAs: "count",
      memoryState: { email: "alice@example.com", count: 5 },
      timestamp: "2026-01-01T10:00:00Z",
    },
    {
      action: "tap",
      coordinates: { x: 100, y: 50 },
      viewHierarchy: { file: "screens/s1.xml" },
      nlStep: "Add 2 items",
      runtimeSelector: "Add item",
      toolName: "tapOnElementWithText",
      toolParams: { text: "Add item" },
      timestamp: 1767261605000,
    },
    {
      action: "tap",
      coordinates: { x: 100, y: 50 },
      nlStep: "Add 2 items",
      successful: false,
      error: "Element not found",
      durationMs: 120,
    },
  ],
};

async function importSample(input: unknown) {
  const capture = CaptureV1.parse(input);
  const { blobs, put } = memoryBlobs();
  const pending = await loadCaptureScreens(capture, {
    readFile: (p) => {
      if (p === "screens/s1.xml") return Promise.resolve(new TextEncoder().encode(XML));
      return Promise.reject(new Deno.errors.NotFound(p));
    },
  });
  const resolved = resolveScreens(pending);
  for (const b of resolved.blobs) await put(b.bytes, b.mediaType);
  return {
    events: captureToEvents(capture, { sessionId: "s1", blobs: resolved.screens }),
    blobs,
    put,
  };
}

Deno.test("captureToEvents() emits steps, screens, actions, results and memory in order", async () => {
  const { events } = await importSample(SAMPLE);
  assertEquals(events.map((e) => e.type), [
    "SessionStarted",
    "StepStarted",
    "ScreenCaptured",
    "ActionPerformed",
    "ActionCompleted",
    "MemorySnapshotted",
    "StepEnded",
    "StepStarted",
    "ScreenCaptured",
    "ActionPerformed",
    "ActionCompleted",
    "ActionPerformed",
    "ActionCompleted",
    "StepEnded",
    "SessionEnded",
  ]);
  const byType = (t: string) => events.filter((e) => e.type === t);
  const [screen1, screen2] = byType("ScreenCaptured");
  // The inline and the file hierarchy have the same bytes: one content hash.
  assertEquals(
    (screen1!.data as { hierarchy: BlobRef }).hierarchy.hash,
    (screen2!.data as { hierarchy: BlobRef }).hierarchy.hash,
  );
  assertEquals((screen1!.data as { format: string }).format, "uiautomator-dump");
  const tap = byType("ActionPerformed")[1]!;
  assertEquals(tap.data, {
    actionId: "a2",
    kind: "tap",
    point: { x: 100, y: 50 },
    toolName: "tapOnElementWithText",
    toolParams: { text: "Add item" },
    target: { selector: { text: "Add item" } },
    source: "agent",
    stepIndex: 1,
  });
  assertEquals(tap.meta?.recordedAt, "2026-01-01T10:00:05.000Z");
  const read = byType("ActionCompleted")[0]!;
  assertEquals(read.data, { actionId: "a1", ok: true, durationMs: 0, value: "5" });
  assertEquals(byType("MemorySnapshotted")[0]!.data, {
    memory: { email: "alice@example.com", count: "5" },
    writtenBy: { email: "accountFactory_load" },
  });
  assertEquals(byType("StepEnded").map((e) => e.data), [{ index: 0, ok: true }, {
    index: 1,
    ok: false,
  }]);
  assertEquals(byType("ActionCompleted")[2]!.data, {
    actionId: "a3",
    ok: false,
    durationMs: 120,
    error: "Element not found",
  });
});

Deno.test("eventsToCapture() then captureToEvents() gives the same events", async () => {
  const { events, blobs } = await importSample(SAMPLE);
  const capture = eventsToCapture(events, { blobs });
  // Through JSON text, as `cairn export` writes it.
  const again = await importSample(JSON.parse(JSON.stringify(capture)));
  assertEquals(again.events, events);
  assertEquals(capture.actions[0]!.viewHierarchy, XML);
});

Deno.test("eventsToCapture() writes a screenshot as a data URI that reads back to the same blob", async () => {
  const { put, blobs } = memoryBlobs();
  const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 1, 2, 3]); // a PNG signature
  const shot = await put(png, "image/png");
  const hierarchy = await put(new TextEncoder().encode(XML), "application/xml");
  const events: NewEvent[] = [
    { type: "SessionStarted", data: { sessionId: "s", mode: "human", platform: "android" } },
    { type: "ScreenCaptured", data: { hierarchy, format: "uiautomator-dump", screenshot: shot } },
    { type: "ActionPerformed", data: { actionId: "x", kind: "tap", source: "human" } },
    { type: "ActionCompleted", data: { actionId: "x", ok: true, durationMs: 3 } },
    { type: "SessionEnded", data: { reason: "interrupted" } },
  ];
  const capture = CaptureV1.parse(eventsToCapture(events, { blobs }));
  assertStringIncludes(capture.actions[0]!.screenshot!, "data:image/png;base64,");
  const { screens } = resolveScreens(
    await loadCaptureScreens(capture, { readFile: () => Promise.reject(new Error("no")) }),
  );
  const back = captureToEvents(capture, { sessionId: "s", blobs: screens });
  assertEquals(comparableEvents(back), comparableEvents(events));
  assertEquals(back[0]!.data, {
    sessionId: "s",
    mode: "human",
    platform: "android",
    source: { format: "cairn.capture/v1" },
  });
});

Deno.test("CaptureV1 rejects a wrong field with its path", () => {
  const bad = structuredClone(SAMPLE) as Record<string, unknown>;
  (bad.actions as Record<string, unknown>[])[1]!.action = "tapp";
  (bad.actions as Record<string, unknown>[])[2]!.coordinate = { x: 1, y: 2 };
  const r = CaptureV1.safeParse(bad);
  assert(!r.success);
  const err = zodToFormatError(r.error);
  assertStringIncludes(err.message, "actions.1.action: ");
  assertStringIncludes(err.message, "actions.2.coordinate: unknown field");
});

const TIMES: [unknown, string | undefined][] = [
  ["2026-03-09T10:00:02Z", undefined],
  ["2026-03-09T11:00:02.125+01:00", undefined],
  ["2024-02-29T00:00:00Z", undefined], // a leap day
  [0, undefined],
  [253402300799999, undefined], // 9999-12-31T23:59:59.999Z
  ["hello 2", "expected an ISO 8601 date-time"],
  ["1", "expected an ISO 8601 date-time"],
  ["2026-02-30T00:00:00Z", "expected an ISO 8601 date-time"],
  ["2025-02-29T00:00:00Z", "expected an ISO 8601 date-time"],
  ["2026-03-09T10:00:02", "expected an ISO 8601 date-time with seconds and a time zone"],
  ["2026-03-09", "expected an ISO 8601 date-time"],
  ["9999-12-31T23:59:59-01:00", "expected a date-time within the years 0000 to 9999 (UTC)"],
  [8640000000000001, "expected epoch milliseconds from 0 to 253402300799999"],
  [1e300, "expected epoch milliseconds from 0 to 253402300799999"],
  [-1, "Too small"],
];

for (const [time, message] of TIMES) {
  Deno.test(`CaptureV1 ${message ? "rejects" : "takes"} the timestamp ${JSON.stringify(time)}`, () => {
    const r = CaptureV1.safeParse({
      format: "cairn.capture/v1",
      platform: "android",
      startedAt: time,
      actions: [{ action: "tap", timestamp: time }],
    });
    if (message === undefined) {
      assert(r.success, r.success ? "" : zodToFormatError(r.error).message);
      // the events' time is the same instant, as toISOString() writes it
      const events = captureToEvents(r.data, { sessionId: "s", blobs: [] });
      assertEquals(events[0]!.meta!.recordedAt, new Date(time as string | number).toISOString());
    } else {
      assert(!r.success);
      const err = zodToFormatError(r.error).message;
      assertStringIncludes(err, `startedAt: ${message}`);
      assertStringIncludes(err, `actions.0.timestamp: ${message}`);
    }
  });
}

Deno.test("CaptureV1 rejects a screenshot without a hierarchy", () => {
  const r = CaptureV1.safeParse({
    format: "cairn.capture/v1",
    platform: "ios",
    actions: [{ action: "tap", screenshot: "a.png" }],
  });
  assert(!r.success);
  assertStringIncludes(zodToFormatError(r.error).message, "actions.0.screenshot: screenshot needs");
});

Deno.test("loadCaptureScreens() names the field of a missing hierarchy file", async () => {
  const capture = CaptureV1.parse({
    format: "cairn.capture/v1",
    platform: "android",
    actions: [{ action: "back" }, { action: "tap", viewHierarchy: { file: "gone.xml" } }],
  });
  await assertRejects(
    () => loadCaptureScreens(capture, { readFile: (p) => Deno.readFile(`/nonexistent/${p}`) }),
    FormatError,
    'actions.1.viewHierarchy.file: cannot read "gone.xml": no such file',
  );
});

Deno.test("loadCaptureScreens() refuses a hierarchy whose format it cannot detect", async () => {
  const capture = CaptureV1.parse({
    format: "cairn.capture/v1",
    platform: "web",
    actions: [{ action: "tap", viewHierarchy: "<html></html>" }],
  });
  await assertRejects(
    () => loadCaptureScreens(capture, { readFile: () => Promise.reject(new Error()) }),
    FormatError,
    "actions.0.viewHierarchy: cannot detect the hierarchy format",
  );
});

Deno.test("captureToEvents() emits no ActionCompleted for an action with noResult, and eventsToCapture() writes it back", () => {
  const capture = CaptureV1.parse({
    format: "cairn.capture/v1",
    platform: "web",
    mode: "human",
    actions: [
      { action: "navigate", url: "https://a.test/", noResult: true },
      { action: "readText", value: "5", noResult: true },
      { action: "tap" }, // no successful: a success, as before noResult existed
    ],
  });
  const events = captureToEvents(capture, { sessionId: "s", blobs: [] });
  assertEquals(events.map((e) => e.type), [
    "SessionStarted",
    "ActionPerformed",
    "ActionPerformed",
    "ActionPerformed",
    "ActionCompleted",
    "SessionEnded",
  ]);
  // with no result to hold it, a read's value stays on the action
  assertEquals((events[2]!.data as { value?: string }).value, "5");
  assertEquals(events[4]!.data, { actionId: "a3", ok: true, durationMs: 0 });
  const back = eventsToCapture(events, { blobs: new Map() });
  assertEquals(back.actions.map((a) => [a.noResult, a.successful]), [
    [true, undefined],
    [true, undefined],
    [undefined, true],
  ]);
  assertEquals(back.actions[1]!.value, "5");
});

Deno.test("CaptureV1 refuses noResult beside a result field", () => {
  const dialogs = [{ type: "alert", message: "Saved", response: "accepted" }];
  for (const result of [{ successful: true }, { error: "gone" }, { durationMs: 5 }, { dialogs }]) {
    const r = CaptureV1.safeParse({
      format: "cairn.capture/v1",
      platform: "web",
      actions: [{ action: "tap", noResult: true, ...result }],
    });
    assert(!r.success);
    assertStringIncludes(
      zodToFormatError(r.error).message,
      "actions.0.noResult: an action with no result has no successful, error, durationMs, dialogs",
    );
  }
});

Deno.test("eventsToCapture() keeps the dialogs an action's result lists, and they read back", () => {
  const dialogs = [
    { type: "alert", message: "Saved", response: "accepted", tabId: "tab-1" },
    { type: "confirm", message: "Delete everything?", response: "dismissed" },
  ] as const;
  const events: NewEvent[] = [
    { type: "SessionStarted", data: { sessionId: "s", mode: "agent", platform: "web" } },
    { type: "ActionPerformed", data: { actionId: "x", kind: "tap", source: "agent" } },
    {
      type: "ActionCompleted",
      data: { actionId: "x", ok: true, durationMs: 4, dialogs: [...dialogs] },
    },
    { type: "SessionEnded", data: { reason: "completed" } },
  ];
  const capture = CaptureV1.parse(
    JSON.parse(JSON.stringify(eventsToCapture(events, { blobs: new Map() }))),
  );
  assertEquals(capture.actions[0]!.dialogs, [...dialogs]);
  const back = captureToEvents(capture, { sessionId: "s", blobs: [] });
  assertEquals(comparableEvents(back), comparableEvents(events));
});

Deno.test("CaptureV1 refuses a dialog with an unknown field or type", () => {
  for (
    const dialog of [
      { type: "alert", message: "Hi", response: "accepted", answer: "ok" },
      { type: "toast", message: "Hi", response: "accepted" },
    ]
  ) {
    const r = CaptureV1.safeParse({
      format: "cairn.capture/v1",
      platform: "web",
      actions: [{ action: "tap", dialogs: [dialog] }],
    });
    assert(!r.success);
    assertStringIncludes(zodToFormatError(r.error).message, "actions.0.dialogs.0");
  }
});

Deno.test("eventsToCapture() keeps each screen's tab, viewport, pixel ratio and scroll apart from the action's tab", async () => {
  const { put, blobs } = memoryBlobs();
  const hierarchy = await put(new TextEncoder().encode(XML), "application/xml");
  const screen = { hierarchy, format: "uiautomator-dump" as const };
  const events: NewEvent[] = [
    { type: "SessionStarted", data: { sessionId: "s", mode: "agent", platform: "android" } },
    // a recording_v1 snapshot has a tab, its decision none
    { type: "ScreenCaptured", data: { ...screen, tabId: "7" } },
    { type: "ActionPerformed", data: { actionId: "a", kind: "tap", source: "agent" } },
    // a blaze action and its screen: the same tab, the viewport of the moment
    {
      type: "ScreenCaptured",
      data: {
        ...screen,
        tabId: "tab-1",
        viewport: { width: 1280, height: 800 },
        devicePixelRatio: 2,
        scroll: { x: 0, y: 120 },
      },
    },
    {
      type: "ActionPerformed",
      data: { actionId: "b", kind: "tap", source: "agent", tabId: "tab-1" },
    },
    // an action in the tab its screen opened
    { type: "ScreenCaptured", data: { ...screen, tabId: "tab-1" } },
    {
      type: "ActionPerformed",
      data: { actionId: "c", kind: "tap", source: "agent", tabId: "tab-2" },
    },
    { type: "SessionEnded", data: { reason: "completed" } },
  ];
  const capture = CaptureV1.parse(JSON.parse(JSON.stringify(eventsToCapture(events, { blobs }))));
  assertEquals(capture.actions.map((a) => [a.tabId, a.pageTabId]), [
    [undefined, "7"],
    ["tab-1", undefined],
    ["tab-2", "tab-1"],
  ]);
  assertEquals(capture.actions[1]!.scroll, { x: 0, y: 120 });
  const { screens } = resolveScreens(
    await loadCaptureScreens(capture, { readFile: () => Promise.reject(new Error("no")) }),
  );
  const back = captureToEvents(capture, { sessionId: "s", blobs: screens });
  assertEquals(comparableEvents(back), comparableEvents(events));
});

Deno.test("CaptureV1 refuses a screen's viewport without the screen", () => {
  const r = CaptureV1.safeParse({
    format: "cairn.capture/v1",
    platform: "web",
    actions: [{ action: "tap", viewport: { width: 800, height: 600 } }],
  });
  assert(!r.success);
  assertStringIncludes(
    zodToFormatError(r.error).message,
    "actions.0.viewHierarchy: pageTabId, viewport, devicePixelRatio, scroll describe the action's screen",
  );
});

Deno.test("captureToEvents() keeps an empty memoryWrittenBy, as a blaze snapshot has it", () => {
  const events = captureToEvents(
    CaptureV1.parse({
      format: "cairn.capture/v1",
      platform: "web",
      actions: [
        { action: "tap", memoryState: {}, memoryWrittenBy: {} },
        { action: "tap", memoryState: {} },
      ],
    }),
    { sessionId: "s", blobs: [] },
  );
  assertEquals(events.filter((e) => e.type === "MemorySnapshotted").map((e) => e.data), [
    { memory: {}, writtenBy: {} },
    { memory: {} },
  ]);
  const back = eventsToCapture(events, { blobs: new Map() });
  assertEquals(back.actions.map((a) => a.memoryWrittenBy), [{}, undefined]);
});

Deno.test("captureToEvents() with ended: null ends neither the session nor its last step", () => {
  const capture = CaptureV1.parse({
    format: "cairn.capture/v1",
    platform: "web",
    ended: null,
    actions: [{ action: "tap", coordinates: { x: 1, y: 2 }, nlStep: "Save" }],
  });
  const events = captureToEvents(capture, { sessionId: "s", blobs: [] });
  assertEquals(events.map((e) => e.type), [
    "SessionStarted",
    "StepStarted",
    "ActionPerformed",
    "ActionCompleted",
  ]);
  assertEquals(eventsToCapture(events, { blobs: new Map() }).ended, null);
});

Deno.test("CaptureV1 refuses endedAt on a run that has not ended", () => {
  const r = CaptureV1.safeParse({
    format: "cairn.capture/v1",
    platform: "web",
    ended: null,
    endedAt: "2026-03-09T10:00:02Z",
    actions: [],
  });
  assert(!r.success);
  assertStringIncludes(zodToFormatError(r.error).message, "endedAt: a run that has not ended");
});
