import { assertEquals } from "../../_fixtures/assert.ts";
import { eventsToPlan } from "../../../engine/playback/from_events.ts";
import type { SessionEvent } from "../../../engine/playback/from_events.ts";

const meta = { recordedAt: "2026-11-22T05:00:00.000Z" };
function ev(position: number, type: string, data: unknown): SessionEvent {
  return {
    position,
    streamId: "session-s",
    streamVersion: position,
    type,
    schemaVersion: 1,
    data,
    meta,
  } as SessionEvent;
}

Deno.test("eventsToPlan() replays a recorded page scroll to its exact position, a container scroll by direction", () => {
  const plan = eventsToPlan([
    ev(1, "SessionStarted", { sessionId: "s", mode: "human", platform: "web" }),
    ev(2, "ActionPerformed", {
      actionId: "a1",
      kind: "scroll",
      direction: "down",
      toolParams: { scrollX: 0, scrollY: 640 },
      source: "human",
    }),
    ev(3, "ActionPerformed", {
      actionId: "a2",
      kind: "scroll",
      direction: "down",
      point: { x: 100, y: 200 },
      target: { selectors: { id: "list" } },
      toolParams: { scrollX: 0, scrollY: 90 },
      source: "human",
    }),
  ]);
  assertEquals(plan.actions.map((a) => [a.type, a.scrollTo, a.direction]), [
    ["scroll", { x: 0, y: 640 }, "down"],
    ["scroll", undefined, "down"],
  ]);
});

Deno.test("eventsToPlan() opens the page the session started on before its first action", () => {
  const click = {
    actionId: "a1",
    kind: "tap",
    target: { selectors: { id: "add" } },
    source: "human",
  };
  const cases: [string, SessionEvent[], string | undefined][] = [
    ["SessionStarted.url", [
      ev(1, "SessionStarted", {
        sessionId: "s",
        mode: "agent",
        platform: "web",
        url: "http://127.0.0.1:1/cart.html",
      }),
      ev(2, "ActionPerformed", click),
    ], "http://127.0.0.1:1/cart.html"],
    ["the first navigation (recording_v1)", [
      ev(1, "SessionStarted", { sessionId: "s", mode: "import", platform: "web" }),
      ev(2, "NavigationOccurred", { url: "http://127.0.0.1:1/a.html", reason: "navigate" }),
      ev(3, "ActionPerformed", click),
      ev(4, "NavigationOccurred", { url: "http://127.0.0.1:1/b.html", reason: "load" }),
    ], "http://127.0.0.1:1/a.html"],
    ["nothing known", [
      ev(1, "SessionStarted", { sessionId: "s", mode: "human", platform: "web" }),
      ev(2, "ActionPerformed", click),
    ], undefined],
  ];
  for (const [name, events, url] of cases) {
    const plan = eventsToPlan(events);
    assertEquals(
      plan.actions.map((a) => [a.type, a.url]),
      [...(url ? [["navigate", url]] : []), ["click", undefined]],
      name,
    );
  }
});
