/**
 * `POST /v1/streams/session-<id>/events` holds a batch to the rules `cairn ingest` holds an events
 * file to, so what the log takes over HTTP can be exported and read back in.
 */
import { createApp } from "../../api/app.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { cairn } from "../_fixtures/cli_run.ts";

async function withApp(
  fn: (app: ReturnType<typeof createApp>, store: SqliteEventStore, path: string) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "cairn_http_session_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  try {
    await fn(createApp({ store }), store, `${dir}/cairn.db`);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function post(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  };
}

const started = (sessionId: string) => ({
  type: "SessionStarted",
  data: { sessionId, mode: "agent", platform: "android" },
});
const step = (index: number) => ({ type: "StepStarted", data: { index, text: `step ${index}` } });
const ended = { type: "SessionEnded", data: { reason: "completed" } };
const tap = (actionId: string) => ({
  type: "ActionPerformed",
  data: { actionId, kind: "tap", point: { x: 1, y: 2 }, source: "agent" },
});
const done = (actionId: string) => ({
  type: "ActionCompleted",
  data: { actionId, ok: true, durationMs: 1 },
});
const UNSTORED = "c".repeat(64);
const screen = {
  type: "ScreenCaptured",
  data: {
    hierarchy: { hash: UNSTORED, mediaType: "application/xml", size: 10 },
    format: "uiautomator2",
  },
};

/** The error body of a refused append: status, code, and the issue paths. */
async function refusal(res: Response) {
  const body = await res.json();
  assertEquals(Object.keys(body), ["error"]);
  return {
    status: res.status,
    code: body.error.code,
    message: body.error.message,
    paths: (body.error.issues ?? []).map((i: { path: string }) => i.path),
  };
}

Deno.test("POST /v1/streams/session-*/events refuses a batch that breaks the session's rules, naming body.events.N, appending nothing", async () => {
  await withApp(async (app, store) => {
    // a session that exists and one that has ended, to append to
    assertEquals(
      (await app.request(
        "/v1/streams/session-live/events",
        post({ events: [started("live"), tap("a1")] }),
      )).status,
      201,
    );
    assertEquals(
      (await app.request(
        "/v1/streams/session-over/events",
        post({ events: [started("over"), ended] }),
      )).status,
      201,
    );
    const head = await store.headPosition();
    const cases: [string, unknown[], number, string, string][] = [
      [
        "recordedAt not ISO 8601",
        [{ ...started("new"), meta: { recordedAt: "yesterday" } }],
        400,
        "body.events.0.meta.recordedAt",
        "ISO 8601",
      ],
      [
        "first event not SessionStarted",
        [step(0)],
        422,
        "body.events.0.type",
        "first event of a session must be SessionStarted",
      ],
      [
        "a second SessionStarted in the batch",
        [started("new"), step(0), started("new")],
        422,
        "body.events.2.type",
        "a second SessionStarted",
      ],
      [
        "a second SessionStarted on the stream",
        [step(0), started("live")],
        422,
        "body.events.1.type",
        "a second SessionStarted",
      ],
      [
        "an event after SessionEnded",
        [step(0)],
        422,
        "body.events.0.type",
        "StepStarted after SessionEnded",
      ],
      [
        "a SessionStarted naming another session",
        [started("OTHER")],
        422,
        "body.events.0.data.sessionId",
        '"OTHER" is not this stream\'s session',
      ],
      [
        "a screen whose blob was never stored",
        [started("new"), screen],
        422,
        "body.events.1.data.hierarchy",
        `blob ${UNSTORED} is not stored`,
      ],
      [
        "an ActionCompleted nothing started",
        [done("a9")],
        422,
        "body.events.0.data.actionId",
        'action "a9", which no earlier ActionPerformed started',
      ],
      [
        "a playback event in a session",
        [{ type: "PlaybackCompleted", data: { status: "completed", durationMs: 1 } }],
        422,
        "body.events.0.type",
        "PlaybackCompleted is not a session event",
      ],
    ];
    const streams: Record<string, string> = {
      "a second SessionStarted on the stream": "live",
      "an event after SessionEnded": "over",
      "a SessionStarted naming another session": "mis",
      "an ActionCompleted nothing started": "live",
      "a playback event in a session": "live",
    };
    for (const [name, events, status, path, says] of cases) {
      const id = streams[name] ?? "new";
      const res = await app.request(`/v1/streams/session-${id}/events`, post({ events }));
      const got = await refusal(res);
      assertEquals(got.status, status, `${name}: ${got.message}`);
      assertEquals(got.code, status === 400 ? "invalid_request" : "invalid_session", name);
      assertEquals(got.paths, [path], name);
      assertStringIncludes(got.message, says, name);
      assertStringIncludes(got.message, path, name);
    }
    assertEquals(await store.headPosition(), head, "nothing of a refused batch is stored");
    // what the rules allow: completing an action started in an earlier batch, ending, a stored blob
    assertEquals(
      (await app.request("/v1/streams/session-live/events", post({ events: [done("a1"), ended] })))
        .status,
      201,
    );
    const blob = await store.putBlob(
      new TextEncoder().encode('<hierarchy><node bounds="[0,0][10,10]"/></hierarchy>'),
      "application/xml",
    );
    const stored = { ...screen, data: { ...screen.data, hierarchy: blob } };
    assertEquals(
      (await app.request(
        "/v1/streams/session-ok/events",
        post({ events: [started("ok"), stored] }),
      )).status,
      201,
    );
    // other streams are not sessions: no session rules
    assertEquals(
      (await app.request("/v1/streams/notes-x/events", post({ events: [step(0)] }))).status,
      201,
    );
  });
});

