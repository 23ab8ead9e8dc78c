/**
 * One casing for the HTTP contract: every JSON answer of a real session of calls (blaze in real
 * Chromium, sessions, trails, validations, playbacks, events, errors) and every MCP structured
 * output has camelCase keys, except inside user data (memory and variable names, a stored event's
 * `data`, a trail); an error names the camelCase body fields; a few answers are checked against
 * their schemas in `/openapi.json` with a JSON Schema validator.
 *
 * @module
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { createApp } from "../../api/app.ts";
import { blazeRegistry } from "../../api/blaze.ts";
import { playbackRegistry } from "../../api/playbacks.ts";
import { validationRegistry } from "../../api/validations.ts";
import { ChromeDriver } from "../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { createMcpServer } from "../../mcp/server.ts";
import { serveFolder } from "../_fixtures/web_server.ts";
import { refIn } from "../_fixtures/blaze_refs.ts";

/** Keys whose values are user data: their own keys are answered as given or stored. */
const USER_DATA = new Set(["memory", "secretMemory", "variables", "valueOverrides", "data"]);
const SNAKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;

/** The snake_case keys of a JSON value, by path, outside user data. */
function snakeKeys(value: unknown, at = "$"): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => snakeKeys(v, `${at}[${i}]`));
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) => [
    ...(SNAKE.test(k) ? [`${at}.${k}`] : []),
    ...(USER_DATA.has(k) || k === "trail" && typeof v === "object"
      ? []
      : snakeKeys(v, `${at}.${k}`)),
  ]);
}

