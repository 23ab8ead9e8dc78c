/**
 * What a careless or hostile HTTP client sends to a real `cairn serve` (a real SQLite file):
 * forbidden and unknown methods answer 405 with `Allow`, never 500; a body nested deeper than
 * the limit files are read with is a 400 naming where, appends nothing, and what the log takes
 * exports to files `cairn ingest` reads back.
 */
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { cairn, startServe } from "../_fixtures/cli_run.ts";
import { MAX_NESTING } from "../../engine/input/nesting.ts";

/** Sends a raw HTTP/1.1 request (fetch refuses TRACE and TRACK) and returns status, headers, body. */
async function raw(base: string, method: string, path: string) {
  const { hostname, port } = new URL(base);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  try {
    await conn.write(
      new TextEncoder().encode(
        `${method} ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`,
      ),
    );
    const text = await new Response(conn.readable).text();
    const [head, ...rest] = text.split("\r\n\r\n");
    const lines = head!.split("\r\n");
    const status = Number(lines[0]!.split(" ")[1]);
    const headers = new Map(
      lines.slice(1).map((l) => {
        const at = l.indexOf(":");
        return [l.slice(0, at).trim().toLowerCase(), l.slice(at + 1).trim()] as [string, string];
      }),
    );
    return { status, headers, body: rest.join("\r\n\r\n") };
  } catch (err) {
    try {
      conn.close();
    } catch { /* closed by the response */ }
    throw err;
  }
}

async function withServe(
  fn: (base: string, db: string, dir: string) => Promise<void>,
  env: Record<string, string> = {},
) {
  const dir = await Deno.makeTempDir({ prefix: "cairn-sec-http-" });
  const db = `${dir}/cairn.db`;
  const serve = await startServe(["--db", db], env, dir);
  try {
    await fn(serve.url, db, dir);
  } finally {
    serve.child.kill("SIGTERM");
    await serve.child.status;
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("TRACE, TRACK and unknown methods answer 405 with Allow, on known and unknown paths", async () => {
  await withServe(async (base) => {
    for (const method of ["TRACE", "TRACK", "FOO", "CONNECTX"]) {
      for (const path of ["/v1/streams/session-x/events", "/v1/playbacks", "/nosuch"]) {
        const res = await raw(base, method, path);
        assertEquals(res.status, 405, `${method} ${path}: ${res.body}`);
        const allow = res.headers.get("allow") ?? "";
        assert(allow.includes("GET"), `${method} ${path}: Allow ${allow}`);
        assert(!/at \S+:\d+:\d+/.test(res.body), `no stack trace: ${res.body}`);
      }
    }
    const events = await raw(base, "TRACE", "/v1/streams/session-x/events");
    assertEquals(events.headers.get("allow"), "GET, HEAD, POST");
    assertStringIncludes(events.body, "method_not_allowed");
  });
  // with a token, a client without it learns nothing of the routes: 401 first, never 500
  await withServe(async (base) => {
    const res = await raw(base, "TRACE", "/v1/playbacks");
    assertEquals(res.status, 401, res.body);
    assertEquals(res.headers.get("allow"), undefined);
  }, { CAIRN_TOKEN: "fuzz-token-0123456789abcdef" });
});

function nested(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

Deno.test("one nesting limit: a deeper body is 400 naming where, appends nothing; the deepest accepted one exports and ingests back", async () => {
  await withServe(async (base, db, dir) => {
    // body → events → event → data → toolParams → p: 5 levels above p's own nesting
    const body = (id: string, levels: number) => ({
      events: [
        { type: "SessionStarted", data: { sessionId: id, mode: "agent", platform: "web" } },
        {
          type: "ActionPerformed",
          data: {
            actionId: "a1",
            kind: "tap",
            point: { x: 1, y: 2 },
            source: "agent",
            toolParams: { p: nested(levels) },
          },
        },
      ],
    });
    const post = (id: string, levels: number) =>
      fetch(`${base}/v1/streams/session-${id}/events`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body(id, levels)),
      });
    for (const levels of [MAX_NESTING - 4, 1_500, 5_000, 200_000]) {
      const res = await post(`deep${levels}`, levels);
      const text = await res.text();
      assertEquals(res.status, 400, `${levels}: ${text.slice(0, 200)}`);
      const err = JSON.parse(text).error;
      assertEquals(err.issues[0].path.slice(0, 30), "body.events.1.data.toolParams.");
      assertStringIncludes(err.message, `nested deeper than ${MAX_NESTING} levels`);
      const stored = await fetch(`${base}/v1/streams/session-deep${levels}/events`);
      assertEquals(stored.status, 404, "nothing appended");
      await stored.body?.cancel();
    }
    const ok = await post("edge", MAX_NESTING - 5);
    assertEquals(ok.status, 201, await ok.text());
    for (const format of ["events", "capture"]) {
      const out = `${dir}/edge.${format}.json`;
      const exported = await cairn([
        "export",
        "edge",
        "--format",
        format,
        "--out",
        out,
        "--db",
        db,
      ]);
      assertEquals(exported.code, 0, exported.stderr);
      const back = await cairn(["ingest", out, "--db", `${dir}/back-${format}.db`]);
      assertEquals(back.code, 0, `${format}: ${back.stderr}`);
    }
  });
});

Deno.test("POST /v1/blaze/sessions with a url the browser cannot open answers 422 navigation_failed naming the url and the browser's reason; the session is recorded failed", async () => {
  // a port nothing listens on (taken and let go)
  const free = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (free.addr as Deno.NetAddr).port;
  free.close();
  await withServe(async (base) => {
    const cases: [string, string][] = [
      [`http://127.0.0.1:${port}/`, "ERR_CONNECTION_REFUSED"],
      ["http://nosuch.invalid/", "ERR_NAME_NOT_RESOLVED"],
    ];
    for (const [url, reason] of cases) {
      const res = await fetch(`${base}/v1/blaze/sessions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url, prompt: "x" }),
      });
      const text = await res.text();
      assertEquals(res.status, 422, text);
      const { error } = JSON.parse(text);
      assertEquals(error.code, "navigation_failed");
      assertStringIncludes(error.message, url);
      assertStringIncludes(error.message, reason);
    }
    const live = await (await fetch(`${base}/v1/blaze/sessions`)).json();
    assertEquals(live.sessions, [], "no session is left live");
    // each start is in the log, ended failed with the browser's reason
    const { sessions } = await (await fetch(`${base}/v1/sessions`)).json();
    assertEquals(sessions.length, cases.length, JSON.stringify(sessions));
    for (const s of sessions) {
      const events = await (await fetch(`${base}/v1/streams/session-${s.sessionId ?? s.id}/events`))
        .json();
      const ended = (events.events as { type: string; data: Record<string, unknown> }[])
        .find((e) => e.type === "SessionEnded");
      assertEquals(ended?.data.reason, "failed", JSON.stringify(events));
      assertStringIncludes(String(ended?.data.error), "Cannot navigate");
    }
  });
});
