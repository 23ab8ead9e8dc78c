/**
 * `cairn mcp` with the MCP SDK's own client: the server runs as a subprocess over stdio, drives
 * a real Chromium on pages served from 127.0.0.1, and its trail is the CLI's.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { serveFolder } from "../_fixtures/web_server.ts";
import { refIn } from "../_fixtures/blaze_refs.ts";
import { cairn, ROOT } from "../_fixtures/cli_run.ts";

interface ToolAnswer {
  isError?: boolean;
  content: { type: string; text?: string; data?: string; mimeType?: string }[];
  structuredContent?: Record<string, unknown>;
}

/** Starts `cairn mcp --db <db>` and connects the SDK's client to it. */
async function connect(db: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-q", "-A", `${ROOT}main.ts`, "mcp", "--db", db],
    cwd: ROOT,
    env: { ...Deno.env.toObject(), NO_COLOR: "1" },
    stderr: "inherit",
  });
  const client = new Client({ name: "cairn-test", version: "1.0.0" });
  await client.connect(transport);
  // as an agent's client does: it then checks each answer against the tool's output schema
  await client.listTools();
  return client;
}

function callTool(client: Client, name: string, args: Record<string, unknown>) {
  return client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 }) as Promise<
    ToolAnswer
  >;
}

function text(a: ToolAnswer): string {
  return a.content.map((c) => c.text ?? "").join("\n");
}

Deno.test({
  name: "cairn mcp: a client blazes a page end to end, optimizes and replays the trail",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const db = `${dir}/cairn.db`;
    const web = serveFolder();
    const client = await connect(db);
    try {
      const call = (name: string, args: Record<string, unknown>) => callTool(client, name, args);
      const started = await call("blaze_start", {
        url: web.url + "login.html",
        prompt: "Sign in as alice and check the greeting",
      });
      assert(!started.isError, text(started));
      const sessionId = String(started.structuredContent?.sessionId);

      // an unknown session is an MCP tool error carrying the HTTP code
      const missing = await call("blaze_snapshot", { sessionId: "nope" });
      assert(missing.isError);
      assertStringIncludes(text(missing), "not_found");

      const snap = await call("blaze_snapshot", { sessionId });
      assertStringIncludes(text(snap), "Sign in");
      const email = refIn(text(snap), "Email");
      const typed = await call("blaze_type", {
        sessionId,
        ref: email,
        text: "alice@example.com",
        step: "Sign in",
      });
      assert(!typed.isError, text(typed));
      // the action answers with the diff it caused: the field's new value
      assertStringIncludes(String(typed.structuredContent?.diff), "alice@example.com");
      const password = refIn(text(snap), "Password");
      assert(!(await call("blaze_type", { sessionId, ref: password, text: "hunter22" })).isError);
      // the route's cross-field rules answer as tool errors with the HTTP code
      const both = await call("blaze_tap", { sessionId, ref: email, x: 3, y: 4 });
      assert(both.isError);
      assertStringIncludes(text(both), "invalid_request");

      const pressed = await call("blaze_press", { sessionId, key: "Enter" });
      assert(!pressed.isError, text(pressed));
      assert(String(pressed.structuredContent?.url).startsWith(web.url + "welcome.html"));
      const after = String(pressed.structuredContent?.diff);
      assertStringIncludes(after, "alice@example.com");
      // the welcome page's lines are the added ones
      const added = after.split("\n").filter((l) => l.startsWith("+ ")).join("\n");
      const user = refIn(added, "alice@example.com");

      const read = await call("blaze_read", {
        sessionId,
        ref: user,
        storeAs: "user",
        step: "Check the greeting",
      });
      assertEquals(read.structuredContent?.value, "alice@example.com", text(read));
      const checked = await call("blaze_assert", {
        sessionId,
        ref: user,
        text: "alice@example.com",
      });
      assert(!checked.isError, text(checked));
      const memory = await call("blaze_memory_get", { sessionId, name: "user" });
      assertEquals(memory.structuredContent?.value, "alice@example.com");
      const shot = await call("blaze_screenshot", { sessionId, marks: true });
      const image = shot.content.find((c) => c.type === "image");
      assertEquals(image?.mimeType, "image/png");
      // a PNG's signature, base64
      assert(image?.data?.startsWith("iVBORw0KGgo"), "not a PNG");

      const ended = await call("blaze_end", { sessionId, reason: "completed" });
      assert(!ended.isError, text(ended));
      const afterEnd = await call("blaze_snapshot", { sessionId });
      assert(afterEnd.isError);
      assertStringIncludes(text(afterEnd), "session_ended");

      // the trail through MCP is the CLI's
      const optimized = await call("optimize", { sessionId });
      assert(!optimized.isError, text(optimized));
      const yaml = String(optimized.structuredContent?.yaml);
      assertStringIncludes(yaml, "alice@example.com");
      const cli = await cairn(["optimize", "--db", db, sessionId]);
      assertEquals(cli.code, 0, cli.stderr);
      assertEquals(cli.stdout.trim(), yaml.trim());

      const trail = await client.readResource({ uri: `cairn://trails/${sessionId}` });
      assertEquals(String(trail.contents[0]?.text).trim(), yaml.trim());

      // replayed through the same server
      // the password is a secret the trail does not hold: the client supplies it
      const play = await call("playback_start", {
        trail: yaml,
        memory: { password: "hunter22" },
        timeoutMs: 5_000,
      });
      assert(!play.isError, text(play));
      assertEquals(play.structuredContent?.status, "running");
      const playbackId = String(play.structuredContent?.playbackId);
      let report: Record<string, unknown> | undefined;
      for (let i = 0; i < 300; i++) {
        const r = await call("playback_results", { playbackId });
        report = r.structuredContent;
        if (report?.status !== "running") break;
        await new Promise((r) => setTimeout(r, 200));
      }
      assertEquals(report?.status, "completed", JSON.stringify(report));

      // time travel: the session's state at its first position, and its timeline
      const state = await call("history", { sessionId, at: 1 });
      assert(!state.isError, text(state));
      const timeline = await call("history", { sessionId });
      assertStringIncludes(text(timeline), "SessionEnded");

      // validation: one replay (ci), its report when done
      const validation = await call("validate", {
        sessionId,
        policy: "ci",
        memory: { password: "hunter22" },
      });
      assert(!validation.isError, text(validation));
      const validationId = String(validation.structuredContent?.validationId);
      let validated: Record<string, unknown> | undefined;
      for (let i = 0; i < 300; i++) {
        validated = (await call("validation_results", { validationId })).structuredContent;
        if (validated?.status !== "running") break;
        await new Promise((r) => setTimeout(r, 200));
      }
      // the trail replays as blazed: every step stable on the one replay
      assertEquals(validated?.status, "stable", JSON.stringify(validated));
    } finally {
      await client.close();
      await web.close();
    }
  },
});

