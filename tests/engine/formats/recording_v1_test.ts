import { assert, assertEquals, assertThrows } from "../../_fixtures/assert.ts";
import type { NewEvent } from "../../../events/schemas.ts";
import { blobRefOf } from "../../../engine/formats/blob_ref.ts";
import { FormatError } from "../../../engine/input/format_error.ts";
import {
  eventsToRecording,
  recordingFileName,
  recordingToEvents,
  RecordingV1,
} from "../../../engine/formats/recording_v1.ts";
import { comparableEvents } from "../../../engine/formats/round_trip.ts";

const DIR = new URL("../../testdata/formats/", import.meta.url);
const AGENT = "vw-ax-agent-trace-7f3c-20251219-120000.json";
const HUMAN = "vw-ax-human-hs-0042-20251219-130500.json";

async function sample(name: string): Promise<Record<string, unknown>> {
  return JSON.parse(await Deno.readTextFile(new URL(name, DIR)));
}

function blobMap(blobs: { bytes: Uint8Array; mediaType: string }[]) {
  return new Map(blobs.map((b) => [blobRefOf(b).hash, b.bytes]));
}

function ofType<T extends NewEvent["type"]>(events: NewEvent[], type: T) {
  return events.filter((e): e is Extract<NewEvent, { type: T }> => e.type === type);
}

Deno.test("recordingToEvents() maps an agent recording's timeline and summary", async () => {
  const { events } = recordingToEvents(await sample(AGENT), { sessionId: "s1", file: AGENT });
  assertEquals(events.map((e) => e.type), [
    "SessionStarted",
    "ScreenCaptured",
    "ActionPerformed",
    "ActionCompleted",
    "ActionPerformed",
    "ActionCompleted",
    "ActionPerformed",
    "ActionCompleted",
    "NavigationOccurred",
    "ScreenCaptured",
    "ActionPerformed",
    "ActionCompleted",
    "SessionEnded",
  ]);
  assertEquals(events[0]!.data, {
    sessionId: "s1",
    mode: "agent",
    platform: "web",
    prompt: "Show me the cheapest flights from Lisbon to Oslo",
    url: "https://flights.example.test/",
    drivers: { extension: "1.8.2" },
    source: { format: "recording_v1", id: "trace-7f3c", file: AGENT },
  });
  assertEquals(events[0]!.meta?.recordedAt, "2025-12-19T12:00:00Z");
  const [first] = ofType(events, "ActionPerformed");
  assertEquals(first!.data, {
    actionId: "s1",
    kind: "inputText",
    text: "Lisbon", // action_type "type" is inputText's own name: no raw tool name
    toolParams: { timeout_ms: 4000, retries: 0, confidence: 0.92, notes: "fill origin" },
    target: { axNodeId: "3", role: "combobox", name: "From" },
    source: "agent",
  });
  const screen = ofType(events, "ScreenCaptured")[0]!;
  assertEquals(screen.data.format, "axtree_v1");
  assertEquals(screen.data.tabId, "123");
  assertEquals(ofType(events, "ActionCompleted")[3]!.data, {
    actionId: "s4",
    ok: false,
    durationMs: 4000,
    error: "Element not interactable",
  });
  assertEquals(ofType(events, "SessionEnded")[0]!.data, { reason: "failed" });
  assertEquals(ofType(events, "NavigationOccurred")[0]!.data.reason, "navigate");
});

Deno.test("recordingToEvents() reads a human recording with the recorder's x, y and selectors", async () => {
  const { events } = recordingToEvents(await sample(HUMAN), { sessionId: "h" });
  assertEquals(ofType(events, "SessionStarted")[0]!.data.mode, "human");
  const actions = ofType(events, "ActionPerformed").map((e) => e.data);
  assertEquals(actions.map((a) => a.source), ["human", "human", "human", "human"]);
  assertEquals(actions[0]!.point, { x: 250, y: 216 });
  assertEquals(actions[1]!, {
    actionId: "h2",
    kind: "inputText",
    point: { x: 250, y: 216 },
    text: "ana@work.example",
    toolName: "change",
    target: {
      axNodeId: "1",
      role: "textbox",
      name: "Email",
      selectors: { id: "email", cssPath: "#email" },
    },
    source: "human",
  });
  assertEquals(actions[2]!.target?.axNodeId, "2");
  assertEquals(actions[3]!.kind, "keyPress");
  assertEquals(actions[3]!.key, "Enter");
  const screens = ofType(events, "ScreenCaptured").map((e) => e.data.format);
  assertEquals(screens, ["chrome", "axtree_v1"]);
  const navs = ofType(events, "NavigationOccurred").map((e) => e.data);
  assertEquals(navs[1], { url: "http://127.0.0.1:8080/privacy", reason: "new_tab", tabId: "8" });
  assertEquals(ofType(events, "ActionCompleted").length, 0);
});

