import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import { createApp } from "../api/app.ts";
import { blazeRegistry } from "../api/blaze.ts";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import { RecordingV1 } from "../engine/formats/recording_v1.ts";
import { CaptureV1 } from "../engine/formats/capture_v1.ts";
import { serveFolder } from "./web_server.ts";
import { refIn } from "./blaze_refs.ts";

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
      body: "{",
    });
    assertEquals(notJson.status, 400);
    const noSession = await post("/v1/blaze/sessions/nope/tools/snapshot", {});
    assertEquals(noSession.status, 404);

    const ended = await (await tool("end", { reason: "completed" })).json();
    assert(ended.ok);
    assertEquals((await tool("snapshot", {})).status, 404);
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
    const { readSession, sessionToRecording } = await import("../drivers/session_export.ts");
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