Deno.test("POST /v1/streams/session-*/events answers a keyed SessionStarted batch sent again as a duplicate, not a second SessionStarted", async () => {
  await withApp(async (app, store) => {
    const h = { "idempotency-key": "k1" };
    const first = await app.request(
      "/v1/streams/session-k/events",
      post({ events: [started("k"), step(0)] }, h),
    );
    assertEquals(first.status, 201);
    const again = await app.request(
      "/v1/streams/session-k/events",
      post({ events: [started("k"), step(0)] }, h),
    );
    assertEquals(again.status, 200);
    assertEquals(await again.json(), { positions: [1, 2], streamVersion: 2, duplicate: true });
    // the same key with other events is still the store's 422, and a new key breaks the rule
    const other = await refusal(
      await app.request("/v1/streams/session-k/events", post({ events: [started("k")] }, h)),
    );
    assertEquals([other.status, other.code], [422, "idempotency_key_reused"]);
    const fresh = await refusal(
      await app.request(
        "/v1/streams/session-k/events",
        post({ events: [started("k")] }, { "idempotency-key": "k2" }),
      ),
    );
    assertEquals([fresh.status, fresh.code], [422, "invalid_session"]);
    assertEquals(await store.headPosition(), 2);
  });
});

Deno.test("POST /v1/streams/:id/events refuses an idempotencyKey of whitespace in the body, as in the header", async () => {
  await withApp(async (app, store) => {
    for (const key of [" ", "\t  "]) {
      const got = await refusal(
        await app.request(
          "/v1/streams/notes-a/events",
          post({ events: [step(0)], idempotencyKey: key }),
        ),
      );
      assertEquals([got.status, got.paths], [400, ["body.idempotencyKey"]]);
      assertStringIncludes(got.message, "must not be blank");
    }
    const header = await refusal(
      await app.request(
        "/v1/streams/notes-a/events",
        post({ events: [step(0)] }, { "idempotency-key": " " }),
      ),
    );
    assertEquals(header.status, 400);
    assertEquals(await store.headPosition(), 0);
  });
});

Deno.test("GET /openapi.json gives meta.recordedAt as an ISO 8601 date-time, appended and stored", async () => {
  await withApp(async (app) => {
    const doc = await (await app.request("/openapi.json")).json();
    // every recordedAt the document describes (appended, stored, a timeline's) is a date-time
    const found: unknown[] = [];
    const visit = (v: unknown) => {
      if (v === null || typeof v !== "object") return;
      for (const [k, x] of Object.entries(v)) {
        if (
          /^(recordedAt|createdAt)$/.test(k) && x !== null && typeof x === "object" && "type" in x
        ) {
          found.push(x);
        }
        visit(x);
      }
    };
    visit(doc);
    assert(found.length >= 2, `${found.length} recordedAt schemas`);
    for (const s of found) assertEquals((s as { format?: string }).format, "date-time");
  });
});

Deno.test("cairn export of a session whose blob is missing names the session and the position (exit 2)", async () => {
  await withApp(async (_app, store, path) => {
    // the store's own append takes a reference to any hash (HTTP refuses it: above)
    await store.append("session-gone", [started("gone"), step(0), screen] as never);
    store.close();
    const out = await cairn(["export", "gone", "--db", path]);
    assertEquals(out.code, 2, out.stderr);
    assertEquals(
      out.stderr.trim(),
      `cairn export: session-gone: the ScreenCaptured at position 3 references blob ${UNSTORED}, which is not in the database`,
    );
    assertEquals(out.stdout, "");
  });
});

Deno.test("a session appended over HTTP exports and ingests back: the rules are ingest's", async () => {
  await withApp(async (app, store, path) => {
    const at = (s: number) => ({ recordedAt: `2026-03-09T10:00:0${s}Z` });
    const events = [
      { ...started("rt"), meta: at(0) },
      { ...step(0), meta: at(1) },
      { ...tap("a1"), meta: at(2) },
      { ...done("a1"), meta: at(3) },
      { ...ended, meta: at(4) },
    ];
    const res = await app.request(
      "/v1/streams/session-rt/events",
      post({ events: events.slice(0, 3) }),
    );
    assertEquals(res.status, 201, await res.clone().text());
    assertEquals(
      (await app.request("/v1/streams/session-rt/events", post({ events: events.slice(3) })))
        .status,
      201,
    );
    store.close();
    const file = `${path}.rt.events.jsonl`;
    const exported = await cairn(["export", "rt", "--db", path, "--out", file]);
    assertEquals(exported.code, 0, exported.stderr);
    const ingested = await cairn(["ingest", file, "--db", `${path}.2.db`]);
    assertEquals(ingested.code, 0, ingested.stderr);
    const back = SqliteEventStore.open(`${path}.2.db`);
    try {
      const types = [];
      for await (const e of back.readAll()) types.push([e.type, e.meta.recordedAt]);
      assertEquals(types, events.map((e) => [e.type, e.meta.recordedAt]));
    } finally {
      back.close();
    }
  });
});