for (const name of [AGENT, HUMAN]) {
  Deno.test(`eventsToRecording() then recordingToEvents() gives the same events (${name})`, async () => {
    const imported = recordingToEvents(await sample(name), { sessionId: "x", file: name });
    const blobs = blobMap(imported.blobs);
    const exported = eventsToRecording(imported.events, { blobs });
    const text = JSON.stringify(exported);
    assert(RecordingV1.safeParse(JSON.parse(text)).success);
    const again = recordingToEvents(JSON.parse(text), { sessionId: "y" });
    assertEquals(comparableEvents(again.events), comparableEvents(imported.events));
    assertEquals(again.events.map((e) => e.meta), imported.events.map((e) => e.meta));
    const original = (await sample(name)).summary;
    assertEquals(exported.summary, original as typeof exported.summary);
    assertEquals(recordingFileName(exported), name);
  });
}

Deno.test("eventsToRecording() wraps a non-AX hierarchy so it reads back to the same bytes", () => {
  const xml = `<hierarchy><node text="Hi" bounds="[0,0][1,1]"/></hierarchy>`;
  const blob = { bytes: new TextEncoder().encode(xml), mediaType: "application/xml" };
  const events: NewEvent[] = [
    { type: "SessionStarted", data: { sessionId: "a", mode: "agent", platform: "android" } },
    {
      type: "ScreenCaptured",
      data: { hierarchy: blobRefOf(blob), format: "uiautomator-dump" },
    },
    { type: "SessionEnded", data: { reason: "completed" } },
  ];
  const rec = eventsToRecording(events, { blobs: blobMap([blob]) });
  const snapshot = rec.timeline[0]!.kind === "ax_snapshot" ? rec.timeline[0]!.snapshot : {};
  assertEquals(snapshot, {
    schema_version: "cairn.hierarchy/v1",
    format: "uiautomator-dump",
    text: xml,
  });
  const back = recordingToEvents(JSON.parse(JSON.stringify(rec)), { sessionId: "b" });
  assertEquals(back.events[1]!.data, events[1]!.data);
});

const BAD: { name: string; edit: (r: Record<string, unknown>) => void; message: string }[] = [
  {
    name: "an unknown action type",
    edit: (
      r,
    ) => ((r.timeline as { step?: { action_type: string } }[])[1]!.step!.action_type = "hover"),
    message: 'timeline.1.step.action_type: unknown action type "hover"',
  },
  {
    name: "an unknown snapshot schema",
    edit: (r) => ((r.timeline as { snapshot?: { schema_version: string } }[])[0]!.snapshot!
      .schema_version = "axtree_v9"),
    message: 'timeline.0.snapshot.schema_version: unknown snapshot format "axtree_v9"',
  },
  {
    name: "an action_result for no step",
    edit: (r) => ((r.timeline as { step_id?: string }[])[2]!.step_id = "zz"),
    message: 'timeline.2.step_id: no earlier decision or human_action has step_id "zz"',
  },
  {
    name: "an unknown kind",
    edit: (r) => ((r.timeline as { kind: string }[])[2]!.kind = "thought"),
    message: "timeline.2.kind: ",
  },
  {
    name: "a snapshot node without an id",
    edit: (r) =>
      delete (r.timeline as { snapshot?: { nodes: { node_id?: string }[] } }[])[0]!.snapshot!
        .nodes[2]!.node_id,
    message: "timeline.0.snapshot.nodes.2.node_id: ",
  },
  {
    name: "a negative timeout",
    edit: (r) => ((r.timeline as { step?: { timeout_ms?: number } }[])[1]!.step!.timeout_ms = -5),
    message: "timeline.1.step.timeout_ms: ",
  },
  {
    name: "a fractional retry count",
    edit: (r) => ((r.timeline as { step?: { retries?: number } }[])[1]!.step!.retries = 1.5),
    message: "timeline.1.step.retries: ",
  },
  {
    name: "a missing mode",
    edit: (r) => delete r.mode,
    message: "mode: ",
  },
  {
    name: "a creation time on 30 February",
    edit: (r) => (r.created_at = "2025-02-30T10:00:00Z"),
    message: "created_at: expected an ISO 8601 date-time",
  },
  {
    name: "an entry time that is not a date-time",
    edit: (r) => ((r.timeline as { t: string }[])[1]!.t = "hello 2"),
    message: "timeline.1.t: expected an ISO 8601 date-time",
  },
  {
    name: "a wrapped hierarchy that does not parse",
    edit: (r) => ((r.timeline as { snapshot?: unknown }[])[0]!.snapshot = {
      schema_version: "cairn.hierarchy/v1",
      format: "uiautomator-dump",
      text: '<hierarchy><node bounds="[0,0][1,1]"><unclosed',
    }),
    message: "timeline.0.snapshot.text: Unterminated start tag <unclosed> at line 1, column 38",
  },
  {
    name: "an AX snapshot whose nodes nest 20,000 deep",
    edit: (r) => ((r.timeline as { snapshot?: unknown }[])[0]!.snapshot = {
      schema_version: "axtree_v1",
      nodes: Array.from(
        { length: 20_000 },
        (_, i) => ({ node_id: `${i}`, children: [`${i + 1}`] }),
      ),
    }),
    message: "timeline.0.snapshot: Hierarchy nodes nested deeper than 1000 levels",
  },
];

