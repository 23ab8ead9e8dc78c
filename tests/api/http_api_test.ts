import sharp from "sharp";
import { createApp } from "../../api/app.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { HEURISTICS_VERSION, HEURISTICS_VERSIONS } from "../../engine/trail/heuristics.ts";

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
const started = (sessionId: string) => ({
  type: "SessionStarted",
  data: { sessionId, mode: "agent", platform: "web" },
});

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
      "/v1/streams/notes-a/events",
      post({ events: [step(0), step(1)] }),
    );
    assertEquals(res.status, 201);
    assertEquals(await res.json(), { positions: [1, 2], streamVersion: 2, duplicate: false });
    const read = await app.request("/v1/streams/notes-a/events?from=2");
    assertEquals(read.status, 200);
    const body = await read.json();
    assertEquals(body.version, 2);
    assertEquals(body.events.map((e: { position: number }) => e.position), [2]);
    assertEquals(body.events[0].data, { index: 1, text: "step 1" });
  });
});

Deno.test("POST /v1/streams/:id/events answers 409 on a version conflict (body or If-Match)", async () => {
  await withApp(async (app, store) => {
    await app.request("/v1/streams/notes-a/events", post({ events: [step(0)] }));
    const a = await app.request(
      "/v1/streams/notes-a/events",
      post({ events: [step(1)], expectedVersion: 0 }),
    );
    await errorOf(a, 409, "conflict");
    const b = await app.request(
      "/v1/streams/notes-a/events",
      post({ events: [step(1)] }, { "If-Match": '"5"' }),
    );
    await errorOf(b, 409, "conflict");
    const c = await app.request(
      "/v1/streams/notes-a/events",
      post({ events: [step(1)] }, { "If-Match": '"1"' }),
    );
    assertEquals(c.status, 201);
    assertEquals(await store.headPosition(), 2);
  });
});

Deno.test("POST /v1/streams/:id/events honours Idempotency-Key", async () => {
  await withApp(async (app, store) => {
    const h = { "Idempotency-Key": "abc" };
    const a = await app.request("/v1/streams/notes-a/events", post({ events: [step(0)] }, h));
    const b = await app.request("/v1/streams/notes-a/events", post({ events: [step(0)] }, h));
    assertEquals(a.status, 201);
    assertEquals(b.status, 200);
    assertEquals((await b.json()).duplicate, true);
    // the key belongs to that stream and those events: reusing it for others is refused
    const other = await app.request("/v1/streams/notes-b/events", post({ events: [step(0)] }, h));
    await errorOf(other, 422, "idempotency_key_reused");
    const changed = await app.request(
      "/v1/streams/notes-a/events",
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
      [
        { events: [step(0), { type: "StepStarted", data: { index: 1, text: "t", promt: "x" } }] },
        "body.events.1.data.promt: unknown field (not in the StepStarted event)",
      ],
      [{ events: [{ ...step(0), schemaVersion: 1 }] }, "body.events.0.schemaVersion: unknown"],
      [{ events: [{ ...step(0), meta: { idempotencyKey: "k" } }] }, "body.events.0.meta"],
      [{ events: [] }, "body.events"],
      [{ events: [step(0)], expectedVersion: -3 }, "body.expectedVersion"],
    ];
    for (const [body, mention] of cases) {
      const res = await app.request("/v1/streams/notes-a/events", post(body));
      const err = await errorOf(res, 400, "invalid_request");
      assertStringIncludes(JSON.stringify(err), mention, JSON.stringify(body));
    }
    assertEquals(await store.headPosition(), 0);
  });
});

