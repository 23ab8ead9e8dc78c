import { assert, assertEquals, assertThrows } from "../../_fixtures/assert.ts";
import type { NewEvent } from "../../../events/schemas.ts";
import { blobRefOf } from "../../../engine/formats/blob_ref.ts";
import { encodeBase64 } from "../../../engine/formats/base64.ts";
import { formatEventsJsonl, parseEventsJsonl } from "../../../engine/formats/events_jsonl.ts";
import { FormatError } from "../../../engine/input/format_error.ts";

const XML = new TextEncoder().encode('<hierarchy><node bounds="[0,0][10,10]"/></hierarchy>');
const REF = blobRefOf({ bytes: XML, mediaType: "application/xml" });
const START = `{"type":"SessionStarted","data":{"sessionId":"x","mode":"agent","platform":"web"}}`;

Deno.test("formatEventsJsonl() writes each blob once before its first reference and reads back", () => {
  const events: NewEvent[] = [
    { type: "SessionStarted", data: { sessionId: "x", mode: "agent", platform: "web" } },
    { type: "ScreenCaptured", data: { hierarchy: REF, format: "uiautomator-dump" } },
    { type: "ScreenCaptured", data: { hierarchy: REF, format: "uiautomator-dump" } },
  ];
  const text = formatEventsJsonl(events, new Map([[REF.hash, XML]]));
  const lines = text.trim().split("\n").map((l) => JSON.parse(l));
  assertEquals(lines.map((l) => l.type ?? "blob"), [
    "SessionStarted",
    "blob",
    "ScreenCaptured",
    "ScreenCaptured",
  ]);
  const file = parseEventsJsonl(text);
  assertEquals(file.events.map((e) => e.data), events.map((e) => e.data));
  assertEquals(file.lines, [1, 3, 4]);
  assertEquals(file.blobs, [{ bytes: XML, mediaType: "application/xml" }]);
});

Deno.test("parseEventsJsonl() keeps data as it is, raw tool parameters of any shape included", () => {
  const performed = {
    actionId: "a1",
    kind: "tap",
    toolParams: { promt: "any key", nested: [{ x: 1 }] },
    source: "agent",
  };
  const file = parseEventsJsonl(
    `${START}\n${JSON.stringify({ type: "ActionPerformed", data: performed })}`,
  );
  assertEquals(file.events[1]!.data as unknown, performed);
});

Deno.test("formatEventsJsonl() carries causation and correlation ids, never the idempotency key", () => {
  const meta = {
    recordedAt: "2026-03-09T10:00:00.000Z",
    causationId: "c1",
    correlationId: "checkout-regression",
    idempotencyKey: "k1",
  };
  const text = formatEventsJsonl([{
    type: "SessionEnded",
    data: { reason: "completed" },
    meta,
  }], new Map());
  assertEquals(JSON.parse(text).meta, {
    recordedAt: meta.recordedAt,
    causationId: "c1",
    correlationId: "checkout-regression",
  });
  assertEquals(parseEventsJsonl(`${START}\n${text}`).events[1]!.meta, {
    recordedAt: meta.recordedAt,
    causationId: "c1",
    correlationId: "checkout-regression",
  });
});

Deno.test("parseEventsJsonl() upcasts an older schemaVersion", () => {
  const v1 = JSON.stringify({
    type: "ScreenCaptured",
    schemaVersion: 1,
    data: { hierarchyHash: REF.hash, hierarchySize: REF.size, format: "uiautomator-dump" },
  });
  const file = parseEventsJsonl(`${START}\n${v1}\n`);
  assertEquals(file.events[1]!.data, { hierarchy: REF, format: "uiautomator-dump" });
  assertEquals(file.references.get(REF.hash)?.line, 2);
});

/** A blob line and the reference to it. */
function blob(
  text: string,
  mediaType: string,
): { line: string; ref: ReturnType<typeof blobRefOf> } {
  const bytes = new TextEncoder().encode(text);
  const ref = blobRefOf({ bytes, mediaType });
  return { line: JSON.stringify({ blob: ref, base64: encodeBase64(bytes) }), ref };
}
const BAD_XML = blob('<hierarchy><node bounds="[0,0][1,1]"', "application/xml");
const NOT_PNG = blob("not a png", "image/png");
function screen(data: Record<string, unknown>): string {
  return JSON.stringify({ type: "ScreenCaptured", data: { format: "uiautomator-dump", ...data } });
}