for (const c of BAD) {
  Deno.test(`recordingToEvents() names the field of ${c.name}`, async () => {
    const rec = await sample(AGENT);
    c.edit(rec);
    assertThrows(() => recordingToEvents(rec, { sessionId: "s" }), FormatError, c.message);
  });
}

Deno.test("eventsToRecording() writes a Chrome hierarchy as an object only when that keeps its bytes", async () => {
  const rec = await sample(HUMAN);
  const chrome = (rec.timeline as { snapshot?: unknown }[])[0]!.snapshot;
  const enc = new TextEncoder();
  const compact = { bytes: enc.encode(JSON.stringify(chrome)), mediaType: "application/json" };
  // as a capture file may hold it (examples/web_checkout/)
  const pretty = {
    bytes: enc.encode(JSON.stringify(chrome, null, 2)),
    mediaType: "application/json",
  };
  const events: NewEvent[] = [
    { type: "SessionStarted", data: { sessionId: "a", mode: "agent", platform: "web" } },
    { type: "ScreenCaptured", data: { hierarchy: blobRefOf(compact), format: "chrome" } },
    { type: "ScreenCaptured", data: { hierarchy: blobRefOf(pretty), format: "chrome" } },
    { type: "SessionEnded", data: { reason: "completed" } },
  ];
  const out = eventsToRecording(events, { blobs: blobMap([compact, pretty]) });
  const snapshots = out.timeline.map((e) => e.kind === "ax_snapshot" ? e.snapshot : undefined);
  assertEquals(snapshots, [
    chrome,
    {
      schema_version: "cairn.hierarchy/v1",
      format: "chrome",
      text: JSON.stringify(chrome, null, 2),
    },
  ]);
  const back = recordingToEvents(JSON.parse(JSON.stringify(out)), { sessionId: "b" });
  // both screens come back with the viewport, pixel ratio and scroll their snapshot holds, and
  // the session with its first screen's viewport and pixel ratio
  const view = {
    viewport: { width: 1280, height: 720 },
    devicePixelRatio: 1,
    scroll: { x: 0, y: 0 },
  };
  const withView = events.map((e): NewEvent =>
    e.type === "ScreenCaptured"
      ? { ...e, data: { ...e.data, ...view } }
      : e.type === "SessionStarted"
      ? { ...e, data: { ...e.data, viewport: view.viewport, devicePixelRatio: 1 } }
      : e
  );
  assertEquals(comparableEvents(back.events), comparableEvents(withView));
});

