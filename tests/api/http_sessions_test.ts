import { createApp } from "../../api/app.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { assertEquals } from "../_fixtures/assert.ts";

const H = (c: string) => c.repeat(64);

Deno.test("GET /v1/sessions lists session streams with their SessionStarted summary", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_http_s_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  try {
    const app = createApp({ store });
    await store.append("session-a", [
      {
        type: "SessionStarted",
        data: { sessionId: "a", mode: "human", platform: "web", url: "http://x/" },
      },
      { type: "SessionEnded", data: { reason: "completed" } },
    ]);
    await store.append("playback-p", [{
      type: "PlaybackCompleted",
      data: { status: "completed", durationMs: 1 },
    }]);
    await store.append("session-b", [{
      type: "StepStarted",
      data: { index: 0, text: "no start" },
    }]);
    const body = await (await app.request("/v1/sessions")).json();
    assertEquals(body.sessions.map((s: { sessionId: string }) => s.sessionId), ["a", "b"]);
    assertEquals(body.sessions[0].started.url, "http://x/");
    assertEquals(body.sessions[0].ended, { reason: "completed" });
    assertEquals(body.sessions[0].version, 2);
    assertEquals(body.sessions[1].started, null);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("GET /v1/sessions/:id/state?at=N returns the time-travel state; bad input is 400, unknown 404", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_http_s_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  try {
    const app = createApp({ store });
    await store.append("session-a", [
      { type: "SessionStarted", data: { sessionId: "a", mode: "agent", platform: "web" } },
      { type: "StepStarted", data: { index: 0, text: "Open" } },
      {
        type: "ScreenCaptured",
        data: {
          hierarchy: { hash: H("e"), mediaType: "application/json", size: 3 },
          format: "chrome",
          url: "http://x/1",
        },
      },
      { type: "StepStarted", data: { index: 1, text: "Tap" } },
    ]);
    const at3 = await (await app.request("/v1/sessions/a/state?at=3")).json();
    assertEquals(at3.state.step, { index: 0, text: "Open", ended: false });
    assertEquals(at3.state.screen.hierarchy.hash, H("e"));
    assertEquals(at3.state.counts.events, 3);
    const latest = await (await app.request("/v1/sessions/session-a/state")).json();
    assertEquals(latest.state.step.index, 1);
    const bad = await app.request("/v1/sessions/a/state?at=-1");
    assertEquals(bad.status, 400);
    assertEquals((await bad.json()).error.issues[0].path, "query.at");
    assertEquals((await app.request("/v1/sessions/zzz/state")).status, 404);
    // positions are the log's: another session's events come first, so `at` 2 names no state
    // of session b (as `cairn history --at`)
    await store.append("session-b", [
      { type: "SessionStarted", data: { sessionId: "b", mode: "agent", platform: "web" } },
      { type: "StepStarted", data: { index: 0, text: "Open" } },
    ]);
    const early = await app.request("/v1/sessions/b/state?at=2");
    assertEquals(early.status, 400);
    const err = (await early.json()).error;
    assertEquals(err.issues[0].path, "query.at");
    assertEquals(
      err.message,
      "at 2 is before this session's first event (position 5): session-b spans positions 5–6",
    );
    assertEquals(
      (await (await app.request("/v1/sessions/b/state?at=5")).json()).state.counts.events,
      1,
    );
    const tl = await (await app.request("/v1/sessions/a/timeline")).json();
    assertEquals(tl.timeline.map((t: { type: string }) => t.type), [
      "SessionStarted",
      "StepStarted",
      "ScreenCaptured",
      "StepStarted",
    ]);
    assertEquals(tl.timeline[1].summary, "step 1: Open");
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
