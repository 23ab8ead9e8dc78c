import sharp from "sharp";
import { createApp } from "../api/app.ts";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import { assert, assertEquals, assertStringIncludes } from "./assert.ts";

async function withApp(
  fn: (app: ReturnType<typeof createApp>, store: SqliteEventStore) => Promise<void>,
  opts: { token?: string; bodyLimit?: number } = {},
) {
  const dir = await Deno.makeTempDir({ prefix: "cairn_http_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  try {
    await fn(createApp({ store, ...opts }), store);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const step = (index: number) => ({ type: "StepStarted", data: { index, text: `step ${index}` } });

/**
 * Checks an error response: the status, and the body `{ error: { code, message, issues? } }`
 * with a non-empty message and, when present, issues of `{ path, message }`.
 */
async function errorOf(
  res: Response,
  status: number,
  code: string,
): Promise<{ code: string; message: string; issues?: { path: string; message: string }[] }> {
  assertEquals(res.status, status);
  assertEquals(res.headers.get("content-type")?.split(";")[0], "application/json");
  const body = await res.json();
  assertEquals(Object.keys(body), ["error"]);
  const err = body.error;
  assertEquals(err.code, code);
  assert(typeof err.message === "string" && err.message.length > 0, JSON.stringify(err));
  for (const k of Object.keys(err)) assert(["code", "message", "issues"].includes(k), k);
  if (err.issues !== undefined) {
    assert(Array.isArray(err.issues) && err.issues.length > 0, JSON.stringify(err));
    for (const i of err.issues) {
      assert(typeof i.path === "string" && typeof i.message === "string", JSON.stringify(i));
    }
  }
  return err;
}

function post(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  };
}

Deno.test("POST /v1/streams/:id/events appends a batch and GET reads it back", async () => {
  await withApp(async (app) => {
    const res = await app.request(
      "/v1/streams/session-a/events",
      post({ events: [step(0), step(1)] }),
    );
    assertEquals(res.status, 201);
    assertEquals(await res.json(), { positions: [1, 2], streamVersion: 2, duplicate: false });
    const read = await app.request("/v1/streams/session-a/events?from=2");
    assertEquals(read.status, 200);
    const body = await read.json();
    assertEquals(body.version, 2);
    assertEquals(body.events.map((e: { position: number }) => e.position), [2]);
    assertEquals(body.events[0].data, { index: 1, text: "step 1" });
  });
});

Deno.test("POST /v1/streams/:id/events answers 409 on a version conflict (body or If-Match)", async () => {
  await withApp(async (app, store) => {
    await app.request("/v1/streams/session-a/events", post({ events: [step(0)] }));
    const a = await app.request(
      "/v1/streams/session-a/events",
      post({ events: [step(1)], expectedVersion: 0 }),
    );
    await errorOf(a, 409, "conflict");
    const b = await app.request(
      "/v1/streams/session-a/events",
      post({ events: [step(1)] }, { "If-Match": '"5"' }),
    );
    await errorOf(b, 409, "conflict");
    const c = await app.request(
      "/v1/streams/session-a/events",
      post({ events: [step(1)] }, { "If-Match": '"1"' }),
    );
    assertEquals(c.status, 201);
    assertEquals(await store.headPosition(), 2);
  });
});

Deno.test("POST /v1/streams/:id/events honours Idempotency-Key", async () => {
  await withApp(async (app, store) => {
    const h = { "Idempotency-Key": "abc" };
    const a = await app.request("/v1/streams/session-a/events", post({ events: [step(0)] }, h));
    const b = await app.request("/v1/streams/session-a/events", post({ events: [step(0)] }, h));
    assertEquals(a.status, 201);
    assertEquals(b.status, 200);
    assertEquals((await b.json()).duplicate, true);
    // the key belongs to that stream and those events: reusing it for others is refused
    const other = await app.request("/v1/streams/session-b/events", post({ events: [step(0)] }, h));
    await errorOf(other, 422, "idempotency_key_reused");
    const changed = await app.request(
      "/v1/streams/session-a/events",
      post({ events: [step(1)] }, h),
    );
    const err = await errorOf(changed, 422, "idempotency_key_reused");
    assertStringIncludes(err.message, "other events");
    assertEquals(await store.headPosition(), 1);
  });
});

Deno.test("POST /v1/streams/:id/events answers 400 with issues for bad bodies, appending nothing", async () => {
  await withApp(async (app, store) => {
    const cases: [unknown, string][] = [
      ["{not json", "not valid JSON"],
      [
        { events: [step(0), { type: "StepStarted", data: { index: "x", text: "t" } }] },
        "body.events.1.data.index",
      ],
      [{ events: [{ type: "Nope", data: {} }] }, "body.events.0.type"],
      [{ events: [] }, "body.events"],
      [{ events: [step(0)], expectedVersion: -3 }, "body.expectedVersion"],
    ];
    for (const [body, mention] of cases) {
      const res = await app.request("/v1/streams/session-a/events", post(body));
      const err = await errorOf(res, 400, "invalid_request");
      assertStringIncludes(JSON.stringify(err), mention, JSON.stringify(body));
    }
    assertEquals(await store.headPosition(), 0);
  });
});

Deno.test("createApp() answers 413 above the body limit and 404 for unknown things", async () => {
  await withApp(async (app, store) => {
    const big = { events: [{ type: "StepStarted", data: { index: 0, text: "x".repeat(2000) } }] };
    const res = await app.request("/v1/streams/session-a/events", post(big));
    await errorOf(res, 413, "payload_too_large");
    assertEquals(await store.headPosition(), 0);
    await errorOf(await app.request("/v1/streams/session-zz/events"), 404, "not_found");
    await errorOf(await app.request(`/v1/blobs/${"a".repeat(64)}`), 404, "not_found");
    await errorOf(await app.request("/v1/nothing"), 404, "not_found");
  }, { bodyLimit: 1024 });
});

Deno.test("createApp() with a token rejects requests without the bearer token", async () => {
  await withApp(async (app) => {
    assertEquals((await app.request("/openapi.json")).status, 401);
    const wrong = await app.request("/openapi.json", { headers: { Authorization: "Bearer nope" } });
    await errorOf(wrong, 401, "unauthorized");
    const ok = await app.request("/openapi.json", { headers: { Authorization: "Bearer s3cret" } });
    assertEquals(ok.status, 200);
  }, { token: "s3cret" });
});

Deno.test("GET /v1/blobs/:hash returns stored bytes with their media type", async () => {
  await withApp(async (app) => {
    const bytes = new Uint8Array([137, 80, 78, 71, 1, 2, 3]);
    const put = await app.request("/v1/blobs", {
      method: "POST",
      headers: { "content-type": "image/png" },
      body: bytes,
    });
    assertEquals(put.status, 201);
    const ref = await put.json();
    const res = await app.request(`/v1/blobs/${ref.hash}`);
    assertEquals(res.status, 200);
    assertEquals(res.headers.get("content-type"), "image/png");
    assertEquals(new Uint8Array(await res.arrayBuffer()), bytes);
    const bad = await errorOf(await app.request("/v1/blobs/xyz"), 400, "invalid_request");
    assertEquals(bad.message, "Invalid path: path.hash: expected a sha256 hex digest");
  });
});

Deno.test("GET /openapi.json lists every route as OpenAPI 3.1", async () => {
  await withApp(async (app) => {
    const doc = await (await app.request("/openapi.json")).json();
    assertEquals(doc.openapi, "3.1.0");
    for (
      const [path, method] of [
        ["/v1/streams/{id}/events", "post"],
        ["/v1/streams/{id}/events", "get"],
        ["/v1/events", "get"],
        ["/v1/blobs/{hash}", "get"],
        ["/openapi.json", "get"],
      ]
    ) assert(doc.paths[path!]?.[method!], `${method} ${path} listed`);
    const body =
      doc.paths["/v1/streams/{id}/events"].post.requestBody.content["application/json"].schema;
    assert(body.properties.events, "append body schema present");
  });
});

Deno.test("GET /openapi.json lists routes nobody described, so every served route appears", async () => {
  await withApp(async (app) => {
    app.get("/v1/extra/:thing", (c) => c.text("x"));
    const doc = await (await app.request("/openapi.json")).json();
    assertEquals(doc.paths["/v1/extra/{thing}"].get.summary, "Undocumented route");
    for (const r of app.routes) {
      if (r.method === "ALL") continue;
      const path = r.path.replace(/:(\w+)/g, "{$1}");
      assert(doc.paths[path]?.[r.method.toLowerCase()], `${r.method} ${r.path} listed`);
    }
  });
});

Deno.test("GET /v1/events with Accept: application/json returns a page of the log", async () => {
  await withApp(async (app) => {
    await app.request(
      "/v1/streams/session-a/events",
      post({ events: [step(0), step(1), step(2)] }),
    );
    const res = await app.request("/v1/events?from=2&limit=1", {
      headers: { Accept: "application/json" },
    });
    const body = await res.json();
    assertEquals(body.events.map((e: { position: number }) => e.position), [2]);
    assertEquals(body.next, 3);
  });
});

Deno.test("GET /v1/sessions/:id/sheet.png draws the screenshots up to ?at as one PNG", async () => {
  await withApp(async (app, store) => {
    const tree = await store.putBlob(new TextEncoder().encode("{}"), "application/json");
    const events = [];
    for (const b of [0, 120, 240]) {
      const png = await sharp({
        create: { width: 100, height: 150, channels: 3, background: { r: 10, g: 10, b: b } },
      }).png().toBuffer();
      const shot = await store.putBlob(new Uint8Array(png), "image/png");
      events.push({
        type: "ScreenCaptured" as const,
        data: { hierarchy: tree, screenshot: shot, format: "chrome" as const },
      });
    }
    await store.append("session-s1", [
      { type: "StepStarted", data: { index: 0, text: "Look" } },
      ...events,
    ]);
    const res = await app.request("/v1/sessions/s1/sheet.png?columns=3");
    assertEquals(res.status, 200);
    assertEquals(res.headers.get("content-type"), "image/png");
    const meta = await sharp(new Uint8Array(await res.arrayBuffer())).metadata();
    assertEquals([meta.format, meta.width, meta.height], ["png", 12 + 3 * 332, 12 + 480 + 54 + 12]);
    const two = await app.request("/v1/sessions/s1/sheet.png?at=3&columns=3");
    const twoMeta = await sharp(new Uint8Array(await two.arrayBuffer())).metadata();
    assertEquals(twoMeta.width, 12 + 2 * 332); // two screens up to position 3: two columns
    await errorOf(await app.request("/v1/sessions/s1/sheet.png?at=1"), 404, "not_found");
    await errorOf(await app.request("/v1/sessions/nope/sheet.png"), 404, "not_found");
    await errorOf(
      await app.request("/v1/sessions/s1/sheet.png?columns=0"),
      400,
      "invalid_request",
    );
  });
});