Deno.test("recordingToEvents() reads a Chrome snapshot's viewport, pixel ratio and scroll, and no tool name a recording had to write", async () => {
  // a session of Cairn's human recorder: each screen with its viewport, pixel ratio and scroll
  // (those of the Chrome hierarchy it stores), actions without a raw tool name
  const rec = await sample(HUMAN);
  const chrome = (rec.timeline as { snapshot?: Record<string, unknown> }[])[0]!.snapshot!;
  const scrolled = { ...chrome, devicePixelRatio: 2, scroll: { x: 0, y: 340 } };
  const bytes = (v: unknown) => ({
    bytes: new TextEncoder().encode(JSON.stringify(v)),
    mediaType: "application/json",
  });
  const [first, second] = [bytes(chrome), bytes(scrolled)];
  const events: NewEvent[] = [
    {
      type: "SessionStarted",
      data: {
        sessionId: "a",
        mode: "human",
        platform: "web",
        url: "http://127.0.0.1:8080/newsletter",
        viewport: { width: 1280, height: 720 },
        devicePixelRatio: 1,
      },
    },
    {
      type: "ScreenCaptured",
      data: {
        hierarchy: blobRefOf(first),
        format: "chrome",
        url: "http://127.0.0.1:8080/newsletter",
        viewport: { width: 1280, height: 720 },
        devicePixelRatio: 1,
        scroll: { x: 0, y: 0 },
        tabId: "tab-1",
      },
    },
    {
      type: "ActionPerformed",
      data: { actionId: "h1", kind: "tap", point: { x: 5, y: 5 }, source: "human", tabId: "tab-1" },
    },
    {
      type: "ScreenCaptured",
      data: {
        hierarchy: blobRefOf(second),
        format: "chrome",
        url: "http://127.0.0.1:8080/newsletter",
        viewport: { width: 1280, height: 720 },
        devicePixelRatio: 2,
        scroll: { x: 0, y: 340 },
        tabId: "tab-1",
      },
    },
    {
      type: "ActionPerformed",
      data: { actionId: "h2", kind: "inputText", text: "ana", source: "human", tabId: "tab-1" },
    },
    { type: "SessionEnded", data: { reason: "completed" } },
  ];
  const out = eventsToRecording(events, { blobs: blobMap([first, second]) });
  const back = recordingToEvents(JSON.parse(JSON.stringify(out)), { sessionId: "b" });
  assertEquals(comparableEvents(back.events), comparableEvents(events));
  // a raw tool name that is not its kind's own name is kept
  const double = structuredClone(out);
  const step = double.timeline.find((e) => e.kind === "human_action")!;
  (step as { step: { action_type: string } }).step.action_type = "double_click";
  const read = recordingToEvents(double, { sessionId: "c" });
  assertEquals(ofType(read.events, "ActionPerformed")[0]!.data.toolName, "double_click");
});

Deno.test("recordingToEvents() checks a Cairn Chrome snapshot against its schema", async () => {
  const rec = await sample(HUMAN);
  delete (rec.timeline as { snapshot?: { viewport?: unknown } }[])[0]!.snapshot!.viewport;
  assertThrows(
    () => recordingToEvents(rec, { sessionId: "s" }),
    FormatError,
    "timeline.0.snapshot.viewport: ",
  );
});

Deno.test("recordingToEvents() builds a Cairn Chrome snapshot's tree as optimize will", async () => {
  const rec = await sample(HUMAN);
  const nodes = (rec.timeline as { snapshot?: { nodes: { children?: number[] }[] } }[])[0]!
    .snapshot!.nodes;
  nodes[1]!.children = [0]; // fits the schema, but links back to the root
  assertThrows(
    () => recordingToEvents(rec, { sessionId: "s" }),
    FormatError,
    "timeline.0.snapshot: Invalid Chrome hierarchy at nodes.1.children: 0 is not a later node",
  );
});

Deno.test("recordingToEvents() takes a raw CDP AX tree as an axtree_v1 snapshot", async () => {
  const rec = await sample(AGENT);
  const timeline = rec.timeline as { snapshot?: unknown }[];
  timeline[0]!.snapshot = {
    nodes: [{ nodeId: "7", ignored: false, role: { type: "role", value: "button" }, childIds: [] }],
  };
  const imported = recordingToEvents(rec, { sessionId: "s" });
  const screen = ofType(imported.events, "ScreenCaptured")[0]!;
  assertEquals(screen.data.format, "axtree_v1");
  const again = recordingToEvents(
    JSON.parse(
      JSON.stringify(eventsToRecording(imported.events, { blobs: blobMap(imported.blobs) })),
    ),
    { sessionId: "t" },
  );
  assertEquals(comparableEvents(again.events), comparableEvents(imported.events));
  timeline[0]!.snapshot = { nodes: [{ id: 1 }] };
  assertThrows(
    () => recordingToEvents(rec, { sessionId: "s" }),
    FormatError,
    "timeline.0.snapshot.schema_version: missing",
  );
});

const ENDINGS: [string, Record<string, unknown>, string[]][] = [
  ["a summary", {}, ["failed"]], // the sample's ended_reason
  ["an ended_at but no summary", { summary: undefined }, ["interrupted"]],
  ["neither a summary nor an ended_at", { summary: undefined, ended_at: null }, []],
];
for (const [what, change, reasons] of ENDINGS) {
  Deno.test(`recordingToEvents() of a recording with ${what} ends it ${reasons[0] ?? "not at all"}`, async () => {
    const rec = { ...await sample(AGENT), ...change };
    const { events } = recordingToEvents(JSON.parse(JSON.stringify(rec)), { sessionId: "s" });
    assertEquals(ofType(events, "SessionEnded").map((e) => e.data.reason), reasons);
  });
}
