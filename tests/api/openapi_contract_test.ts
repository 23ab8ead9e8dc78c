/**
 * The HTTP contract: `/openapi.json` passes a real OpenAPI 3.1 validator, every operation has a
 * unique `operationId`, shared schemas are components, and the blaze tools' requests are typed
 * per tool.
 *
 * @module
 */
import { validate } from "@readme/openapi-parser";
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { playbackRegistry } from "../../api/playbacks.ts";
import { DriverError } from "../../drivers/driver.ts";
import { createApp } from "../../api/app.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { TOOL_NAMES } from "../../runners/blaze/session.ts";

type Operation = { operationId?: string; requestBody?: unknown; parameters?: unknown[] };

Deno.test("GET /openapi.json is a valid OpenAPI 3.1 document with an operationId on every operation", async () => {
  const store = SqliteEventStore.open(":memory:");
  try {
    const app = createApp({ store });
    const doc = await (await app.request("/openapi.json")).json();
    assertEquals(doc.openapi, "3.1.0");
    const result = await validate(structuredClone(doc));
    assert(result.valid, JSON.stringify(result));

    const operations = Object.entries(doc.paths as Record<string, Record<string, Operation>>)
      .flatMap(([path, item]) =>
        Object.entries(item).filter(([m]) => m !== "description").map(([m, op]) => ({
          at: `${m} ${path}`,
          op,
        }))
      );
    assert(operations.length >= 25, `${operations.length} operations`);
    const ids = operations.map((o) => o.op.operationId);
    for (const o of operations) assert(o.op.operationId, `${o.at} has no operationId`);
    assertEquals(new Set(ids).size, ids.length, "operationIds are unique");

    // shared schemas, each tool's parameters among them
    const schemas = doc.components.schemas as Record<string, unknown>;
    for (const name of ["Error", "BlazeToolCall", "BlazeTapParams", "BlazeTypeParams"]) {
      assert(name in schemas, `components.schemas.${name}`);
    }
    const byPath = doc.paths["/v1/blaze/sessions/{id}/tools/{tool}"].post;
    const tool = byPath.parameters.find((p: { name: string }) => p.name === "tool");
    assertEquals(tool.schema.enum, TOOL_NAMES);
    const oneOf = byPath.requestBody.content["application/json"].schema.oneOf as { $ref: string }[];
    assertEquals(oneOf.length, TOOL_NAMES.length);
    const call = schemas.BlazeToolCall as { oneOf: unknown[]; discriminator: unknown };
    assertEquals(call.discriminator, { propertyName: "tool" });
    assertEquals(call.oneOf.length, TOOL_NAMES.length);
    // no pointer into a nested $defs: every $ref resolves from the root
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]*"/g) ?? [];
    for (const r of refs) assert(r.includes("#/components/"), r);
  } finally {
    store.close();
  }
});

Deno.test("POST /v1/blaze/sessions/:id/tools takes the tool in the body", async () => {
  const store = SqliteEventStore.open(":memory:");
  try {
    const app = createApp({ store });
    const post = (body: unknown) =>
      app.request("/v1/blaze/sessions/nope/tools", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const noTool = await post({ ref: "y1" });
    assertEquals(noTool.status, 400);
    assertEquals((await noTool.json()).error.issues[0].path, "body.tool");
    const noSession = await post({ tool: "tap", ref: "y1" });
    assertEquals(noSession.status, 404);
    assertEquals((await noSession.json()).error.code, "not_found");
  } finally {
    store.close();
  }
});

Deno.test("request bodies are camelCase; the old snake_case names answer with a Deprecation header", async () => {
  const store = SqliteEventStore.open(":memory:");
  // no browser: a body the route accepts gets as far as asking for one (502), never a 400
  playbackRegistry(store, {
    createDriver: () => Promise.reject(new DriverError("no browser in this test")),
  });
  try {
    const app = createApp({ store });
    const post = (body: unknown) =>
      app.request("/v1/playbacks", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const actions = [{ action: "navigate", url: "https://example.com/" }];
    const camel = await post({ actions, onError: "stop", timeoutMs: 5000, testId: "t1" });
    assertEquals(camel.status, 502, await camel.text());
    assertEquals(camel.headers.get("deprecation"), null);
    const snake = await post({ actions, on_error: "stop", timeout_ms: 5000 });
    assertEquals(snake.status, 502, await snake.text());
    assertEquals(snake.headers.get("deprecation"), "true");
    assertStringIncludes(String(snake.headers.get("warning")), "on_error -> onError");
    const bad = await post({ actions, onError: "sometimes" });
    assertEquals(bad.status, 400);
    await bad.body?.cancel();

    const doc = await (await app.request("/openapi.json")).json();
    const body = doc.paths["/v1/playbacks"].post.requestBody.content["application/json"].schema;
    for (const name of ["onError", "timeoutMs", "recordingId", "valueOverrides", "autoBoundary"]) {
      assert(name in body.properties, `body.${name}`);
    }
    assert(!("on_error" in body.properties));
  } finally {
    await playbackRegistry(store).close();
    store.close();
  }
});
