/**
 * One casing for the HTTP contract: every JSON answer of a real session of calls (blaze in real
 * Chromium, sessions, trails, validations, playbacks, events, errors) and every MCP structured
 * output has camelCase keys, except inside user data (memory and variable names, a stored event's
 * `data`, a trail); an error names the camelCase body fields; the answers of the validation,
 * time-travel and playback routes are checked against their schemas in `/openapi.json` with a
 * JSON Schema validator (with the viewer's data of each run), and `playback_results` against the
 * output schema the MCP tool lists.
 *
 * @module
 */
import { Ajv } from "ajv/dist/ajv.js";
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
import { answerChecker } from "../_fixtures/openapi_answers.ts";

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
  const fitsSchema = answerChecker(doc);
  /** The state, snapshot and diff at every position of a run's timeline fit their schemas. */
  const travel = async (streamId: string, timeline: { position: number }[]) => {
    assert(timeline.length > 0, `${streamId} has events`);
    const view = await send("GET", `/v1/view/${streamId}`);
    assert(view.json.items.length > 0, `${streamId} has actions to view`);
    fitsSchema(view.json, "/v1/view/{id}", "get", "200");
    for (const { position } of timeline) {
      const at = await send("GET", `/v1/sessions/${streamId}/state?at=${position}`);
      assertEquals(at.json.state.position, position);
      fitsSchema(at.json, "/v1/sessions/{id}/state", "get", "200");
      const snapshot = await send("GET", `/v1/view/${streamId}/snapshot?at=${position}`);
      fitsSchema(snapshot.json, "/v1/view/{id}/snapshot", "get", "200");
      const diff = await send("GET", `/v1/view/${streamId}/diff?at=${position}`);
      fitsSchema(diff.json, "/v1/view/{id}/diff", "get", "200");
    }
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
    fitsSchema(state.json, "/v1/sessions/{id}/state", "get", "200");
    const timeline = await send("GET", `/v1/sessions/${sessionId}/timeline`);
    fitsSchema(timeline.json, "/v1/sessions/{id}/timeline", "get", "200");
    // time travel at every position of the session: the state, the snapshot and the diff there
    await travel(`session-${sessionId}`, timeline.json.timeline);
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
    // every answer while it runs and the final one fit the report's schema
    const polled: string[] = [];
    const poll = async () => {
      const answer = (await send("GET", `/v1/validations/${validationId}`)).json;
      fitsSchema(answer, "/v1/validations/{id}", "get", "200");
      polled.push(answer.status);
      return answer;
    };
    let report = await poll();
    for (let i = 0; i < 600 && report.status === "running"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      report = await poll();
    }
    assert(report.status !== "running", "the validation ended");
    assertEquals(report.sessionId, sessionId);
    assert(polled.includes("running"), `a running report was checked too: ${polled}`);
    assert(report.runs.length > 0 && report.steps.length > 0, JSON.stringify(report));
    await send("POST", `/v1/validations/${validationId}/stop`); // 409 validation_ended
    const validationTimeline = await send(
      "GET",
      `/v1/sessions/validation-${validationId}/timeline`,
    );
    fitsSchema(validationTimeline.json, "/v1/sessions/{id}/timeline", "get", "200");
    await travel(`validation-${validationId}`, validationTimeline.json.timeline);
    // a validation stopped while it runs: the stop answers the final report (or, slow, 202)
    const second = await send("POST", `/v1/sessions/${sessionId}/validations`, {
      url: `${web.url}login.html`,
      policy: "ci",
    });
    assertEquals(second.status, 202, JSON.stringify(second.json));
    const stopped = await send("POST", `/v1/validations/${second.json.validationId}/stop`);
    assert(stopped.status === 200 || stopped.status === 202, JSON.stringify(stopped.json));
    fitsSchema(stopped.json, "/v1/validations/{id}/stop", "post", String(stopped.status));
    if (stopped.status === 200) assertEquals(stopped.json.status, "failed");

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
    const playbackTimeline = await send("GET", `/v1/sessions/playback-${playbackId}/timeline`);
    fitsSchema(playbackTimeline.json, "/v1/sessions/{id}/timeline", "get", "200");
    await travel(`playback-${playbackId}`, playbackTimeline.json.timeline);
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
      // the report fits the output schema the tool lists (the client checks it as well)
      const results = await mcp("playback_results", { playbackId });
      assertEquals(results.playbackId, playbackId);
      const { tools } = await client.listTools() as unknown as {
        tools: { name: string; outputSchema?: Record<string, unknown> }[];
      };
      const listed = tools.find((t) => t.name === "playback_results")?.outputSchema;
      assert(listed, "playback_results lists an output schema");
      const checkOutput = new Ajv({ strict: false, allErrors: true }).compile(listed);
      assert(checkOutput(results), JSON.stringify(checkOutput.errors));
      assert(!checkOutput({ ...results, status: "queued" }), "a report is not a queued stub");
      // history's timeline and state at a position fit its listed schema
      const listedHistory = tools.find((t) => t.name === "history")?.outputSchema;
      assert(listedHistory, "history lists an output schema");
      const checkHistory = new Ajv({ strict: false, allErrors: true }).compile(listedHistory);
      const timeline = await mcp("history", { sessionId });
      assert(checkHistory(timeline), JSON.stringify(checkHistory.errors));
      const state = await mcp("history", { sessionId, at: 3 });
      assert(checkHistory(state), JSON.stringify(checkHistory.errors));
      assert(!checkHistory({ ...state, at: "3" }), "at is a number");
      // the validation's report fits validation_results' listed schema too
      const validated = await mcp("validation_results", { validationId });
      const listedValidation = tools.find((t) => t.name === "validation_results")?.outputSchema;
      assert(listedValidation, "validation_results lists an output schema");
      const checkValidation = new Ajv({ strict: false, allErrors: true }).compile(listedValidation);
      assert(checkValidation(validated), JSON.stringify(checkValidation.errors));
      assert(!checkValidation({ ...validated, runs: "none" }), "runs is a list");
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
