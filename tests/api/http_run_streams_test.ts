/**
 * `POST /v1/streams/:id/events` holds a batch for `playback-` and `validation-` streams to what the report projections
 * can read, and `GET /v1/playbacks` lists the readable playbacks of a log that holds a bad one
 * (written before that rule, or by another writer), naming it under `unreadable`.
 */
import { createApp } from "../../api/app.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";

async function withApp(
  fn: (app: ReturnType<typeof createApp>, store: SqliteEventStore) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "cairn_http_runs_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  try {
    await fn(createApp({ store }), store);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function post(body: unknown): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  };
}

const completed = {
  type: "PlaybackCompleted",
  data: { status: "completed", durationMs: 1 },
} as const;
const stepStarted = { type: "StepStarted", data: { index: 0, text: "x" } } as const;
const playbackStarted = (playbackId: string) => ({
  type: "PlaybackStarted",
  data: {
    playbackId,
    source: { kind: "actions" },
    platform: "web",
    actionsTotal: 0,
    timing: "fast",
    onError: "continue",
  },
} as const);
const validationStarted = (validationId: string) => ({
  type: "ValidationStarted",
  data: { validationId, sessionId: "s1", policy: "ci", maxIterations: 1 },
} as const);

async function refusal(res: Response) {
  const body = await res.json();
  return {
    status: res.status,
    code: body.error?.code,
    message: body.error?.message ?? "",
    paths: (body.error?.issues ?? []).map((i: { path: string }) => i.path),
  };
}

Deno.test("POST /v1/streams/playback-*/events refuses what the playback report cannot read (422 naming the event, nothing appended); GET /v1/playbacks still answers", async () => {
  await withApp(async (app, store) => {
    const cases: [string, unknown[], string, string][] = [
      ["playback-x", [completed], "body.events.0.type", "must start with PlaybackStarted"],
      ["playback-x", [stepStarted], "body.events.0.type", "StepStarted"],
      ["playback-x", [playbackStarted("other")], "body.events.0.data.playbackId", '"other"'],
      [
        "playback-x",
        [playbackStarted("x"), playbackStarted("x")],
        "body.events.1.type",
        "a second PlaybackStarted",
      ],
      [
        "playback-x",
        [playbackStarted("x"), completed, completed],
        "body.events.2.type",
        "after PlaybackCompleted",
      ],
      [
        "validation-v",
        [{
          type: "ValidationCompleted",
          data: { status: "stable", iterations: 0, trail: "t", steps: [] },
        }],
        "body.events.0.type",
        "must start with ValidationStarted",
      ],
      ["validation-v", [validationStarted("v"), stepStarted], "body.events.1.type", "StepStarted"],
    ];
    for (const [stream, events, path, says] of cases) {
      const r = await refusal(await app.request(`/v1/streams/${stream}/events`, post({ events })));
      assertEquals([r.status, r.code, r.paths], [422, "invalid_stream", [path]], says);
      assertStringIncludes(r.message, says);
      assertStringIncludes(r.message, stream);
    }
    assertEquals(await store.streams("playback-"), []);
    assertEquals(await store.streams("validation-"), []);
    // what the projections read is taken, in one batch or several
    for (
      const [stream, events] of [
        ["playback-x", [playbackStarted("x")]],
        ["playback-x", [completed]],
        ["validation-v", [validationStarted("v")]],
      ] as const
    ) {
      assertEquals(
        (await app.request(`/v1/streams/${stream}/events`, post({ events }))).status,
        201,
      );
    }
    // …and an event on a stream that has ended is not
    const after = await refusal(
      await app.request("/v1/streams/playback-x/events", post({ events: [completed] })),
    );
    assertEquals([after.status, after.paths], [422, ["body.events.0.type"]]);
    const list = await app.request("/v1/playbacks");
    assertEquals(list.status, 200);
    const body = await list.json();
    assertEquals(body.playbacks.map((p: { playbackId: string; status: string }) => p.status), [
      "completed",
    ]);
    assertEquals(body.unreadable, undefined);
    const v = await app.request("/v1/validations/v");
    assertEquals(v.status, 200);
  });
});

Deno.test("GET /v1/playbacks skips a stored playback stream it cannot read and names it under unreadable; the others are listed", async () => {
  await withApp(async (app, store) => {
    // as a database written before the rule (or by another writer): straight into the store
    await store.append("playback-bad", [completed]);
    await store.append("playback-odd", [stepStarted]);
    await store.append("playback-good", [playbackStarted("good"), completed]);
    const res = await app.request("/v1/playbacks");
    assertEquals(res.status, 200);
    const body = await res.json();
    assertEquals(body.playbacks.map((p: { playbackId: string }) => p.playbackId), ["good"]);
    assertEquals(
      body.unreadable.map((u: { streamId: string; code: string }) => [u.streamId, u.code]),
      [["playback-bad", "invalid_stream"], ["playback-odd", "invalid_stream"]],
    );
    assertStringIncludes(body.unreadable[0].message, "must start with PlaybackStarted");
    // the bad one itself is still the 422 it was
    assertEquals((await app.request("/v1/playbacks/bad")).status, 422);
    // and a validation stream that does not start with ValidationStarted is a 422, not a 500
    await store.append("validation-odd", [stepStarted]);
    const v = await refusal(await app.request("/v1/validations/odd"));
    assertEquals([v.status, v.code], [422, "invalid_stream"]);
  });
});
