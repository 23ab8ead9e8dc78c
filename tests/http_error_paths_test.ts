/**
 * A refused request names the field at fault in `issues`: an unknown top-level key
 * (`body.extra`, not `body`), a blob without its Content-Type, a trail that is not YAML (with its
 * line). `app.request` over a real SQLite file.
 */
import { createApp } from "../api/app.ts";
import { playbackRegistry } from "../api/playbacks.ts";
import { validationRegistry } from "../api/validations.ts";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import { assertEquals, assertStringIncludes } from "./assert.ts";

async function withApp(
  fn: (app: ReturnType<typeof createApp>, store: SqliteEventStore) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "cairn_http_paths_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  try {
    await fn(createApp({ store }), store);
  } finally {
    await playbackRegistry(store).close();
    await validationRegistry(store).close();
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

async function issuesOf(res: Response) {
  const body = await res.json();
  return { status: res.status, message: body.error?.message ?? "", issues: body.error?.issues };
}

Deno.test("an unknown top-level body key is named body.<key> (append, playbacks, validations)", async () => {
  await withApp(async (app, store) => {
    await store.append("session-s", [{
      type: "SessionStarted",
      data: { sessionId: "s", mode: "agent", platform: "web" },
    }]);
    const step = { type: "StepStarted", data: { index: 0, text: "x" } };
    for (
      const [path, body] of [
        ["/v1/streams/notes-a/events", { events: [step], extra: 1 }],
        ["/v1/playbacks", { actions: [], extra: 1 }],
        ["/v1/sessions/s/validations", { extra: 1 }],
      ] as const
    ) {
      const r = await issuesOf(await app.request(path, post(body)));
      assertEquals(r.status, 400, path);
      assertEquals(r.issues, [{ path: "body.extra", message: "unknown field" }], path);
      assertStringIncludes(r.message, "body.extra: unknown field", path);
    }
    assertEquals(await store.streams("notes-"), []);
  });
});

Deno.test("POST /v1/blobs without a Content-Type names header.Content-Type", async () => {
  await withApp(async (app) => {
    const res = await app.request("/v1/blobs", {
      method: "POST",
      body: new Uint8Array([1, 2, 3]),
    });
    const r = await issuesOf(res);
    assertEquals(r.status, 400);
    assertEquals(r.issues.map((i: { path: string }) => i.path), ["header.Content-Type"]);
  });
});

Deno.test("a trail that is not valid YAML names body.trail and its line", async () => {
  await withApp(async (app) => {
    const trail = "config:\n  url: https://example.com\ntrail:\n  - step: [unclosed\n";
    const r = await issuesOf(await app.request("/v1/playbacks", post({ trail })));
    assertEquals(r.status, 400, r.message);
    assertEquals(r.issues.length, 1, JSON.stringify(r.issues));
    assertEquals(r.issues[0].path, "body.trail");
    assertStringIncludes(r.issues[0].message, "line ");
    assertStringIncludes(r.message, "body.trail:");
  });
});
