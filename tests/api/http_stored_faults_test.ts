/**
 * The HTTP API over a log that holds what it cannot read, and the SSE stream's hold on the
 * server's shutdown signal: real SQLite files, a real server on 127.0.0.1.
 */
import { DatabaseSync } from "node:sqlite";
import { createApp } from "../../api/app.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { cairn } from "../_fixtures/cli_run.ts";

/** A shutdown signal that counts the abort listeners registered on it and not yet removed. */
function countingSignal(): { ac: AbortController; live: () => number } {
  const ac = new AbortController();
  const signal = ac.signal;
  const live = new Set<unknown>();
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((type: string, fn: EventListener, opts?: AddEventListenerOptions) => {
    if (type === "abort") live.add(fn);
    return add(type, fn, opts);
  }) as typeof signal.addEventListener;
  signal.removeEventListener = ((type: string, fn: EventListener, opts?: EventListenerOptions) => {
    if (type === "abort") live.delete(fn);
    return remove(type, fn, opts);
  }) as typeof signal.removeEventListener;
  return { ac, live: () => live.size };
}

/** Runs `fn` against a real server on 127.0.0.1 over a fresh SQLite file, then stops both. */
async function withServer(
  fn: (base: string, store: SqliteEventStore, path: string) => Promise<void>,
  shutdown = new AbortController(),
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn_http_faults_" });
  const path = `${dir}/cairn.db`;
  const store = SqliteEventStore.open(path);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: shutdown.signal, onListen: () => {} },
    createApp({ store, shutdown: shutdown.signal }).fetch,
  );
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`, store, path);
  } finally {
    shutdown.abort();
    await server.finished;
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const started = (sessionId: string) => ({
  type: "SessionStarted" as const,
  data: { sessionId, mode: "agent" as const, platform: "web" as const },
});
const step = (index: number) => ({
  type: "StepStarted" as const,
  data: { index, text: `step ${index}` },
});

Deno.test("GET /v1/events (SSE) removes its shutdown listener when the stream ends: none left after 20 closed connections", async () => {
  const { ac, live } = countingSignal();
  await withServer(async (base, store) => {
    await store.append("notes-a", [step(0)]);
    // Deno.serve holds one listener of its own on the signal, for as long as it serves
    const before = live();
    let most = before;
    for (let i = 0; i < 20; i++) {
      const client = new AbortController();
      const res = await fetch(`${base}/v1/events?from=1`, { signal: client.signal });
      const reader = res.body!.getReader();
      await reader.read(); // the first event: the stream is live and its listener is on
      most = Math.max(most, live());
      client.abort();
      await reader.read().catch(() => {});
    }
    // the server notices each closed connection within a poll of the store (200 ms)
    for (let waited = 0; live() > before && waited < 5_000; waited += 50) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert(most > before, "a live stream listens for the shutdown");
    assertEquals(live() - before, 0, "abort listeners left on the server's shutdown signal");
  }, ac);
});

/** Overwrites the stored data of the event at `position` with JSON cut short. */
function cutShort(path: string, position: number): void {
  const raw = new DatabaseSync(path);
  raw.prepare("UPDATE events SET data = ? WHERE position = ?").run('{"trunc', position);
  raw.close();
}

Deno.test("a stored event that is not JSON is a 500 naming its position, for every read, and an SSE error event", async () => {
  await withServer(async (base, store, path) => {
    await store.append("session-s", [started("s"), step(0), step(1), step(2)]);
    cutShort(path, 3);
    const mustSay = "Stored event at position 3 (StepStarted in session-s) is not valid JSON";
    const output = console.error;
    const logged: string[] = [];
    console.error = (...args: unknown[]) => void logged.push(args.map(String).join(" "));
    try {
      for (
        const [url, accept] of [
          ["/v1/events?from=1", "application/json"],
          ["/v1/streams/session-s/events", "application/json"],
          ["/v1/sessions/s/state?at=4", "application/json"],
          ["/v1/sessions/s/timeline", "application/json"],
        ]
      ) {
        const res = await fetch(`${base}${url}`, { headers: { accept: accept! } });
        const body = await res.json();
        assertEquals(res.status, 500, `${url}: ${JSON.stringify(body)}`);
        assertEquals(body.error.code, "unreadable_event", url);
        assertStringIncludes(body.error.message, mustSay, url);
      }
      // the stream sends what it can read, then says why it stops, then ends
      const res = await fetch(`${base}/v1/events?from=1`, {
        headers: { accept: "text/event-stream" },
      });
      const text = await readToEnd(res, 10_000);
      const blocks = text.split("\n\n").filter((b) => b.trim() !== "");
      assertEquals(
        blocks.map((b) => /^id: (\d+)$/m.exec(b)?.[1] ?? /^event: (\w+)$/m.exec(b)?.[1]),
        [
          "1",
          "2",
          "error",
        ],
      );
      const error = JSON.parse(/^data: (.*)$/m.exec(blocks[2]!)![1]!);
      assertEquals(error.error.code, "unreadable_event");
      assertStringIncludes(error.error.message, mustSay);
    } finally {
      console.error = output;
    }
    // logged as one line each, not a stack
    assert(logged.length >= 5 && logged.every((l) => !l.includes("\n    at ")), logged.join("\n"));
  });
});

Deno.test("GET /v1/events (SSE) whose first event to send is unreadable answers a JSON 500 naming it, not a stream an EventSource reconnects to forever", async () => {
  await withServer(async (base, store, path) => {
    await store.append("session-s", [started("s"), step(0), step(1), step(2)]);
    cutShort(path, 3);
    const output = console.error;
    console.error = () => {};
    try {
      for (
        const headers of [
          { accept: "text/event-stream" },
          // EventSource's reconnect after the error event: it resumes at the bad event
          { accept: "text/event-stream", "last-event-id": "2" },
        ]
      ) {
        const url = "last-event-id" in headers ? "/v1/events" : "/v1/events?from=3";
        const res = await fetch(`${base}${url}`, { headers });
        assertEquals(res.status, 500, JSON.stringify(headers));
        assertStringIncludes(res.headers.get("content-type") ?? "", "application/json");
        const body = await res.json();
        assertEquals(body.error.code, "unreadable_event");
        assertStringIncludes(body.error.message, "Stored event at position 3");
      }
      // past it, the stream is served as ever
      const res = await fetch(`${base}/v1/events?from=4`, {
        headers: { accept: "text/event-stream" },
      });
      assertEquals(res.status, 200);
      await res.body!.cancel();
    } finally {
      console.error = output;
    }
  });
});

Deno.test("GET /v1/sessions skips a session stream it cannot read and names it under unreadable; the others are listed", async () => {
  await withServer(async (base, store, path) => {
    await store.append("session-a", [started("a"), step(0)]); // positions 1–2
    await store.append("session-cut", [started("cut"), step(0)]); // 3–4: its last event cut short
    await store.append("session-odd", [started("odd")]); // 5: written by a newer Cairn
    // appended before the session rules held: listed, with no SessionStarted to show
    await store.append("session-nostart", [step(0)]); // 6
    await store.append("session-z", [started("z")]); // 7
    cutShort(path, 4);
    const raw = new DatabaseSync(path);
    raw.prepare("UPDATE events SET schema_version = 99 WHERE position = ?").run(5);
    raw.close();
    const output = console.error;
    console.error = () => {};
    let res: Response;
    let one: Response;
    try {
      res = await fetch(`${base}/v1/sessions`);
      // the bad one itself still answers the 500 it did
      one = await fetch(`${base}/v1/sessions/cut/timeline`);
    } finally {
      console.error = output;
    }
    assertEquals([one.status, (await one.json()).error.code], [500, "unreadable_event"]);
    const body = await res.json();
    assertEquals(res.status, 200, JSON.stringify(body));
    assertEquals(
      body.sessions.map((s: { sessionId: string; started: unknown }) => [s.sessionId, !!s.started]),
      [["a", true], ["nostart", false], ["z", true]],
    );
    assertEquals(
      body.unreadable.map((u: { streamId: string; code: string }) => [u.streamId, u.code]),
      [["session-cut", "unreadable_event"], ["session-odd", "unreadable_event"]],
    );
    assertStringIncludes(
      body.unreadable[0].message,
      "Stored event at position 4 (StepStarted in session-cut) is not valid JSON",
    );
    assertStringIncludes(body.unreadable[1].message, "position 5");
    assertStringIncludes(
      body.unreadable[1].message,
      "schema version 99, newer than this Cairn knows",
    );
  });
});

Deno.test("GET /v1/sessions over a readable log has no unreadable key", async () => {
  await withServer(async (base, store) => {
    await store.append("session-a", [started("a"), step(0)]);
    const res = await fetch(`${base}/v1/sessions`);
    const body = await res.json();
    assertEquals(res.status, 200);
    assertEquals(Object.keys(body), ["sessions"]);
    assertEquals(body.sessions[0].sessionId, "a");
  });
});

Deno.test("cairn history names the position of a stored event that is not JSON (exit 2)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_cli_faults_" });
  try {
    const path = `${dir}/c.db`;
    const store = SqliteEventStore.open(path);
    await store.append("session-s", [started("s"), step(0), step(1)]);
    store.close();
    cutShort(path, 2);
    for (const args of [["history", "s"], ["history", "s", "--at", "3"], ["export", "s"]]) {
      const out = await cairn([...args, "--db", path]);
      assertEquals(out.code, 2, out.stderr);
      assertEquals(out.stderr.trim().split("\n").length, 1, out.stderr);
      assertStringIncludes(
        out.stderr,
        "Stored event at position 2 (StepStarted in session-s) is not valid JSON: data: Unterminated string in JSON at character 7",
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The whole body of a streaming response, or what came within `ms` (then it is cancelled). */
async function readToEnd(res: Response, ms: number): Promise<string> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const deadline = setTimeout(() => reader.cancel().catch(() => {}), ms);
  let text = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return text;
      text += value;
    }
  } finally {
    clearTimeout(deadline);
  }
}
