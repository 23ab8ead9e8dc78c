import { createApp } from "../../api/app.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { assertEquals } from "../_fixtures/assert.ts";

interface SseMessage {
  id: string;
  data: string;
  event?: string;
}

/**
 * Parses SSE messages from a streaming response until `want` messages arrived, or 10 s passed
 * (then the stream is cancelled and the caller's assertions see what came: a stalled stream
 * fails the test rather than hanging it).
 */
async function readSse(
  res: Response,
  want: number,
  onMessage: (m: SseMessage) => Promise<void>,
): Promise<SseMessage[]> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const out: SseMessage[] = [];
  let buf = "";
  const deadline = setTimeout(() => reader.cancel().catch(() => {}), 10_000);
  try {
    while (out.length < want) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += value;
      let cut;
      while ((cut = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        const m: SseMessage = { id: "", data: "" };
        for (const line of block.split("\n")) {
          if (line.startsWith("id:")) m.id = line.slice(3).trim();
          else if (line.startsWith("data:")) m.data += line.slice(5).trim();
          else if (line.startsWith("event:")) m.event = line.slice(6).trim();
        }
        if (m.data) {
          out.push(m);
          await onMessage(m);
        }
      }
    }
  } finally {
    clearTimeout(deadline);
    await reader.cancel();
  }
  return out;
}

/** Runs `fn` against a real server on 127.0.0.1 over a fresh SQLite file, then stops both. */
async function withServer(
  fn: (port: number, store: SqliteEventStore) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn_http_srv_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const shutdown = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: shutdown.signal, onListen: () => {} },
    createApp({ store, shutdown: shutdown.signal }).fetch,
  );
  try {
    await fn(server.addr.port, store);
  } finally {
    shutdown.abort();
    await server.finished;
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("GET /v1/events over a real server replays from `from` and follows another client's appends", async () => {
  await withServer(async (port) => {
    const base = `http://127.0.0.1:${port}`;
    const append = (stream: string, index: number) =>
      fetch(`${base}/v1/streams/${stream}/events`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          events: [{ type: "StepStarted", data: { index, text: `s${index}` } }],
        }),
      }).then(async (r) => {
        assertEquals(r.status, 201, await r.clone().text());
        await r.body?.cancel();
      });
    await append("notes-a", 0);
    await append("notes-a", 1);
    await append("notes-a", 2);
    const res = await fetch(`${base}/v1/events?from=2`, {
      headers: { Accept: "text/event-stream" },
    });
    assertEquals(res.status, 200);
    assertEquals(res.headers.get("content-type"), "text/event-stream");
    let next = 3;
    const got = await readSse(res, 6, async (m) => {
      // once the replay reached the head, another client appends; each append must arrive
      if (Number(m.id) >= 3 && next < 7) await append("notes-b", next++);
    });
    assertEquals(got.map((m) => Number(m.id)), [2, 3, 4, 5, 6, 7]);
    const events = got.map((m) => JSON.parse(m.data));
    assertEquals(events.map((e) => e.streamId), [
      "notes-a",
      "notes-a",
      "notes-b",
      "notes-b",
      "notes-b",
      "notes-b",
    ]);
    assertEquals(events[5].data, { index: 6, text: "s6" });
  });
});

Deno.test("GET /v1/events resumes after Last-Event-ID on a real server", async () => {
  await withServer(async (port, store) => {
    await store.append(
      "notes-a",
      [0, 1, 2, 3].map((index) => ({ type: "StepStarted" as const, data: { index, text: "t" } })),
    );
    const res = await fetch(`http://127.0.0.1:${port}/v1/events?from=1`, {
      headers: { Accept: "text/event-stream", "Last-Event-ID": "2" },
    });
    const got = await readSse(res, 2, () => Promise.resolve());
    assertEquals(got.map((m) => m.id), ["3", "4"]);
  });
});

/** Sends one raw HTTP/1.1 request (the path exactly as given) and returns the status line. */
async function rawStatus(port: number, head: string, body = ""): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const bytes = new TextEncoder().encode(body);
    await conn.write(
      new TextEncoder().encode(
        `${head}\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n${body}`,
      ),
    );
    const reply = await new Response(conn.readable).text();
    return reply.split("\r\n")[0]!;
  } catch (err) {
    conn.close();
    throw err;
  }
}

Deno.test("a real server refuses the stream ids . and .., which URL parsers fold away, and foreign Hosts", async () => {
  await withServer(async (port, store) => {
    const body = JSON.stringify({
      events: [{ type: "StepStarted", data: { index: 0, text: "t" } }],
    });
    for (const id of ["%2e%2e", "%2E", ".."]) {
      const status = await rawStatus(
        port,
        `POST /v1/streams/${id}/events HTTP/1.1\r\nHost: 127.0.0.1`,
        body,
      );
      assertEquals(status, "HTTP/1.1 400 Bad Request", id);
    }
    const rebound = await rawStatus(
      port,
      `GET /v1/sessions HTTP/1.1\r\nHost: evil.example:${port}`,
    );
    assertEquals(rebound, "HTTP/1.1 403 Forbidden");
    const ok = await rawStatus(
      port,
      `POST /v1/streams/notes-a/events HTTP/1.1\r\nHost: localhost:${port}`,
      body,
    );
    assertEquals(ok, "HTTP/1.1 201 Created");
    assertEquals(await store.headPosition(), 1);
  });
});

Deno.test("GET /v1/events names each message by its event type and follows only ?stream=", async () => {
  await withServer(async (port, store) => {
    const step = (index: number) => ({ type: "StepStarted" as const, data: { index, text: "t" } });
    await store.append("notes-a", [step(0)]);
    await store.append("notes-b", [step(1)]);
    await store.append("other-c", [{ type: "StepEnded" as const, data: { index: 2 } }]);
    await store.append("notes-a", [step(3)]);
    const base = `http://127.0.0.1:${port}/v1/events`;
    const res = await fetch(`${base}?stream=notes-a,other-*`, {
      headers: { Accept: "text/event-stream" },
    });
    const got = await readSse(res, 3, async () => {});
    assertEquals(got.map((m) => [Number(m.id), m.event]), [
      [1, "StepStarted"],
      [3, "StepEnded"],
      [4, "StepStarted"],
    ]);
    const page = await (await fetch(`${base}?stream=notes-b&limit=1`, {
      headers: { Accept: "application/json" },
    })).json();
    assertEquals(page.events.map((e: { position: number }) => e.position), [2]);
    assertEquals(page.next, null);
    const bad = await fetch(`${base}?stream=a%20b`, { headers: { Accept: "application/json" } });
    assertEquals(bad.status, 400);
    assertEquals((await bad.json()).error.issues[0].path, "query.stream");
  });
});