Deno.test("every JSON answer of a session of calls is camelCase outside user data; errors name camelCase fields", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-casing-" });
  const web = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  blazeRegistry(store, { settleMs: 100 });
  playbackRegistry(store, { screenshotDir: dir });
  validationRegistry(store, { createDriver: () => ChromeDriver.launch() });
  const app = createApp({ store });
  /** Every JSON answer: the call, the status and the body. */
  const answers: { call: string; status: number; body: unknown }[] = [];
  const send = async (method: string, path: string, body?: unknown, headers = {}) => {
    const res = await app.request(path, {
      method,
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    const json = (res.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : text;
    if (typeof json !== "string") {
      answers.push({ call: `${method} ${path}`, status: res.status, body: json });
    }
    return { status: res.status, json, headers: res.headers };
  };
  const doc = (await send("GET", "/openapi.json")).json;
  answers.pop(); // the OpenAPI document is a format of its own (its paths, media types)
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: DOC, components: doc.components });
  const fitsSchema = (value: unknown, path: string, method: string, status: string) => {
    const schema = doc.paths[path][method].responses[status].content["application/json"].schema;
    const check = ajv.compile(refsToDoc(schema));
    assert(check(value), `${method} ${path} ${status}: ${JSON.stringify(check.errors)}`);
  };
  try {
    // ---- blaze, with user data: memory names in snake_case
    const started = await send("POST", "/v1/blaze/sessions", {
      url: `${web.url}login.html`,
      prompt: "Sign in as alice",
      memory: { card_no: "4242" },
    });
    assertEquals(started.status, 201, JSON.stringify(started.json));
    const sessionId = started.json.sessionId as string;
    const tool = (name: string, params: unknown) =>
      send("POST", `/v1/blaze/sessions/${sessionId}/tools/${name}`, params);
    const snap = (await tool("snapshot", {})).json;
    assert(
      (await tool("type", {
        ref: refIn(snap.output, "Email"),
        text: "alice@example.com",
        step: "Sign in",
      })).json.ok,
    );
    assert((await tool("type", { ref: refIn(snap.output, "Password"), text: "hunter22" })).json.ok);
    assert((await tool("press", { key: "Enter" })).json.ok);
    const after = (await tool("snapshot", {})).json;
    const read = await tool("read", {
      ref: refIn(after.output, "alice@example.com"),
      storeAs: "user_name",
      step: "Note the user",
    });
    assertEquals(read.json.value, "alice@example.com");
    await tool("memory", { op: "get", name: "card_no" });
    const live = await send("GET", "/v1/blaze/sessions");
    assertEquals(
      live.json.sessions[0].memory.card_no,
      "4242",
      "a memory name is answered as given",
    );
    assert((await tool("end", { reason: "completed" })).json.ok);

    // ---- sessions, trails, events
    await send("GET", "/v1/sessions");
    const state = await send("GET", `/v1/sessions/${sessionId}/state`);
    assertEquals(state.json.state.memory.user_name, "alice@example.com");
    await send("GET", `/v1/sessions/${sessionId}/timeline`);
    const trail = await send("GET", `/v1/sessions/${sessionId}/trail?format=json`);
    assertEquals(trail.status, 200);
    assertStringIncludes(trail.json.yaml, "user_name");
    const events = await send("GET", `/v1/streams/session-${sessionId}/events`);
    const stored = [];
    for await (const e of store.readStream(`session-${sessionId}`)) stored.push(e.data);
    assertEquals(events.json.events.map((e: { data: unknown }) => e.data), stored);

    // ---- validation (ci: one replay)
    const validation = await send("POST", `/v1/sessions/${sessionId}/validations`, {
      url: `${web.url}login.html`,
      policy: "ci",
    });
    assertEquals(validation.status, 202, JSON.stringify(validation.json));
    fitsSchema(validation.json, "/v1/sessions/{id}/validations", "post", "202");
    const validationId = validation.json.validationId as string;
    let report = (await send("GET", `/v1/validations/${validationId}`)).json;
    for (let i = 0; i < 600 && report.status === "running"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      report = (await send("GET", `/v1/validations/${validationId}`)).json;
    }
    assert(report.status !== "running", "the validation ended");
    assertEquals(report.sessionId, sessionId);
    await send("POST", `/v1/validations/${validationId}/stop`); // 409 validation_ended

    // ---- playbacks: of the trail, its report, the list, a stop after the end, the 404
    const playback = await send("POST", "/v1/playbacks", {
      trail: trail.json.yaml,
      url: `${web.url}login.html`,
      onError: "continue",
    });
    assertEquals(playback.status, 202, JSON.stringify(playback.json));
    fitsSchema(playback.json, "/v1/playbacks", "post", "202");
    const playbackId = playback.json.playbackId as string;
    await playbackRegistry(store).finished(playbackId);
    const final = await send("GET", `/v1/playbacks/${playbackId}`);
    assertEquals(final.json.playbackId, playbackId);
    assert(final.json.results.length > 0 && "durationMs" in final.json.results[0]);
    fitsSchema(final.json, "/v1/playbacks/{id}", "get", "200");
    await send("GET", "/v1/playbacks");
    await send("GET", "/v1/selectors/fragile");
    const ended = await send("POST", `/v1/playbacks/${playbackId}/stop`);
    assertEquals(ended.json.error.code, "playback_ended");
    const missing = await send("GET", "/v1/playbacks/nope");
    assertEquals(missing.status, 404);
    fitsSchema(missing.json, "/v1/playbacks/{id}", "get", "404");

    // ---- errors name the camelCase fields, given by either name
    const bad = await send("POST", "/v1/playbacks", { actions: [], onError: "sometimes" });
    assertEquals(bad.status, 400);
    assertEquals(bad.json.error.issues.map((i: { path: string }) => i.path), ["body.onError"]);
    assertStringIncludes(bad.json.error.message, "body.onError");
    const old = await send("POST", "/v1/playbacks", { actions: [], on_error: "sometimes" });
    assertEquals(old.json.error.issues[0].path, "body.onError");
    assertEquals(old.headers.get("deprecation"), "true");
    const overrides = await send("POST", "/v1/playbacks", {
      trail: trail.json.yaml,
      url: `${web.url}login.html`,
      valueOverrides: { "99": "x" },
    });
    assertEquals(overrides.status, 400);
    assertEquals(overrides.json.error.issues[0].path, "body.valueOverrides.99");
    const memoryKey = await send("POST", "/v1/playbacks", {
      trail: trail.json.yaml,
      url: `${web.url}login.html`,
      memory: { no_such_key: "x" },
    });
    assertEquals(memoryKey.status, 400);
    // a memory name is user data: named as given
    assertEquals(memoryKey.json.error.issues[0].path, "body.memory.no_such_key");
    const iterations = await send("POST", `/v1/sessions/${sessionId}/validations`, {
      policy: "ci",
      maxIterations: 3,
    });
    assertEquals(iterations.json.error.issues[0].path, "body.maxIterations");
    assertStringIncludes(iterations.json.error.issues[0].message, "maxIterations");

    // ---- the old names, for one release, when asked for
    const snake = await send("GET", `/v1/playbacks/${playbackId}`, undefined, {
      "Cairn-Casing": "snake",
    });
    assertEquals(snake.json.playback_id, playbackId);
    assertEquals(snake.headers.get("deprecation"), "true");
    answers.pop();

    // ---- MCP: the same names in its structured outputs
    const server = createMcpServer((req) => app.fetch(req));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "cairn-casing-test", version: "1.0.0" });
    await server.connect(serverSide);
    await client.connect(clientSide);
    try {
      type Result = { structuredContent?: unknown; isError?: boolean };
      const mcp = async (name: string, args: Record<string, unknown>) => {
        const r = await client.callTool({ name, arguments: args }) as Result;
        assert(!r.isError, `${name}: ${JSON.stringify(r)}`);
        answers.push({ call: `mcp ${name}`, status: 0, body: r.structuredContent });
        return r.structuredContent as Record<string, unknown>;
      };
      await mcp("playback_results", { playbackId });
      await mcp("history", { sessionId });
      await mcp("history", { sessionId, at: 3 });
      await mcp("validation_results", { validationId });
      await mcp("optimize", { sessionId, explain: true });
      await mcp("slot_analysis", { steps: ["Note the order number", "Type it into the search"] });
    } finally {
      await client.close();
    }

    assert(answers.length >= 30, `${answers.length} answers`);
    const snakes = answers.flatMap((a) =>
      snakeKeys(a.body).map((k) => `${a.call} ${a.status}: ${k}`)
    );
    assertEquals(snakes, []);
  } finally {
    await playbackRegistry(store).close();
    await validationRegistry(store).close();
    await blazeRegistry(store).closeAll();
    store.close();
    await web.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** The id the OpenAPI document's components are registered under in the validator. */
const DOC = "https://cairn.invalid/openapi.json";

/** A response schema whose `$ref`s point into the document's components (registered as DOC). */
function refsToDoc(schema: unknown): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(schema).replaceAll('"#/components/', `"${DOC}#/components/`),
  ) as Record<string, unknown>;
}
