/**
 * The agent's `reason` for an action: taken by the HTTP tool body, the CLI's `--reason` flag and
 * the MCP tools, stored with the decision (`ActionPerformed.toolParams.reason`) and shown in the
 * viewer's Decision tab (real Chromium, real API, real SQLite file).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { createApp } from "../../../api/app.ts";
import { blazeRegistry } from "../../../api/blaze.ts";
import { launchChrome } from "../../../drivers/chrome/launch.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";
import { alive, blazeCli } from "../../_fixtures/blaze_cli_run.ts";
import { ROOT } from "../../_fixtures/cli_run.ts";
import { waitUntil } from "../../_fixtures/wait.ts";

type Performed = { type: string; data: { toolName?: string; toolParams?: { reason?: string } } };

async function reasons(db: string): Promise<[string | undefined, string | undefined][]> {
  const store = SqliteEventStore.open(db);
  try {
    const all = await Array.fromAsync(store.readAll()) as unknown as Performed[];
    return all.filter((e) => e.type === "ActionPerformed")
      .map((e) => [e.data.toolName, e.data.toolParams?.reason]);
  } finally {
    store.close();
  }
}

Deno.test("a blaze tool's reason over HTTP is stored with the decision and shown in the viewer's Decision tab", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_reason_http_" });
  const web = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  blazeRegistry(store, { settleMs: 100 });
  const app = createApp({ store });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const base = `http://127.0.0.1:${server.addr.port}`;
  const post = async (path: string, body: unknown) =>
    await fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const chrome = await launchChrome();
  try {
    const started = await (await post("/v1/blaze/sessions", {
      url: web.url + "cart.html",
      prompt: "Add a coffee",
    })).json();
    const tool = (name: string, params: unknown) =>
      post(`/v1/blaze/sessions/${started.sessionId}/tools/${name}`, params);
    const snap = await (await tool("snapshot", {})).json();
    const plus = refIn(snap.output, "Add one Coffee");
    const why = "the cart needs one coffee; this is its + button";
    const tapped = await (await tool("tap", { ref: plus, reason: why })).json();
    assert(tapped.ok, JSON.stringify(tapped));
    const blank = await tool("tap", { ref: plus, reason: "  " });
    assertEquals(blank.status, 400);
    assertStringIncludes((await blank.json()).error.message, "reason");
    assert((await (await tool("tap", { ref: plus })).json()).ok); // no reason: none stored
    const stored = (await Array.fromAsync(store.readStream(`session-${started.sessionId}`)))
      .filter((e) => e.type === "ActionPerformed") as unknown as Performed[];
    assertEquals(stored.map((e) => e.data.toolParams?.reason), [why, undefined]);

    const page = await chrome.browser.newPage();
    await page.goto(`${base}/view/${started.sessionId}`);
    await page.waitForSelector("body[data-ready]");
    await page.click('#tabs button[data-tab="call"]');
    assertEquals(
      await page.$eval('#tabs button[data-tab="call"]', (b) => b.textContent),
      "Decision",
    );
    const first = await page.$eval("#reason", (e) => ({
      text: e.textContent,
      shown: !(e as HTMLElement).hidden && (e as HTMLElement).offsetHeight > 0,
    }));
    assertEquals(first, { text: `Reason: ${why}`, shown: true });
    await page.keyboard.press("ArrowRight");
    await page.waitForFunction(() =>
      document.querySelector("#timeline li.sel")?.getAttribute("data-index") === "1"
    );
    assertEquals(await page.$eval("#reason", (e) => (e as HTMLElement).hidden), true);
    await page.close();
  } finally {
    await chrome.close();
    await blazeRegistry(store).closeAll();
    await server.shutdown();
    await web.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn blaze --reason: any action stores it; end --reason still takes only completed, failed or clarification", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_reason_cli_" });
  const db = `${dir}/cairn.db`;
  const web = serveFolder();
  let pid: number | undefined;
  try {
    const start = await blazeCli(db, "start", "--url", web.url + "cart.html", "--prompt", "x");
    assertEquals(start.code, 0, start.stderr);
    pid = JSON.parse(await Deno.readTextFile(`${db}.blaze.json`)).pid;
    const plus = refIn((await blazeCli(db, "snapshot")).stdout, "Add one Coffee");
    const tap = await blazeCli(db, "tap", `ref=${plus}`, "--reason", "one coffee, as asked");
    assertEquals(tap.code, 0, tap.stderr);
    const set = await blazeCli(db, "memory", "set", "n=1", "--reason", "remember the count");
    assertEquals(set.code, 0, set.stderr);
    const snapWithReason = await blazeCli(db, "snapshot", "--reason", "x");
    assertEquals(snapWithReason.code, 2);
    const bad = await blazeCli(db, "end", "--reason", "bored");
    assertEquals(bad.code, 2);
    assertEquals(bad.stderr.trim().split("\n").length, 1, bad.stderr);
    assertStringIncludes(bad.stderr, "--reason must be one of completed, failed, clarification");
    const end = await blazeCli(db, "end", "--reason", "completed", "--out", `${dir}/out`);
    assertEquals(end.code, 0, end.stderr);
    // the daemon exits after its answer: its last events are in the log once it has
    await waitUntil("the daemon to exit", () => !alive(pid!));
    assertEquals(await reasons(db), [
      ["tap", "one coffee, as asked"],
      ["memory", "remember the count"],
    ]);
  } finally {
    if (pid !== undefined && alive(pid)) Deno.kill(pid, "SIGTERM");
    await web.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "cairn mcp: the blaze action tools take reason (described for the agent); blaze_end's is the end reason",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "cairn_reason_mcp_" });
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "-q", "-A", `${ROOT}main.ts`, "mcp", "--db", `${dir}/cairn.db`],
      cwd: ROOT,
      env: { ...Deno.env.toObject(), NO_COLOR: "1" },
      stderr: "inherit",
    });
    const client = new Client({ name: "cairn-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const reasonOf = (name: string) =>
        (tools.find((t: { name: string }) => t.name === name)?.inputSchema.properties as
          | Record<string, { description?: string; enum?: string[] }>
          | undefined)?.reason;
      for (const name of ["blaze_tap", "blaze_type", "blaze_navigate", "blaze_memory_set"]) {
        const r = reasonOf(name);
        assert(r, `${name} has no reason`);
        assertStringIncludes(r.description ?? "", "Why you take this action");
      }
      assertEquals(reasonOf("blaze_end")?.enum, ["completed", "failed", "clarification"]);
    } finally {
      await client.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
