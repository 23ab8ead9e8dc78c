import {
  assert,
  assertEquals,
  assertLessOrEqual,
  assertStringIncludes,
} from "../../_fixtures/assert.ts";
import { createApp } from "../../../api/app.ts";
import {
  type BlazeRegistry,
  blazeRegistry,
  type BlazeRegistryOptions,
} from "../../../api/blaze.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { withDeadline } from "../../../drivers/with_deadline.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { RecordingV1 } from "../../../engine/formats/recording_v1.ts";
import { CaptureV1 } from "../../../engine/formats/capture_v1.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";

Deno.test("POST /v1/blaze/sessions/:id/tools/:tool drives real Chromium and records each call", async () => {
  const dir = await Deno.makeTempDir();
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const registry = blazeRegistry(store, { settleMs: 100 });
  const app = createApp({ store });
  const post = (path: string, body?: unknown) =>
    app.request(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: body === undefined ? "" : JSON.stringify(body),
    });
  try {
    const bad = await post("/v1/blaze/sessions", { url: "not a url", prompt: "x" });
    assertEquals(bad.status, 400);
    assertEquals((await bad.json()).error.code, "invalid_request");
    const emptyName = await post("/v1/blaze/sessions", {
      url: server.url + "login.html",
      prompt: "x",
      memory: { "": "v" },
    });
    assertEquals(emptyName.status, 400);
    assertStringIncludes((await emptyName.json()).error.message, "memory name cannot be empty");

    const started = await post("/v1/blaze/sessions", {
      url: server.url + "login.html",
      prompt: "Sign in as alice",
    });
    assertEquals(started.status, 201);
    const { sessionId } = await started.json();
    const tool = (name: string, params?: unknown) =>
      post(`/v1/blaze/sessions/${sessionId}/tools/${name}`, params);

    const snap = await (await tool("snapshot", {})).json();
    assertStringIncludes(snap.output, "Sign in");
    const email = refIn(snap.output, "Email");
    const typed = await (await tool("type", {
      ref: email,
      text: "alice@example.com",
      step: "Sign in", // starts the step, as seed 002's -o does
      notes: "the e-mail field",
      confidence: 0.9,
    })).json();
    assert(typed.ok, JSON.stringify(typed));
    const password = refIn(snap.output, "Password");
    assert((await (await tool("type", { ref: password, text: "hunter22" })).json()).ok);
    const submit = await (await tool("press", { key: "Enter" })).json();
    assert(submit.ok);
    assert(String(submit.url).startsWith(server.url + "welcome.html"), submit.url);
    const after = await (await tool("snapshot", {})).json();
    const user = refIn(after.output, "alice@example.com");
    const read = await (await tool("read", { ref: user, storeAs: "user" })).json();
    assertEquals(read.value, "alice@example.com");

    const badParams = await tool("tap", { ref: email, x: 3, y: 4 });
    assertEquals(badParams.status, 400);
    assertStringIncludes((await badParams.json()).error.message, "not both");
    const unknown = await tool("fly", {});
    assertEquals(unknown.status, 400);
    const notJson = await app.request(`/v1/blaze/sessions/${sessionId}/tools/tap`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    assertEquals(notJson.status, 400);
    // what a page on another site could send without a preflight
    const asText = await app.request(`/v1/blaze/sessions/${sessionId}/tools/snapshot`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "{}",
    });
    assertEquals(asText.status, 415);
    assertEquals((await asText.json()).error.code, "unsupported_media_type");
    // an empty body is no parameters
    assertStringIncludes((await (await tool("snapshot")).json()).output, "alice@example.com");
    const noSession = await post("/v1/blaze/sessions/nope/tools/snapshot", {});
    assertEquals(noSession.status, 404);

    const ended = await (await tool("end", { reason: "completed" })).json();
    assertEquals([ended.ok, ended.forced, ended.output], [
      true,
      false,
      "Session ended (completed)",
    ]);
    const afterEnd = await tool("snapshot", {});
    assertEquals(afterEnd.status, 409); // the session exists, and has ended
    assertEquals((await afterEnd.json()).error.code, "session_ended");
    assertEquals(registry.ids(), []);

    const capture = CaptureV1.parse(
      await (await app.request(`/v1/blaze/sessions/${sessionId}/capture`)).json(),
    );
    assertEquals(capture.mode, "agent");
    assertEquals(capture.actions.map((a) => a.action), [
      "inputText",
      "inputText",
      "keyPress",
      "readText",
    ]);
    const { readSession, sessionToRecording } = await import(
      "../../../runners/record/session_export.ts"
    );
    const recording = RecordingV1.parse(sessionToRecording(await readSession(store, sessionId)));
    assertEquals(recording.summary?.ended_reason, "completed");
    const decisions = recording.timeline.filter((e) => e.kind === "decision");
    assertEquals(decisions.length, 4);
    const first = decisions[0]!;
    assert(first.kind === "decision");
    assertEquals([first.notes, first.confidence], ["the e-mail field", 0.9]);
    assertEquals(capture.actions[0]?.nlStep, "Sign in");
  } finally {
    await registry.closeAll();
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * A blaze session over `app.request` on the dialogs page, with a short call timeout (and the
 * registry's other options when given).
 */
async function withDialogsSession(
  fn: (
    tool: (name: string, params: unknown) => Promise<Response>,
    ctx: {
      post: (path: string, body: unknown) => Promise<Response>;
      store: SqliteEventStore;
      registry: BlazeRegistry;
      sessionId: string;
      base: string;
    },
  ) => Promise<void>,
  options: BlazeRegistryOptions = {},
): Promise<void> {
  const server = serveFolder();
  const store = SqliteEventStore.open(":memory:");
  const registry = blazeRegistry(store, {
    settleMs: 50,
    screenshots: false,
    callTimeoutMs: 2_000,
    ...options,
  });
  const app = createApp({ store });
  // bounded: a call that hangs fails the test instead of stalling it
  const post = async (path: string, body: unknown) =>
    await withDeadline(
      Promise.resolve(app.request(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      })),
      15_000,
      () => new Error(`POST ${path} did not answer within 15 s`),
    );
  try {
    const started = await post("/v1/blaze/sessions", {
      url: server.url + "dialogs.html",
      prompt: "Save",
    });
    assertEquals(started.status, 201);
    const { sessionId } = await started.json();
    await fn(
      (name, params) => post(`/v1/blaze/sessions/${sessionId}/tools/${name}`, params),
      { post, store, registry, sessionId, base: server.url },
    );
  } finally {
    // bounded as well: when ending a session hangs, its browser is closed directly
    const drivers = registry.ids().map((id) => registry.get(id)!.driver);
    await withDeadline(registry.closeAll(), 15_000, () => new Error("closeAll() hung"))
      .catch(() => {});
    await Promise.all(drivers.map((d) => d.close()));
    store.close();
    await server.close();
  }
}

Deno.test("POST /v1/blaze/sessions and …/tools/navigate refuse a javascript: url with 400 naming url", async () => {
  await withDialogsSession(async (tool, { post, base }) => {
    for (const url of ["javascript:alert(1)", "chrome://settings", "about:config"]) {
      const res = await tool("navigate", { url });
      assertEquals(res.status, 400, url);
      const { error } = await res.json();
      assertEquals(error.issues.map((i: { path: string }) => i.path), ["body.url"], url);
      assertStringIncludes(error.message, "expected an http, https, data or file URL");
    }
    // over HTTP (not the daemon, which passes localPages) a page is http(s), as in a playback
    for (const url of ["data:text/html,<p>hi</p>", "about:blank", "file:///etc/hostname"]) {
      const res = await tool("navigate", { url });
      assertEquals(res.status, 400, url);
      const { error } = await res.json();
      assertEquals(error.issues.map((i: { path: string }) => i.path), ["body.url"], url);
      assertStringIncludes(error.message, "expected an http(s) url");
    }
    const res = await tool("navigate", { url: base + "login.html" });
    assertEquals(res.status, 200);
    assert((await res.json()).ok);
    const start = await post("/v1/blaze/sessions", { url: "javascript:alert(1)", prompt: "x" });
    assertEquals(start.status, 400);
    assertEquals((await start.json()).error.issues[0].path, "body.url");
  });
});

Deno.test("POST …/tools/tap on a button that opens an alert answers it, and the result and the recording name it", async () => {
  await withDialogsSession(async (tool, { store, sessionId }) => {
    const snap = await (await tool("snapshot", {})).json();
    const tapped = await tool("tap", { ref: refIn(snap.output, "Save") });
    assertEquals(tapped.status, 200);
    const result = await tapped.json();
    assert(result.ok, JSON.stringify(result));
    const alert = {
      type: "alert",
      message: "Saved",
      response: "accepted",
      tabId: "tab-1",
    } as const;
    assertEquals(result.dialogs, [alert]);
    assertStringIncludes(result.output, 'Dialogs answered since the last action: alert "Saved"');
    const after = await (await tool("snapshot", {})).json();
    assertStringIncludes(after.output, "alert done");
    const completed = [];
    for await (const e of store.readStream(`session-${sessionId}`)) {
      if (e.type === "ActionCompleted") completed.push(e.data.dialogs);
    }
    assertEquals(completed, [[alert]]);
  });
});

Deno.test("POST …/tools/tap on a page that hangs fails with 504 tool_timeout, and closing the session still ends it", async () => {
  await withDialogsSession(async (tool, { store, registry, sessionId }) => {
    const snap = await (await tool("snapshot", {})).json();
    const t0 = performance.now();
    const hung = await tool("tap", { ref: refIn(snap.output, "Hang") });
    assertEquals(hung.status, 504);
    const { error } = await hung.json();
    assertEquals(error.code, "tool_timeout");
    assertStringIncludes(error.message, "Tool tap did not finish within 2000 ms");
    const next = await tool("snapshot", {});
    assertEquals(next.status, 504, "a call queued behind the hung one is bounded too");
    await next.body?.cancel();
    assertLessOrEqual(performance.now() - t0, 10_000);

    const driver = registry.get(sessionId)!.driver;
    assert(driver instanceof ChromeDriver);
    await registry.closeAll();
    assert(!driver.browser.connected, "the browser of the hung page is closed");
    const ended = [];
    for await (const e of store.readStream(`session-${sessionId}`)) {
      if (e.type === "SessionEnded") ended.push(e.data.reason);
    }
    assertEquals(ended, ["interrupted"]);
  });
});

Deno.test("POST /v1/blaze/sessions on a page whose script never returns fails with 504 and closes its browser", async () => {
  const server = serveFolder();
  const store = SqliteEventStore.open(":memory:");
  let driver: ChromeDriver | undefined;
  const registry = blazeRegistry(store, {
    callTimeoutMs: 2_000,
    createDriver: async () => driver = await ChromeDriver.launch(),
  });
  try {
    const t0 = performance.now();
    const res = await withDeadline(
      Promise.resolve(
        createApp({ store }).request("/v1/blaze/sessions", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ url: server.url + "hang.html", prompt: "x" }),
        }),
      ),
      15_000,
      () => new Error("the start did not answer within 15 s"),
    );
    assertEquals(res.status, 504);
    const { error } = await res.json();
    assertEquals(error.code, "tool_timeout");
    assertStringIncludes(error.message, `Opening ${server.url}hang.html did not finish`);
    assertLessOrEqual(performance.now() - t0, 10_000);
    assert(driver && !driver.browser.connected, "the browser of the hung page is closed");
    assertEquals(registry.ids(), []);
    // the start, failed by the closed browser, records its end a moment later
    const lastType = async () => {
      const [stream] = await store.streams("session-");
      return stream && (await Array.fromAsync(store.readStream(stream.streamId))).at(-1);
    };
    for (let i = 0; i < 50 && (await lastType())?.type !== "SessionEnded"; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const ended = await lastType();
    assertEquals([ended?.type, (ended?.data as { reason?: string }).reason], [
      "SessionEnded",
      "failed",
    ]);
  } finally {
    await driver?.close();
    store.close();
    await server.close();
  }
});

