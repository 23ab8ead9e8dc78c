/**
 * How the API reads what a client names: one id rule for sessions, playbacks and validations
 * (bare or with the stream prefix, one 404 message), query strings refused as bodies are, an
 * empty validation body, iterations the policy would ignore, one issue per field, and one log
 * line per 5xx the API expected. `app.request` (no network), real SQLite files; real Chromium
 * where a playback, validation or blaze session has to start.
 */
import { Hono } from "hono";
import { createApp } from "../../api/app.ts";
import { ApiError, handleError } from "../../api/errors.ts";
import { blazeRegistry } from "../../api/blaze.ts";
import { playbackRegistry } from "../../api/playbacks.ts";
import { validationRegistry } from "../../api/validations.ts";
import { ingestOnce } from "../../cli/optimize.ts";
import { ChromeDriver } from "../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";

const CAPTURE = new URL("../../examples/web_checkout.capture.json", import.meta.url).pathname;

type App = ReturnType<typeof createApp>;

async function withApp(fn: (app: App, store: SqliteEventStore) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn_http_input_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  try {
    await fn(createApp({ store }), store);
  } finally {
    // a run a request started by mistake (as before the checks) is stopped with its browser
    await playbackRegistry(store).close();
    await validationRegistry(store).close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function post(app: App, path: string, body?: unknown) {
  return app.request(path, {
    method: "POST",
    ...(body === undefined
      ? {}
      : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
}

async function error(res: Response, status: number) {
  assertEquals(res.status, status);
  return (await res.json()).error as {
    code: string;
    message: string;
    issues?: { path: string; message: string }[];
  };
}

Deno.test("a session is named bare or as session-<id> by every route, and an unknown one is 404 'No session <id>'", async () => {
  await withApp(async (app, store) => {
    const id = await ingestOnce(store, CAPTURE);
    for (const given of [id, `session-${id}`]) {
      for (const route of ["trail", "state", "timeline"]) {
        const res = await app.request(`/v1/sessions/${given}/${route}`);
        assertEquals(res.status, 200, `${route} ${given}`);
        await res.body?.cancel();
      }
    }
    for (const given of ["nope", "session-nope"]) {
      for (const route of ["trail", "state", "timeline", "sheet.png"]) {
        const err = await error(await app.request(`/v1/sessions/${given}/${route}`), 404);
        assertEquals(err.message, "No session nope", `${route} ${given}`);
      }
      const val = await error(await post(app, `/v1/sessions/${given}/validations`, {}), 404);
      assertEquals(val.message, "No session nope");
      const pb = await error(await post(app, "/v1/playbacks", { recordingId: given }), 404);
      assertEquals(pb.message, "No session nope");
    }
    // a playback's state is read as a session's (the one id rule of `cairn history`)
    await store.append("playback-pb-1", [{
      type: "PlaybackStarted",
      data: {
        playbackId: "pb-1",
        source: { kind: "actions" },
        platform: "web",
        actionsTotal: 0,
        timing: "fast",
        onError: "continue",
      },
    }]);
    for (const given of ["playback-pb-1", "pb-1"]) {
      const state = await app.request(`/v1/sessions/${given}/state`);
      assertEquals(state.status, 200, given);
      assertEquals((await state.json()).state.playback.playbackId, "pb-1");
    }
    // its timeline is still read by its stream id, as `cairn history` does
    const timeline = await app.request("/v1/sessions/playback-pb-1/timeline");
    assertEquals((await timeline.json()).streamId, "playback-pb-1");
    // playbacks and validations take their prefix too
    for (const given of ["pb-1", "playback-pb-1"]) {
      const res = await app.request(`/v1/playbacks/${given}`);
      assertEquals((await res.json()).playbackId, "pb-1", given);
    }
    const noPb = await app.request("/v1/playbacks/playback-nope");
    assertEquals(noPb.status, 404);
    assertEquals((await noPb.json()).error.message, "No playback nope");
    for (const given of ["nope", "validation-nope"]) {
      const err = await error(await app.request(`/v1/validations/${given}`), 404);
      assertEquals(err.message, "No validation nope");
    }
  });
});

Deno.test("POST /v1/playbacks takes recordingId session-<id> and POST /v1/sessions/session-<id>/validations an empty body", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_http_input_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const playbacks = playbackRegistry(store, {
    createDriver: () => ChromeDriver.launch(),
    screenshotDir: `${dir}/shots`,
    locateWaitMs: 100,
  });
  const validations = validationRegistry(store, {
    createDriver: () => ChromeDriver.launch(),
    locateWaitMs: 100,
  });
  const page = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("<p>checkout</p>", { headers: { "content-type": "text/html" } }),
  );
  const url = `http://127.0.0.1:${page.addr.port}/`;
  try {
    const id = await ingestOnce(store, CAPTURE);
    const app = createApp({ store });
    const pb = await post(app, "/v1/playbacks", { recordingId: `session-${id}`, url });
    assertEquals(pb.status, 202, await pb.clone().text());
    const { playbackId } = await pb.json();
    const report = await (await app.request(`/v1/playbacks/${playbackId}`)).json();
    assertEquals(report.recordingId, id);

    // every field is optional: no body at all is {}
    const val = await post(app, `/v1/sessions/session-${id}/validations`);
    assertEquals(val.status, 202, await val.clone().text());
    const { validationId } = await val.json();
    const progress = await (await app.request(`/v1/validations/${validationId}`)).json();
    assertEquals(progress.sessionId, id);
  } finally {
    await playbacks.close();
    await validations.close();
    store.close();
    await page.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("POST /v1/sessions/:id/validations refuses maxIterations with a policy that ignores it", async () => {
  await withApp(async (app, store) => {
    const id = await ingestOnce(store, CAPTURE);
    for (
      const body of [{ policy: "dev", maxIterations: 20 }, { policy: "ci", maxIterations: 3 }]
    ) {
      const err = await error(await post(app, `/v1/sessions/${id}/validations`, body), 400);
      assertEquals(err.issues?.map((i) => i.path), ["body.maxIterations"], JSON.stringify(body));
      assertStringIncludes(err.message, "only the authoring policy takes maxIterations");
    }
    assertEquals((await store.streams("validation-")).length, 0);
  });
});

Deno.test("query strings are parsed as bodies are: an unknown or repeated parameter is 400 naming it", async () => {
  await withApp(async (app, store) => {
    const id = await ingestOnce(store, CAPTURE);
    const unknown = await error(
      await app.request(`/v1/sessions/${id}/trail?selectorMode=strict`),
      400,
    );
    assertEquals(unknown.issues?.map((i) => i.path), ["query.selectorMode"]);
    assertStringIncludes(unknown.message, "unknown parameter (this route takes mode, heuristics");
    const twice = await error(
      await app.request(`/v1/sessions/${id}/trail?mode=strict&mode=flexible`),
      400,
    );
    assertEquals(twice.issues?.map((i) => i.path), ["query.mode"]);
    assertStringIncludes(twice.message, "given 2 times");
    for (
      const path of [
        `/v1/sessions/${id}/state?a=1`,
        `/v1/sessions/${id}/timeline?form=2`,
        `/v1/streams/session-${id}/events?limit=1&limit=2`,
        "/v1/events?frm=1",
        "/v1/sessions?x=1",
        "/v1/playbacks?status=running",
        `/v1/blobs/${"0".repeat(64)}?download=1`,
      ]
    ) {
      const err = await error(
        await app.request(path, { headers: { accept: "application/json" } }),
        400,
      );
      assertEquals(err.issues?.length, 1, path);
      assert(err.issues![0]!.path.startsWith("query."), path);
    }
    const ok = await app.request(`/v1/sessions/${id}/trail?mode=strict`);
    assertEquals(ok.headers.get("x-cairn-selector-mode"), "strict");
    await ok.body?.cancel();
  });
});

Deno.test("a number past 2^53 in a query is one issue, not two", async () => {
  await withApp(async (app, store) => {
    const id = await ingestOnce(store, CAPTURE);
    const err = await error(await app.request(`/v1/sessions/${id}/state?at=9007199254740992`), 400);
    assertEquals(err.issues?.length, 1, JSON.stringify(err));
    assertEquals(err.issues![0]!.path, "query.at");
  });
});

Deno.test("handleError() logs an expected 5xx (a failed browser call) as one line and an unexpected error with its stack", async () => {
  const app = new Hono();
  app.onError(handleError);
  app.get("/driver", () => {
    throw new ApiError(502, "browser_failed", "Protocol error:\n  Target closed");
  });
  app.get("/bug", () => {
    throw new TypeError("x is undefined");
  });
  const logged: unknown[][] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void logged.push(args);
  try {
    assertEquals((await app.request("/driver")).status, 502);
    assertEquals((await app.request("/bug")).status, 500);
  } finally {
    console.error = original;
  }
  assertEquals(logged[0], [
    "cairn serve: GET /driver: 502 browser_failed: Protocol error: Target closed",
  ]);
  assert(
    logged[1]![1] instanceof TypeError,
    "the unexpected error is logged whole, with its stack",
  );
});

Deno.test("POST /v1/blaze/sessions/:id/tools/:tool with an unknown tool is 400 naming path.tool", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_http_input_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const registry = blazeRegistry(store, { settleMs: 50, screenshots: false });
  const page = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("<p>hi</p>", { headers: { "content-type": "text/html" } }),
  );
  try {
    const app = createApp({ store });
    const started = await post(app, "/v1/blaze/sessions", {
      url: `http://127.0.0.1:${page.addr.port}/`,
      prompt: "x",
    });
    const { sessionId } = await started.json();
    const err = await error(await post(app, `/v1/blaze/sessions/${sessionId}/tools/fly`, {}), 400);
    assertEquals(err.message, 'Unknown tool "fly"');
    assertEquals(err.issues?.map((i) => i.path), ["path.tool"]);
    assertStringIncludes(err.issues![0]!.message, "tap");
  } finally {
    await registry.closeAll();
    store.close();
    await page.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
