import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { NotFoundError } from "../../../events/event_store.ts";
import type { StoredEvent } from "../../../events/schemas.ts";
import {
  CHECKPOINT_EVERY,
  evolveSession,
  foldAt,
  type Projection,
  type SessionState,
  sessionStateProjection,
  stateAt,
  summarizeEvent,
} from "../../../engine/timeline/time_travel.ts";
import { syntheticSession } from "../../_fixtures/store_fixtures.ts";
import { assert, assertEquals, assertLessOrEqual, assertRejects } from "../../_fixtures/assert.ts";

const H = (c: string) => c.repeat(64);

async function withStore(fn: (store: SqliteEventStore) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "cairn_tt_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  try {
    await fn(store);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("stateAt() returns step, screen, memory, last action with result, url and counts at a position", async () => {
  await withStore(async (store) => {
    await store.append("session-s", [
      {
        type: "SessionStarted",
        data: {
          sessionId: "s",
          mode: "agent",
          platform: "web",
          url: "http://a/",
          memory: { email: "a@b.c" },
        },
      },
      { type: "StepStarted", data: { index: 0, text: "Sign in" } },
      {
        type: "ScreenCaptured",
        data: {
          hierarchy: { hash: H("1"), mediaType: "application/json", size: 10 },
          format: "chrome",
          screenshot: { hash: H("2"), mediaType: "image/png", size: 20 },
          url: "http://a/login",
        },
      },
    ]);
    await store.append("session-other", [{
      type: "StepStarted",
      data: { index: 0, text: "elsewhere" },
    }]); // position 4
    await store.append("session-s", [
      {
        type: "ActionPerformed",
        data: { actionId: "x1", kind: "tap", point: { x: 5, y: 6 }, source: "agent" },
      }, // 5
      {
        type: "ActionCompleted",
        data: { actionId: "x1", ok: false, error: "no node", durationMs: 3 },
      }, // 6
      { type: "MemorySnapshotted", data: { memory: { email: "a@b.c", count: "3" } } }, // 7
      { type: "NavigationOccurred", data: { url: "http://a/home", reason: "spa" } }, // 8
    ]);
    const at3 = await stateAt(store, "session-s", 3);
    assertEquals(at3.position, 3);
    assertEquals(at3.step, { index: 0, text: "Sign in", ended: false });
    assertEquals(at3.screen?.screenshot?.hash, H("2"));
    assertEquals(at3.url, "http://a/login");
    assertEquals(at3.memory, { email: "a@b.c" });
    assertEquals(at3.lastAction, null);
    assertEquals(at3.counts, { events: 3, actions: 0, screens: 1, failures: 0 });

    const at5 = await stateAt(store, "session-s", 5);
    assertEquals(at5.lastAction?.action.actionId, "x1");
    assertEquals(at5.lastAction?.result, null);
    assertEquals(await stateAt(store, "session-s", 4), at3); // position 4 is another stream's

    const last = await stateAt(store, "session-s");
    assertEquals(last.position, 8);
    assertEquals(last.lastAction?.result?.error, "no node");
    assertEquals(last.memory, { email: "a@b.c", count: "3" });
    assertEquals(last.url, "http://a/home");
    assertEquals(last.counts, { events: 7, actions: 1, screens: 1, failures: 1 });
    assertEquals((await stateAt(store, "session-s", 0)).counts.events, 0);
    await assertRejects(() => stateAt(store, "session-missing", 3), NotFoundError);
  });
});

Deno.test("foldAt() on a 10,000-event session folds only events since the nearest checkpoint", async () => {
  await withStore(async (store) => {
    await store.append("session-noise", syntheticSession(500, "noise"));
    await store.append("session-big", syntheticSession(10_000, "big"));
    let calls = 0;
    const counting: Projection<SessionState> = {
      ...sessionStateProjection,
      name: "counting",
      evolve: (s, e) => {
        calls++;
        return evolveSession(s, e);
      },
    };
    const all: StoredEvent[] = [];
    for await (const e of store.readStream("session-big")) all.push(e);
    // the first query builds the checkpoints
    await foldAt(store, counting, { streamId: "session-big" });
    assertEquals(calls, 10_000);
    for (const v of [1, 255, 256, 257, 4321, 9_999, 10_000]) {
      const pos = all[v - 1]!.position;
      calls = 0;
      const fast = await foldAt(store, counting, { streamId: "session-big", position: pos });
      assertLessOrEqual(calls, CHECKPOINT_EVERY);
      const slow = all.slice(0, v).reduce(evolveSession, sessionStateProjection.initialState);
      assertEquals(fast, slow, `state at version ${v}`);
    }
  });
});

Deno.test("summarizeEvent() writes one line per event", () => {
  const events = syntheticSession(6, "x").map((e, i) =>
    ({
      ...e,
      position: i + 1,
      streamId: "session-x",
      streamVersion: i + 1,
      schemaVersion: 1,
      meta: { recordedAt: "t" },
    }) as StoredEvent
  );
  const lines = events.map(summarizeEvent);
  assert(lines.every((l) => l.length > 0 && !l.includes("\n")));
  assert(lines[1]!.startsWith("step 1: Step 0: lorem ipsum") && lines[1]!.endsWith("…"), lines[1]);
  assert(lines[3]!.startsWith("tap y0 at (100, 200)"), lines[3]);
  assert(lines[5]!.startsWith("failed: not found"), lines[5]);
});
