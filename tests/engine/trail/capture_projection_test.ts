import { assertEquals, assertThrows } from "../../_fixtures/assert.ts";
import type { BlobRef, NewEvent } from "../../../events/schemas.ts";
import { projectCapture } from "../../../engine/trail/capture_projection.ts";

const H1: BlobRef = { hash: "1".repeat(64), mediaType: "application/xml", size: 10 };
const H2: BlobRef = { hash: "2".repeat(64), mediaType: "application/xml", size: 12 };
const PNG: BlobRef = { hash: "3".repeat(64), mediaType: "image/png", size: 99 };

const EVENTS: NewEvent[] = [
  { type: "SessionStarted", data: { sessionId: "s", mode: "agent", platform: "android" } },
  {
    type: "StepStarted",
    data: { index: 0, text: "Sign in" },
    meta: { recordedAt: "2026-01-01T00:00:01Z" },
  },
  { type: "ScreenCaptured", data: { hierarchy: H1, format: "uiautomator2", screenshot: PNG } },
  { type: "ScreenCaptured", data: { hierarchy: H2, format: "uiautomator2" } },
  { type: "ActionPerformed", data: { actionId: "a1", kind: "tap", source: "agent" } },
  { type: "ActionCompleted", data: { actionId: "a1", ok: true, durationMs: 4 } },
  { type: "MemorySnapshotted", data: { memory: { email: "a@b.c" } } },
  {
    type: "ActionPerformed",
    data: { actionId: "a2", kind: "inputText", text: "x", source: "agent" },
  },
  { type: "NavigationOccurred", data: { url: "https://a.test/", reason: "load" } },
  { type: "ActionCompleted", data: { actionId: "a2", ok: false, durationMs: 9, error: "boom" } },
  { type: "StepEnded", data: { index: 0, ok: false } },
  { type: "ScreenCaptured", data: { hierarchy: H1, format: "uiautomator2" } },
  { type: "ActionPerformed", data: { actionId: "a3", kind: "back", source: "agent" } },
  { type: "SessionEnded", data: { reason: "failed", error: "boom" } },
];

Deno.test("projectCapture() gives each action its screen, result, memory and step", () => {
  const v = projectCapture(EVENTS);
  const [a1, a2, a3] = v.actions;
  assertEquals(a1!.screen?.data.hierarchy, H2);
  assertEquals(a1!.freshScreens.map((s) => s.data.hierarchy.hash), [H1.hash, H2.hash]);
  assertEquals(a1!.completed?.data.ok, true);
  assertEquals(a1!.memoryAfter?.data.memory, { email: "a@b.c" });
  assertEquals(a1!.step, { index: 0, text: "Sign in" });
  // a2 ran on the screen a1 saw: no fresh screen of its own.
  assertEquals(a2!.screen?.data.hierarchy, H2);
  assertEquals(a2!.freshScreens, []);
  assertEquals(a2!.completed?.data.error, "boom");
  assertEquals(a2!.memoryAfter, undefined);
  assertEquals(a3!.step, undefined);
  assertEquals(a3!.freshScreens.length, 1);
  assertEquals(v.steps, [{
    index: 0,
    text: "Sign in",
    ok: false,
    startedAt: "2026-01-01T00:00:01Z",
  }]);
  assertEquals(v.blobs.map((b) => b.hash), [H1.hash, PNG.hash, H2.hash]);
  assertEquals(v.ended?.data, { reason: "failed", error: "boom" });
  assertEquals(v.timeline.map((t) => t.kind), [
    "step_started",
    "screen",
    "screen",
    "action",
    "result",
    "memory",
    "action",
    "navigation",
    "result",
    "step_ended",
    "screen",
    "action",
  ]);
});

Deno.test("projectCapture() refuses a stream that is not a session", () => {
  assertThrows(() => projectCapture(EVENTS.slice(1)), TypeError, "must start with SessionStarted");
  assertThrows(
    () =>
      projectCapture([
        EVENTS[0]!,
        { type: "PlaybackCompleted", data: { status: "completed", durationMs: 1 } },
      ]),
    TypeError,
    "cannot hold PlaybackCompleted",
  );
});
