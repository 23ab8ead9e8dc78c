/**
 * Secret memory at the start of a blaze (`blaze start --secret-memory k=v`, HTTP `secretMemory`)
 * is stored as `[redacted]` while the agent still reads it with `memory get`, and the live
 * session list (`GET /v1/blaze/sessions`) shows every secret as stored. Real Chromium, the real
 * daemon process and SQLite file, and the HTTP app.
 */
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { dbBytes } from "../../_fixtures/secret_forms.ts";
import { createApp } from "../../../api/app.ts";
import { blazeRegistry } from "../../../api/blaze.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import type { StoredEvent } from "../../../events/schemas.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";
import { alive, blazeCli as cairn } from "../../_fixtures/blaze_cli_run.ts";
import { waitUntil } from "../../_fixtures/wait.ts";

const PIN = "pin-5160-start-secret";
const CODE = "code-8841-set-secret";

interface Listed {
  sessionId: string;
  memory: Record<string, string>;
}

Deno.test("cairn blaze start --secret-memory stores the value as [redacted]; memory get gives it to the agent", async () => {
  const dir = await Deno.makeTempDir();
  const db = `${dir}/cairn.db`;
  const server = serveFolder();
  let pid: number | undefined;
  try {
    const base = ["start", "--url", server.url + "login.html", "--prompt", "Sign in"];
    const malformed = await cairn(db, ...base, "--secret-memory", PIN);
    assertEquals(malformed.code, 2, malformed.stderr);
    assertStringIncludes(malformed.stderr, "--secret-memory needs NAME=VALUE");
    assert(!malformed.stderr.includes(PIN), "the malformed entry is echoed");
    const both = await cairn(db, ...base, "--memory", "pin=1", "--secret-memory", `pin=${PIN}`);
    assertEquals(both.code, 2, both.stderr);
    assertStringIncludes(both.stderr, "pin is in both --memory and --secret-memory");

    const start = await cairn(
      db,
      ...base,
      "--memory",
      "note=two coffees",
      "--secret-memory",
      `pin=${PIN}`,
    );
    assertEquals(start.code, 0, start.stderr);
    const state = JSON.parse(await Deno.readTextFile(`${db}.blaze.json`));
    pid = state.pid;
    const got = await cairn(db, "memory", "get", "pin");
    assertEquals(got.code, 0, got.stderr);
    assertEquals(got.stdout.trim(), PIN);
    // the live list shows what is stored
    const res = await fetch(`http://127.0.0.1:${state.port}/v1/blaze/sessions`, {
      headers: { authorization: `Bearer ${state.token}` },
    });
    const { sessions } = await res.json() as { sessions: Listed[] };
    assertEquals(sessions.map((s) => s.memory), [{ note: "two coffees", pin: "[redacted]" }]);
    const snap = await cairn(db, "snapshot");
    const typed = await cairn(db, "type", `ref=${refIn(snap.stdout, "Password")}`, `text=${PIN}`);
    assertEquals(typed.code, 0, typed.stderr);
    assertStringIncludes(typed.stdout, 'Typed "[redacted]"');
    const end = await cairn(db, "end", "--out", `${dir}/out`);
    assertEquals(end.code, 0, end.stderr);
    // the daemon exits after its answer: its last events are in the log once it has
    await waitUntil("the daemon to exit", () => !alive(pid!));

    const store = SqliteEventStore.open(db);
    try {
      const [stream] = await store.streams("session-");
      const events: StoredEvent[] = [];
      for await (const e of store.readStream(stream!.streamId)) events.push(e);
      const started = events[0]!;
      assert(started.type === "SessionStarted");
      assertEquals(started.data.memory, { note: "two coffees", pin: "[redacted]" });
      for (const e of events) assert(!JSON.stringify(e).includes(PIN), `${e.type} holds the PIN`);
    } finally {
      store.close();
    }
    for await (const f of Deno.readDir(`${dir}/out`)) {
      assert(!(await Deno.readTextFile(`${dir}/out/${f.name}`)).includes(PIN), f.name);
    }
    const bytes = await dbBytes(db);
    assertStringIncludes(bytes, "two coffees"); // the scan does see stored memory
    assert(!bytes.includes(PIN), "the SQLite file holds the secret start memory");
  } finally {
    if (pid !== undefined && alive(pid)) Deno.kill(pid, "SIGTERM");
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("POST /v1/blaze/sessions takes secretMemory; GET /v1/blaze/sessions shows every secret as [redacted]", async () => {
  const dir = await Deno.makeTempDir();
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const registry = blazeRegistry(store, { settleMs: 100, screenshots: false });
  const app = createApp({ store });
  const post = (path: string, body: unknown) =>
    app.request(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  try {
    const url = server.url + "login.html";
    const clash = await post("/v1/blaze/sessions", {
      url,
      prompt: "x",
      memory: { pin: "1" },
      secretMemory: { pin: PIN },
    });
    assertEquals(clash.status, 400);
    const { error } = await clash.json();
    assertEquals(error.issues.map((i: { path: string }) => i.path), ["body.secretMemory"]);
    assert(!JSON.stringify(error).includes(PIN), "the 400 echoes the secret");

    const started = await post("/v1/blaze/sessions", {
      url,
      prompt: "Sign in",
      memory: { note: "two coffees" },
      secretMemory: { pin: PIN },
    });
    assertEquals(started.status, 201);
    const { sessionId } = await started.json();
    const tool = async (name: string, params: unknown) =>
      await (await post(`/v1/blaze/sessions/${sessionId}/tools/${name}`, params)).json();
    const set = await tool("memory", { op: "set", name: "code", value: CODE, secret: true });
    assert(set.ok, JSON.stringify(set));
    assertEquals((await tool("memory", { op: "get", name: "pin" })).value, PIN);
    assertEquals((await tool("memory", { op: "get", name: "code" })).value, CODE);

    const list = await (await app.request("/v1/blaze/sessions")).json() as { sessions: Listed[] };
    assertEquals(list.sessions.map((s) => s.memory), [{
      note: "two coffees",
      pin: "[redacted]",
      code: "[redacted]",
    }]);
    await tool("end", {});
    for await (const e of store.readStream(`session-${sessionId}`)) {
      const json = JSON.stringify(e);
      assert(!json.includes(PIN) && !json.includes(CODE), `${e.type} holds a secret`);
    }
  } finally {
    await registry.closeAll();
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