Deno.test("POST …/tools refuses a point off any page, a depth below 1 and a huge scroll with 400 naming the field", async () => {
  await withDialogsSession(async (tool) => {
    const cases: [string, Record<string, unknown>, string][] = [
      ["tap", { x: 1e300, y: 0 }, "body.x"],
      ["tap", { x: "12", y: "-40000000" }, "body.y"],
      ["scroll", { direction: "down", distance: 1e300 }, "body.distance"],
      ["scroll", { direction: "down", distance: -5 }, "body.distance"],
      ["snapshot", { depth: 0 }, "body.depth"],
      ["snapshot", { depth: -3 }, "body.depth"],
    ];
    for (const [name, params, field] of cases) {
      const res = await tool(name, params);
      assertEquals(res.status, 400, `${name} ${JSON.stringify(params)}`);
      const { error } = await res.json();
      assertEquals(error.code, "invalid_request");
      assertEquals(error.issues.map((i: { path: string }) => i.path), [field], error.message);
    }
    // the edge of the range is a point: it is tried (and lands on nothing), not refused
    const edge = await tool("tap", { x: 33_554_431, y: 0 });
    const body = await edge.text();
    assert(edge.status !== 400, `${edge.status}: ${body}`);
  });
});

Deno.test("POST …/tools/end on a session whose page hangs frees it by force: 200, browser killed, SessionEnded last", async () => {
  const GRACE_MS = 1_000;
  await withDialogsSession(async (tool, { store, registry, sessionId }) => {
    const snap = await (await tool("snapshot", {})).json();
    const hung = await tool("tap", { ref: refIn(snap.output, "Hang") }); // for (;;) {} in onclick
    assertEquals(hung.status, 504);
    await hung.body?.cancel();
    const driver = registry.get(sessionId)!.driver;
    assert(driver instanceof ChromeDriver);
    const chromium = driver.browser.process()!;
    const profile = driver.userDataDir!;

    const t0 = performance.now();
    const res = await tool("end", { reason: "completed" });
    const took = performance.now() - t0;
    assertEquals(res.status, 200);
    const body = await res.json();
    assertEquals([body.ok, body.forced], [true, true]);
    assertStringIncludes(body.output, "Session ended (completed), by force");
    assert(took >= GRACE_MS, `forced before its grace: ${took} ms`);
    assertLessOrEqual(took, GRACE_MS + 4_000);

    assertEquals(registry.ids(), [], "the session is freed");
    assertEquals((await tool("snapshot", {})).status, 409);
    assertEquals([chromium.signalCode, driver.browser.connected], ["SIGKILL", false]);
    // the killed browser's profile is removed once its process is reaped: on a busy machine that
    // can come a moment after the answer
    const gone = async () => await Deno.stat(profile).then(() => false, () => true);
    for (let i = 0; i < 40 && !(await gone()); i++) await new Promise((r) => setTimeout(r, 50));
    assertEquals(await gone(), true, "profile left");
    // the stuck tap fails once its browser is gone; it records nothing after the end
    await new Promise((r) => setTimeout(r, 500));
    const events = await Array.fromAsync(store.readStream(`session-${sessionId}`));
    const last = events.at(-1)!;
    assertEquals(last.type, "SessionEnded");
    const data = last.data as { reason: string; error?: string };
    assertEquals(data.reason, "completed");
    assertStringIncludes(
      data.error ?? "",
      `ended by force: a call did not finish within ${GRACE_MS} ms`,
    );
    assertEquals(events.filter((e) => e.type === "SessionEnded").length, 1);
  }, { endGraceMs: GRACE_MS });
});