Deno.test({
  name: "cairn mcp: a playback through start, partial results and the final report",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const web = serveFolder();
    const client = await connect(`${dir}/cairn.db`);
    try {
      const call = (name: string, args: Record<string, unknown>) => callTool(client, name, args);
      const actions = [
        { action: "navigate", url: web.url + "login.html", timestamp_ms: 0 },
        { action: "type", selector: "#email", text: "bob@example.com", timestamp_ms: 600 },
        { action: "type", selector: "#password", text: "pw", timestamp_ms: 1200 },
        { action: "click", selector: "#nowhere-to-be-found", timestamp_ms: 1800 },
      ];
      const play = await call("playback_start", {
        actions,
        timing: "recorded",
        onError: "continue",
        timeoutMs: 1500,
      });
      assert(!play.isError, text(play));
      const playbackId = String(play.structuredContent?.playbackId);
      // one at a time: a second answers the HTTP code
      const second = await call("playback_start", { actions });
      assert(second.isError);
      assertStringIncludes(text(second), "playback_running");

      const partial = await call("playback_results", { playbackId });
      assertEquals(partial.structuredContent?.status, "running");
      let report: Record<string, unknown> | undefined;
      for (let i = 0; i < 300; i++) {
        report = (await call("playback_results", { playbackId })).structuredContent;
        if (report?.status !== "running") break;
        await new Promise((r) => setTimeout(r, 200));
      }
      assertEquals(report?.status, "failed", JSON.stringify(report));
      const results = report?.results as { index: number; status: string }[];
      assertEquals(
        results.map((r) => [r.index, r.status]),
        [[0, "ok"], [1, "ok"], [2, "ok"], [3, "failed"]],
        JSON.stringify(report),
      );

      const unknown = await call("playback_results", { playbackId: "nope" });
      assert(unknown.isError);
      assertStringIncludes(text(unknown), "not_found");
    } finally {
      await client.close();
      await web.close();
    }
  },
});