Deno.test("createApp() answers 413 above the body limit and 404 for unknown things", async () => {
  await withApp(async (app, store) => {
    const big = { events: [{ type: "StepStarted", data: { index: 0, text: "x".repeat(2000) } }] };
    const res = await app.request("/v1/streams/notes-a/events", post(big));
    await errorOf(res, 413, "payload_too_large");
    assertEquals(await store.headPosition(), 0);
    // a body of unknown length (chunked: no Content-Length) is counted as it is read
    const chunked = (body: unknown): RequestInit => ({
      method: "POST",
      headers: { "content-type": "application/json" },
      body: ReadableStream.from([new TextEncoder().encode(JSON.stringify(body))]),
    });
    const long = await app.request("/v1/streams/notes-a/events", chunked(big));
    await errorOf(long, 413, "payload_too_large");
    const short = await app.request("/v1/streams/notes-a/events", chunked({ events: [step(0)] }));
    assertEquals(short.status, 201, await short.text());
    assertEquals(await store.headPosition(), 1);
    await errorOf(await app.request("/v1/streams/notes-zz/events"), 404, "not_found");
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

Deno.test("createApp() takes the bearer scheme in any case and names it on a 401", async () => {
  await withApp(async (app) => {
    const lower = await app.request("/openapi.json", {
      headers: { Authorization: "bearer s3cret" },
    });
    assertEquals(lower.status, 200);
    const missing = await app.request("/openapi.json");
    assertEquals(missing.headers.get("www-authenticate"), 'Bearer realm="cairn"');
    await errorOf(missing, 401, "unauthorized");
    const noScheme = await app.request("/openapi.json", { headers: { Authorization: "s3cret" } });
    await errorOf(noScheme, 401, "unauthorized");
  }, { token: "s3cret" });
});

Deno.test("createApp() refuses what a web page could send: other origins, other hosts, non-JSON bodies", async () => {
  await withApp(async (app, store) => {
    const append = (init: RequestInit, url = "http://127.0.0.1:8787/v1/streams/notes-a/events") =>
      app.request(url, init);
    // a page on another site: Origin names it
    const evil = { origin: "http://evil.example" };
    await errorOf(await append(post({ events: [step(0)] }, evil)), 403, "forbidden_origin");
    await errorOf(
      await append(post({ events: [step(0)] }, { origin: "null" })),
      403,
      "forbidden_origin",
    );
    // a rebound host name pointed at 127.0.0.1: the Host is not loopback
    const rebound = await append(
      post({ events: [step(0)] }),
      "http://evil.example:8787/v1/streams/notes-a/events",
    );
    await errorOf(rebound, 403, "forbidden_host");
    // what a form or fetch without a preflight can send
    for (const type of ["text/plain;charset=UTF-8", "application/x-www-form-urlencoded"]) {
      const res = await append({
        method: "POST",
        headers: { "content-type": type },
        body: JSON.stringify({ events: [step(0)] }),
      });
      await errorOf(res, 415, "unsupported_media_type");
    }
    assertEquals(await store.headPosition(), 0);
    // the same origin, a loopback name and a JSON type (with parameters, or +json) are served
    const same = await append(post({ events: [step(0)] }, { origin: "http://127.0.0.1:8787" }));
    assertEquals(same.status, 201);
    const plusJson = await app.request(
      "http://localhost/v1/streams/notes-a/events",
      post({ events: [step(1)] }, { "content-type": "application/vnd.cairn+json; charset=utf-8" }),
    );
    assertEquals(plusJson.status, 201);
    assertEquals((await app.request("http://[::1]:8787/v1/sessions")).status, 200);
  });
  // with a token the server may sit on any host name; the token guards it
  await withApp(async (app) => {
    const res = await app.request("http://cairn.internal/v1/sessions", {
      headers: { Authorization: "Bearer s3cret" },
    });
    assertEquals(res.status, 200);
  }, { token: "s3cret" });
});

Deno.test("POST /v1/streams/:id/events refuses headers that disagree with the body, or are empty", async () => {
  await withApp(async (app, store) => {
    await app.request("/v1/streams/notes-a/events", post({ events: [step(0)] }));
    const stale = await app.request(
      "/v1/streams/notes-a/events",
      post({ events: [step(1)], expectedVersion: "any" }, { "If-Match": '"0"' }),
    );
    assertStringIncludes((await errorOf(stale, 400, "invalid_request")).message, "If-Match");
    const keys = await app.request(
      "/v1/streams/notes-a/events",
      post({ events: [step(1)], idempotencyKey: "k3" }, { "Idempotency-Key": "k2" }),
    );
    assertStringIncludes((await errorOf(keys, 400, "invalid_request")).message, "Idempotency-Key");
    const emptyKey = await app.request(
      "/v1/streams/notes-a/events",
      post({ events: [step(1)] }, { "Idempotency-Key": "" }),
    );
    await errorOf(emptyKey, 400, "invalid_request");
    const emptyMatch = await app.request(
      "/v1/streams/notes-a/events",
      post({ events: [step(1)] }, { "If-Match": "" }),
    );
    await errorOf(emptyMatch, 400, "invalid_request");
    assertEquals(await store.headPosition(), 1);
    // both, agreeing: appended once
    const agree = await app.request(
      "/v1/streams/notes-a/events",
      post({ events: [step(1)], expectedVersion: 1, idempotencyKey: "k" }, {
        "If-Match": '"1"',
        "Idempotency-Key": "k",
      }),
    );
    assertEquals(agree.status, 201);
    assertEquals(await store.headPosition(), 2);
  });
});

Deno.test("query numbers are decimal digits: empty, hex, exponent and unsafe values are 400", async () => {
  await withApp(async (app) => {
    await app.request(
      "/v1/streams/session-a/events",
      post({ events: [started("a"), step(0), step(1)] }),
    );
    for (const q of ["at=", "at=0x2", "at=1e0", "at=1.0", "at=-1", "at=9007199254740993"]) {
      await errorOf(await app.request(`/v1/sessions/a/state?${q}`), 400, "invalid_request");
    }
    for (const q of ["from=", "from=0x2", "limit=", "limit=1e3", "limit=10001"]) {
      await errorOf(await app.request(`/v1/streams/session-a/events?${q}`), 400, "invalid_request");
    }
    const at = await (await app.request("/v1/sessions/a/state?at=2")).json();
    assertEquals(at.state.counts.events, 2);
    const page = await (await app.request("/v1/streams/session-a/events?from=2&limit=1")).json();
    assertEquals(page.events.map((e: { position: number }) => e.position), [2]);
  });
});

Deno.test("GET /v1/events treats an empty Last-Event-ID as none and keeps ?from", async () => {
  await withApp(async (app) => {
    await app.request(
      "/v1/streams/notes-a/events",
      post({ events: [step(0), step(1), step(2)] }),
    );
    const res = await app.request("/v1/events?from=3", {
      headers: { accept: "application/json", "last-event-id": "" },
    });
    const body = await res.json();
    assertEquals(body.events.map((e: { position: number }) => e.position), [3]);
  });
});

Deno.test("GET /v1/sessions/:id/timeline answers 404 for an unknown session from any position", async () => {
  await withApp(async (app) => {
    await app.request("/v1/streams/session-a/events", post({ events: [started("a"), step(0)] }));
    for (const from of [1, 2, 5]) {
      await errorOf(await app.request(`/v1/sessions/nope/timeline?from=${from}`), 404, "not_found");
    }
    const past = await (await app.request("/v1/sessions/a/timeline?from=5")).json();
    assertEquals(past.timeline, []);
  });
});

Deno.test("a session the log accepted but no projection can read answers 422, not 500", async () => {
  await withApp(async (app, store) => {
    // events the log took one by one, never a SessionStarted (HTTP refuses such a batch: the
    // store's own append does not hold a session to its rules)
    await store.append("session-f1", [step(0)] as never);
    const trail = await app.request("/v1/sessions/f1/trail");
    assertStringIncludes((await errorOf(trail, 422, "invalid_stream")).message, "SessionStarted");
    // a "screenshot" that is not an image
    const screenshot = await store.putBlob(new TextEncoder().encode("not a png"), "image/png");
    const hierarchy = await store.putBlob(new TextEncoder().encode("{}"), "application/json");
    const shot = { type: "ScreenCaptured", data: { hierarchy, screenshot, format: "chrome" } };
    // an append over HTTP checks the screen as ingest does (422); one stored before that, or by
    // another writer, is what the sheet cannot draw
    const refused = await app.request(
      "/v1/streams/session-g1/events",
      post({ events: [started("g1"), shot] }),
    );
    assertStringIncludes(
      (await errorOf(refused, 422, "invalid_session")).message,
      "body.events.1.data.hierarchy: Invalid Chrome hierarchy",
    );
    await store.append("session-g1", [started("g1"), shot] as never);
    await errorOf(await app.request("/v1/sessions/g1/sheet.png"), 422, "invalid_stream");
  });
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
    assertEquals(
      bad.message,
      "Invalid path: path.hash: expected a sha256 hex digest or its first 8 or more digits",
    );
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
    // what the server takes: integer query numbers, /v1/events's limit, a raw blob body
    const events = doc.paths["/v1/events"].get.parameters;
    const param = (name: string) => events.find((p: { name: string }) => p.name === name);
    assertEquals(param("limit")?.schema, { type: "integer" });
    assertEquals(param("from")?.schema, { type: "integer" });
    assert(doc.paths["/v1/blobs"].post.requestBody.content["*/*"], "blob body listed");
  });
});

Deno.test("GET /openapi.json gives 200 schemas, the trail's YAML and JSON, query enums, 404s and optional bodies", async () => {
  await withApp(async (app) => {
    const doc = await (await app.request("/openapi.json")).json();
    const op = (path: string, method = "get") => doc.paths[path][method];
    const schema200 = (path: string, type = "application/json", method = "get") =>
      op(path, method).responses["200"]?.content?.[type]?.schema;
    assert(schema200("/v1/streams/{id}/events")?.properties?.events, "stream read");
    assert(schema200("/v1/events")?.properties?.next, "events page");
    assert(op("/v1/events").responses["200"].content["text/event-stream"], "SSE");
    assert(schema200("/v1/sessions")?.properties?.sessions, "sessions list");
    assert(schema200("/v1/sessions/{id}/timeline")?.properties?.timeline, "timeline");
    const trail = op("/v1/sessions/{id}/trail");
    assertEquals(schema200("/v1/sessions/{id}/trail", "application/yaml")?.type, "string");
    assert(schema200("/v1/sessions/{id}/trail")?.properties?.trail, "trail json");
    const param = (name: string) =>
      trail.parameters.find((p: { name: string }) => p.name === name).schema;
    assertEquals(param("mode"), {
      type: "string",
      enum: ["strict", "flexible", "adaptive"],
      default: "adaptive",
    });
    assertEquals(param("format").enum, ["yaml", "json"]);
    assertEquals(param("heuristics").enum, HEURISTICS_VERSIONS);
    assertEquals(param("heuristics").default, HEURISTICS_VERSION);
    for (
      const [path, method] of [
        ["/v1/sessions/{id}/trail", "get"],
        ["/v1/sessions/{id}/state", "get"],
        ["/v1/sessions/{id}/timeline", "get"],
        ["/v1/playbacks/{id}", "get"],
        ["/v1/playbacks/{id}/stop", "post"],
        ["/v1/validations/{id}", "get"],
        ["/v1/validations/{id}/stop", "post"],
        ["/v1/blobs/{hash}", "get"],
      ] as const
    ) assert(op(path, method).responses["404"], `${method} ${path} 404`);
    const started = op("/v1/playbacks", "post").responses["202"].content["application/json"];
    assertEquals(Object.keys(started.schema.properties), ["status", "playbackId"]);
    assertEquals(op("/v1/sessions/{id}/validations", "post").requestBody.required, false);
    assertEquals(op("/v1/blaze/sessions/{id}/tools/{tool}", "post").requestBody.required, false);
    assertEquals(op("/v1/streams/{id}/events", "post").requestBody.required, true);
  });
});

Deno.test("GET /openapi.json describes the 405 method_not_allowed of every path, with the Allow the server sends", async () => {
  await withApp(async (app) => {
    const doc = await (await app.request("/openapi.json")).json();
    const r405 = doc.components.responses.MethodNotAllowed;
    assertEquals(r405.headers.Allow.schema, { type: "string" });
    // the shared error body, by reference
    assertEquals(r405.content["application/json"].schema, { $ref: "#/components/schemas/Error" });
    assert(doc.components.schemas.Error.properties.error, "405 error body");
    assertStringIncludes(doc.info.description, "405 method_not_allowed");
    const paths = Object.entries(doc.paths) as [string, { description: string }][];
    assert(paths.length > 20, `${paths.length} paths`);
    for (const [path, item] of paths) {
      const described = /with Allow: (.+)$/.exec(item.description)?.[1];
      assert(described, `${path}: ${item.description}`);
      assertStringIncludes(item.description, "405 method_not_allowed");
      // what the server answers on that path (each {param} filled) for a method no route takes
      const url = path.replace(/\{\w+\}/g, "x");
      const res = await app.request(url, { method: "PATCH" });
      assertEquals([res.status, res.headers.get("allow")], [405, described], `PATCH ${url}`);
      assertEquals((await res.json()).error.code, "method_not_allowed", url);
    }
    assertStringIncludes(doc.paths["/v1/playbacks"].description, "Allow: GET, HEAD, POST");
    assertStringIncludes(doc.paths["/v1/blobs"].description, "Allow: POST");
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
      "/v1/streams/notes-a/events",
      post({ events: [step(0), step(1), step(2)] }),
    );
    const res = await app.request("/v1/events?from=2&limit=1", {
      headers: { Accept: "application/json" },
    });
    const body = await res.json();
    assertEquals(body.events.map((e: { position: number }) => e.position), [2]);
    assertEquals(body.next, 3);
    // a page that ends exactly at the end of the log: next is null, as the schema says
    for (
      const [query, positions] of [["from=2&limit=2", [2, 3]], ["from=1&limit=3", [
        1,
        2,
        3,
      ]]] as const
    ) {
      const page = await (await app.request(`/v1/events?${query}`, {
        headers: { Accept: "application/json" },
      })).json();
      assertEquals([page.events.map((e: { position: number }) => e.position), page.next], [
        positions,
        null,
      ], query);
    }
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
    assertEquals([meta.format, meta.width, meta.height], ["png", 12 + 3 * 492, 12 + 720 + 54 + 12]);
    const two = await app.request("/v1/sessions/s1/sheet.png?at=3&columns=3");
    const twoMeta = await sharp(new Uint8Array(await two.arrayBuffer())).metadata();
    assertEquals(twoMeta.width, 12 + 2 * 492); // two screens up to position 3: two columns
    await errorOf(await app.request("/v1/sessions/s1/sheet.png?at=1"), 404, "not_found");
    // before the session's first event: the session exists, its screenshots do not yet
    const early = await errorOf(
      await app.request("/v1/sessions/s1/sheet.png?at=0"),
      404,
      "not_found",
    );
    assertEquals(early.message, "session-s1 has no screenshots up to position 0");
    await errorOf(await app.request("/v1/sessions/nope/sheet.png"), 404, "not_found");
    await errorOf(
      await app.request("/v1/sessions/s1/sheet.png?columns=0"),
      400,
      "invalid_request",
    );
  });
});

Deno.test("HTTP numbers that mirror CLI flags are refused outside the flags' ranges: 400 naming the field", async () => {
  await withApp(async (app) => {
    const cases: [string, RequestInit, string][] = [
      ["/v1/playbacks", post({ actions: [], timeoutMs: 0 }), "body.timeoutMs"],
      ["/v1/playbacks", post({ actions: [], timeoutMs: -5 }), "body.timeoutMs"],
      ["/v1/playbacks", post({ actions: [], timeoutMs: 600_001 }), "body.timeoutMs"],
      ["/v1/playbacks", post({ actions: [], timeoutMs: 1.5 }), "body.timeoutMs"],
      ["/v1/sessions/s1/validations", post({ maxIterations: 0 }), "body.maxIterations"],
      ["/v1/sessions/s1/validations", post({ maxIterations: 21 }), "body.maxIterations"],
      ["/v1/sessions/s1/sheet.png?columns=13", {}, "query.columns"],
      ["/v1/sessions/s1/state?at=-1", {}, "query.at"],
    ];
    for (const [path, init, field] of cases) {
      const err = await errorOf(await app.request(path, init), 400, "invalid_request");
      assertEquals(err.issues?.map((i) => i.path), [field], `${path} ${init.body ?? ""}`);
    }
  });
});

Deno.test("POST /v1/streams/:id/events refuses a point, box or viewport off any page with 400 naming it, storing nothing; a stored one still reads", async () => {
  await withApp(async (app, store) => {
    const started = {
      type: "SessionStarted",
      data: { sessionId: "p", mode: "agent", platform: "web" },
    };
    const tap = (point: { x: number; y: number }) => ({
      type: "ActionPerformed",
      data: { actionId: "a1", kind: "tap", point, source: "agent" },
    });
    const cases: [unknown, string][] = [
      [tap({ x: 1e300, y: 0 }), "body.events.1.data.point.x"],
      [tap({ x: 0, y: -33_554_432 }), "body.events.1.data.point.y"],
      [{
        type: "ScreenCaptured",
        data: {
          hierarchy: { hash: "a".repeat(64), mediaType: "application/json", size: 2 },
          format: "chrome",
          scroll: { x: 0, y: 1e20 },
        },
      }, "body.events.1.data.scroll.y"],
      [
        { ...started, data: { ...started.data, viewport: { width: 0, height: 720 } } },
        "body.events.1.data.viewport.width",
      ],
      [{
        type: "PlaybackActionResolved",
        data: {
          index: 0,
          strategy: "test_id",
          selector: "#a",
          healed: false,
          bounds: { x: 0, y: 0, w: -4, h: 10 },
        },
      }, "body.events.1.data.bounds.w"],
    ];
    for (const [event, field] of cases) {
      const res = await app.request(
        "/v1/streams/session-p/events",
        post({ events: [started, event] }),
      );
      const err = await errorOf(res, 400, "invalid_request");
      assertEquals(err.issues?.map((i) => i.path), [field]);
      assertStringIncludes(err.message, `${field}: expected a`);
    }
    assertEquals(await store.headPosition(), 0, "nothing of a refused batch is stored");
    const edge = await app.request(
      "/v1/streams/session-p/events",
      post({ events: [started, tap({ x: 33_554_431, y: -33_554_431 })] }),
    );
    assertEquals(edge.status, 201);
    // stored before the bound (the store's own schema takes any number): read back as it was
    await store.append("session-old", [started, tap({ x: 1e300, y: 0 })] as never);
    const read = await app.request("/v1/streams/session-old/events");
    assertEquals(read.status, 200);
    assertEquals((await read.json()).events[1].data.point, { x: 1e300, y: 0 });
    const playback = await app.request(
      "/v1/playbacks",
      post({ actions: [{ action: "click", x: 1e300, y: 4 }] }),
    );
    const perr = await errorOf(playback, 400, "invalid_request");
    assertEquals(perr.issues?.map((i) => i.path), ["body.actions.0.x"]);
  });
});

Deno.test("POST /v1/playbacks refuses a trail with a heuristics version this build does not know: 400 naming the field", async () => {
  await withApp(async (app, store) => {
    const before = await store.headPosition();
    const res = await app.request("/v1/playbacks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        trail: "config:\n  heuristics: v9\ntrail:\n  - step: Go\n    recording:\n" +
          "      - navigate: http://127.0.0.1:9/\n",
      }),
    });
    const err = await errorOf(res, 400, "invalid_request");
    assertEquals(
      err.message,
      'body.trail: config.heuristics: unknown heuristics version "v9" (known: v0, v1, v2, v3)',
    );
    assertEquals(await store.headPosition(), before); // no playback started
  });
});