Deno.test("blaze routes take the session- prefixed id as every route does, and an unknown tool parameter is named body.<key>", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_blaze_ids_" });
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const registry = blazeRegistry(store, { settleMs: 50, screenshots: false });
  const app = createApp({ store });
  const post = (path: string, body: unknown) =>
    withDeadline(
      Promise.resolve(app.request(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      })),
      15_000,
      () => new Error(`POST ${path} did not answer within 15 s`),
    );
  try {
    const started = await post("/v1/blaze/sessions", {
      url: server.url + "login.html",
      prompt: "Sign in",
    });
    assertEquals(started.status, 201);
    const { sessionId } = await started.json();
    const prefixed = `/v1/blaze/sessions/session-${sessionId}`;
    const snap = await post(`${prefixed}/tools/snapshot`, {});
    assertEquals(snap.status, 200, JSON.stringify(await snap.clone().json()));
    const email = refIn((await snap.json()).output, "Email");
    // a parameter the tool does not take: named, not "(params)"
    const extra = await post(`${prefixed}/tools/tap`, { ref: email, intent: "x" });
    assertEquals(extra.status, 400);
    const { error } = await extra.json();
    assertEquals(error.issues, [{ path: "body.intent", message: "unknown field" }]);
    assertStringIncludes(error.message, "intent: unknown field");
    const ended = await post(`${prefixed}/tools/end`, { reason: "completed" });
    assertEquals(ended.status, 200);
    assertEquals((await post(`${prefixed}/tools/snapshot`, {})).status, 409);
    const bare = await (await app.request(`/v1/blaze/sessions/${sessionId}/capture`)).json();
    const capture = await app.request(`${prefixed}/capture`);
    assertEquals(capture.status, 200);
    assertEquals(await capture.json(), bare);
    const none = await app.request("/v1/blaze/sessions/session-nope/capture");
    assertEquals([none.status, (await none.json()).error.message], [404, "No session nope"]);
  } finally {
    await registry.closeAll();
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
