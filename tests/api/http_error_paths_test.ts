/**
 * A refused request names the field at fault in `issues`: an unknown top-level key
 * (`body.extra`, not `body`), a blob without its Content-Type, a trail that is not YAML (with its
 * line). `app.request` over a real SQLite file.
 */
import { createApp } from "../../api/app.ts";
import { playbackRegistry } from "../../api/playbacks.ts";
import { validationRegistry } from "../../api/validations.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";

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

Deno.test("a trail reading a key nothing sets is a 400 naming the action's field and body.memory, before a browser starts", async () => {
  await withApp(async (app, store) => {
    const trail = "config:\n  url: http://127.0.0.1:9/\ntrail:\n  - step: s\n    recording:\n" +
      '      - navigate: "http://127.0.0.1:9/"\n      - type: "hi {{who}}"\n';
    const r = await issuesOf(await app.request("/v1/playbacks", post({ trail })));
    assertEquals(r.status, 400, r.message);
    assertEquals(r.issues[0].path, "body.trail");
    assertStringIncludes(
      r.message,
      "trail.0.recording.1.type.text: reads {{who}}, which nothing sets: no earlier readText or " +
        "memorySet stores it, config.memory does not declare it and body.memory does not give it",
    );
    assertEquals(await store.streams("playback-"), [], "no playback started");
  });
});

Deno.test("a known path asked with a method it does not take is a 405 with Allow, an unknown one still 404", async () => {
  await withApp(async (app) => {
    for (
      const [method, path, allow] of [
        ["DELETE", "/v1/playbacks", "GET, HEAD, POST"],
        ["GET", "/v1/blobs", "POST"],
        ["PUT", "/v1/streams/a/events", "GET, HEAD, POST"],
        ["GET", "/v1/playbacks/pb-1/stop", "POST"],
      ] as const
    ) {
      const res = await app.request(path, { method });
      assertEquals([res.status, res.headers.get("allow")], [405, allow], `${method} ${path}`);
      const body = await res.json();
      assertEquals(body.error.code, "method_not_allowed");
      assertStringIncludes(body.error.message, `allowed: ${allow}`);
    }
    const none = await app.request("/v1/nothing", { method: "DELETE" });
    assertEquals([none.status, none.headers.get("allow")], [404, null]);
  });
});

Deno.test("a 413 says the server's limit", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_http_413_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  try {
    const app = createApp({ store, bodyLimit: 2048 });
    const res = await app.request("/v1/blobs", {
      method: "POST",
      headers: { "content-type": "text/plain", "content-length": "4096" },
      body: "x".repeat(4096),
    });
    assertEquals(res.status, 413);
    const body = await res.json();
    assertEquals(body.error.code, "payload_too_large");
    assertStringIncludes(body.error.message, "limit of 2048 bytes (2 KiB");
    assertStringIncludes(body.error.message, "--body-limit");
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