const BAD: [string, string, string][] = [
  ["a line that is not JSON", `${START}\n{"type": }\n`, "line 2, column 10: expected a value"],
  [
    "an unknown type",
    `${START}\n{"type":"Nope","data":{}}`,
    'line 2: type: unknown event type "Nope"',
  ],
  [
    "a playback event",
    `${START}\n{"type":"PlaybackCompleted","data":{"status":"completed","durationMs":1}}`,
    "line 2: type: PlaybackCompleted is not a session event",
  ],
  [
    "data that does not fit",
    `${START}\n{"type":"StepStarted","data":{"index":-1,"text":"a"}}`,
    "line 2: data.index: ",
  ],
  [
    "a schemaVersion newer than this Cairn knows, naming schemaVersion (not data, not 'Stored')",
    `${START}\n{"type":"StepStarted","schemaVersion":99,"data":{"index":0,"text":"a"}}`,
    "line 2: schemaVersion: StepStarted has schema version 99, newer than this Cairn knows (1)",
  ],
  [
    "another type's data under a version the type never had",
    `${START}\n${
      JSON.stringify({ type: "StepStarted", schemaVersion: 2, data: { hierarchy: REF } })
    }`,
    "line 2: schemaVersion: StepStarted has schema version 2, newer than this Cairn knows (1)",
  ],
  [
    "an older version's data in the current shape, naming the old version's field",
    `${START}\n${
      JSON.stringify({
        type: "ScreenCaptured",
        schemaVersion: 1,
        data: { hierarchy: REF, format: "uiautomator-dump" },
      })
    }`,
    "line 2: data.hierarchyHash: ",
  ],
  [
    "a blob whose bytes do not match its hash",
    `${START}\n${JSON.stringify({ blob: REF, base64: encodeBase64(new Uint8Array([1])) })}`,
    "line 2: blob.hash does not match the sha256 of its bytes",
  ],
  [
    "a blob that is not base64",
    `${START}\n${JSON.stringify({ blob: REF, base64: "%%" })}`,
    "line 2: base64: ",
  ],
  ["an array line", `${START}\n[1, 2]`, "line 2: expected an event object"],
  [
    "a recordedAt that is not a date-time",
    `${START}\n{"type":"SessionEnded","data":{"reason":"completed"},"meta":{"recordedAt":"garbage"}}`,
    "line 2: meta.recordedAt: expected an ISO 8601 date-time",
  ],
  [
    "a recordedAt on 30 February",
    `${START}\n{"type":"SessionEnded","data":{"reason":"completed"},` +
    `"meta":{"recordedAt":"2026-02-30T00:00:00Z"}}`,
    "line 2: meta.recordedAt: expected an ISO 8601 date-time",
  ],
  [
    "an unknown data field",
    `${START}\n{"type":"StepStarted","data":{"index":0,"text":"a","promt":"typo"}}`,
    "line 2: data.promt: unknown field (not in the StepStarted schema)",
  ],
  [
    "an unknown field deeper in the data",
    `${START}\n{"type":"ActionPerformed","data":{"actionId":"a","kind":"tap","source":"agent",` +
    `"target":{"name":"Go","selectr":{"css":"#go"}}}}`,
    "line 2: data.target.selectr: unknown field (not in the ActionPerformed schema)",
  ],
  [
    "a pretty-printed event",
    `{\n  "type": "StepStarted",\n  "data": { "index": 0, "text": "a" }\n}\n`,
    "line 1: not a complete JSON event (an events file holds one JSON event per line)",
  ],
  [
    "a last line cut short",
    `${START}\n{"type":"StepStarted","data":{"index":0,"te\n\n`,
    "line 2, column 44: unexpected end of input (is the file truncated?)",
  ],
  [
    "a line nested too deep",
    `${START}\n{"type":"StepStarted","data":${"[".repeat(1000)}${"]".repeat(1000)}}`,
    "line 2: data.0.0.0.0…: nested deeper than 1000 levels",
  ],
  [
    "an unknown field of an older schemaVersion",
    `${START}\n{"type":"ScreenCaptured","schemaVersion":1,"data":{"hierarchyHash":"${REF.hash}",` +
    `"hierarchySize":${REF.size},"format":"uiautomator-dump","viewprt":{"width":1,"height":1}}}`,
    "line 2: data.viewprt: unknown field (not in the ScreenCaptured schema)",
  ],
  [
    "an unknown field of an event line",
    `${START}\n{"type":"SessionEnded","data":{"reason":"completed"},"position":7}`,
    "line 2: position: unknown field (an event line holds type, schemaVersion, data, meta)",
  ],
  [
    "an unknown field of a blob line",
    `${START}\n${JSON.stringify({ blob: REF, base64: encodeBase64(XML), note: "x" })}`,
    "line 2: note: unknown field (a blob line holds blob, base64)",
  ],
  [
    "an unknown meta field",
    `${START}\n{"type":"SessionEnded","data":{"reason":"completed"},"meta":{"idempotencyKey":"k"}}`,
    "line 2: meta.idempotencyKey: unknown field (meta holds recordedAt, causationId, correlationId)",
  ],
  [
    "a session with a viewport of no area",
    `{"type":"SessionStarted","data":{"sessionId":"x","mode":"agent","platform":"web",` +
    `"viewport":{"width":1280,"height":0}}}`,
    "line 1: data.viewport.height: expected a size above 0 (a viewport has an area)",
  ],
  [
    "a meta id that is not a string",
    `${START}\n{"type":"SessionEnded","data":{"reason":"completed"},"meta":{"correlationId":7}}`,
    "line 2: meta.correlationId: expected a string",
  ],
  [
    "a meta that is not an object",
    `${START}\n{"type":"SessionEnded","data":{"reason":"completed"},"meta":1}`,
    "line 2: meta: expected an object",
  ],
  [
    "a hierarchy that does not parse",
    `${START}\n${BAD_XML.line}\n${screen({ hierarchy: BAD_XML.ref })}`,
    "line 3: data.hierarchy: Unterminated start tag <node> at line 1, column 12",
  ],
  [
    "a hierarchy that does not parse, carried after its event",
    `${START}\n${screen({ hierarchy: BAD_XML.ref })}\n${BAD_XML.line}`,
    "line 2: data.hierarchy: Unterminated start tag <node>",
  ],
  [
    "a screenshot that is not an image of its type",
    `${START}\n${JSON.stringify({ blob: REF, base64: encodeBase64(XML) })}\n${NOT_PNG.line}\n` +
    screen({ hierarchy: REF, screenshot: NOT_PNG.ref }),
    "line 4: data.screenshot: not a PNG image (its bytes do not start with the PNG signature)",
  ],
];

for (const [name, text, message] of BAD) {
  Deno.test(`parseEventsJsonl() names the line of ${name}`, () => {
    const err = assertThrows(() => parseEventsJsonl(text), FormatError, message);
    assert(!err.message.includes("Stored"), err.message);
  });
}
