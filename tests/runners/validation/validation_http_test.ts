/**
 * Validations over HTTP (`app.request`, no network for the API; the shop and Chromium are real).
 */
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { createApp } from "../../../api/app.ts";
import { validationRegistry } from "../../../api/validations.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { blazeShop } from "../../_fixtures/validation_capture.ts";
import { serveVaryingShop } from "../../_fixtures/validation_server.ts";
import { waitUntil } from "../../_fixtures/wait.ts";

Deno.test("POST /v1/sessions/:id/validations answers at once; GET /v1/validations/:id shows progress then the report", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-http-" });
  const shop = await serveVaryingShop();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const capture = await ChromeDriver.launch();
  const registry = validationRegistry(store, { createDriver: () => ChromeDriver.launch() });
  try {
    const sessionId = await blazeShop(capture, store, shop.url, { slot: true });
    const app = createApp({ store });
    const post = (id: string, body: unknown) =>
      app.request(`/v1/sessions/${id}/validations`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });

    const t0 = performance.now();
    const res = await post(sessionId, { url: shop.url, policy: "authoring", max_iterations: 3 });
    assertEquals(res.status, 202);
    const { validationId: id, status } = await res.json();
    assertEquals(status, "running");
    assert(typeof id === "string" && id.length > 0);
    const answeredMs = performance.now() - t0;

    const busy = await post(sessionId, { url: shop.url });
    assertEquals(busy.status, 409);
    assertEquals((await busy.json()).error.code, "validation_running");

    let report = await (await app.request(`/v1/validations/${id}`)).json();
    assertEquals(report.status, "running");
    assert(report.runs.length < 3, `answered in ${answeredMs} ms, before the loop ended`);
    // bounded (120 s): each iteration launches Chromium, seconds apiece on a busy machine
    report = await waitUntil("the validation to end", async () => {
      const r = await (await app.request(`/v1/validations/${id}`)).json();
      return r.status !== "running" && r;
    }, { timeoutMs: 120_000, everyMs: 100 });
    assertEquals(report.status, "unstable");
    assertEquals(report.iterations, 3);
    assertEquals(report.sessionId, sessionId);
    assertEquals(report.steps[3].status, "unstable");
    assert(report.steps[3].evidence.length > 0);
    assertStringIncludes(report.trail, "recordable: false");
    assertStringIncludes(report.message, "Pick any available delivery slot");

    const missing = await app.request("/v1/validations/nope");
    assertEquals(missing.status, 404);
    assertEquals((await missing.json()).error.code, "not_found");
    const noSession = await post("nope", {});
    assertEquals(noSession.status, 404);
    const bad = await post(sessionId, { policy: "sometimes", extra: 1 });
    assertEquals(bad.status, 400);
    const err = (await bad.json()).error;
    assertEquals(err.code, "invalid_request");
    assert(err.issues.some((i: { path: string }) => i.path === "body.policy"));
  } finally {
    await registry.close();
    await capture.close();
    store.close();
    await shop.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("POST /v1/validations/:id/stop ends a running validation failed 'stopped by request'; 409 once ended, 404 unknown; the next one starts", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-http-" });
  const shop = await serveVaryingShop();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const capture = await ChromeDriver.launch();
  const registry = validationRegistry(store, { createDriver: () => ChromeDriver.launch() });
  try {
    const sessionId = await blazeShop(capture, store, shop.url, { slot: true });
    const app = createApp({ store });
    const post = (path: string, body?: unknown) =>
      app.request(path, {
        method: "POST",
        ...(body === undefined
          ? {}
          : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
      });
    const res = await post(`/v1/sessions/${sessionId}/validations`, {
      url: shop.url,
      max_iterations: 3,
    });
    assertEquals(res.status, 202);
    const { validationId: id } = await res.json();
    const stopped = await post(`/v1/validations/${id}/stop`);
    assertEquals(stopped.status, 200);
    const report = await stopped.json();
    assertEquals(report.status, "failed");
    assertStringIncludes(report.message, "stopped by request");
    assert(report.iterations < 3, `stopped after ${report.iterations} iterations`);
    const again = await post(`/v1/validations/validation-${id}/stop`);
    assertEquals(again.status, 409);
    assertEquals((await again.json()).error.code, "validation_ended");
    const unknown = await post("/v1/validations/nope/stop");
    assertEquals(unknown.status, 404);
    assertEquals((await unknown.json()).error.message, "No validation nope");
    const next = await post(`/v1/sessions/${sessionId}/validations`, { url: shop.url });
    assertEquals(next.status, 202, "the stopped validation no longer blocks the next");
    await next.body?.cancel();
  } finally {
    await registry.close();
    await capture.close();
    store.close();
    await shop.close();
    await Deno.remove(dir, { recursive: true });
  }
});
