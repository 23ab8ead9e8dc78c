/**
 * `--browser-ws URL` of `cairn replay` and `cairn validate`: a value that is no ws(s):// url is
 * bad input (exit 2) before anything runs; a browser that cannot be reached is named with why
 * (the websocket's own message), never `[object Object]`.
 */
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { cairn } from "../_fixtures/cli_run.ts";

Deno.test("--browser-ws: not a ws(s):// url exits 2 naming the flag; an unreachable browser says why", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-browser-ws-" });
  // a port nothing listens on, and a server that answers 404 to the websocket's upgrade
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (closed.addr as Deno.NetAddr).port;
  closed.close();
  const notFound = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("no", { status: 404 }),
  );
  try {
    const file = `${dir}/go.json`;
    await Deno.writeTextFile(
      file,
      JSON.stringify([{ action: "navigate", url: "http://127.0.0.1:1/" }]),
    );
    const db = `${dir}/c.db`;
    for (const bad of ["notaurl", "http://127.0.0.1:9222/devtools/browser/x"]) {
      for (const args of [["replay", file], ["validate", "0123abcd"]]) {
        const out = await cairn([...args, "--db", db, "--browser-ws", bad]);
        assertEquals(out.code, 2, `${args[0]} ${bad}: ${out.stderr}`);
        assertStringIncludes(
          out.stderr,
          `--browser-ws: expected the browser's DevTools websocket url (ws:// or wss://), got ${
            JSON.stringify(bad)
          }`,
        );
      }
    }

    const refused = await cairn([
      "replay",
      file,
      "--db",
      db,
      "--browser-ws",
      `ws://127.0.0.1:${port}/x`,
    ]);
    assertEquals(refused.code, 1, refused.stderr);
    assertStringIncludes(
      refused.stderr,
      `Cannot connect to the browser at ws://127.0.0.1:${port}/x: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
    const ws404 = `ws://127.0.0.1:${notFound.addr.port}/x`;
    const answered = await cairn(["replay", file, "--db", db, "--browser-ws", ws404]);
    assertEquals(answered.code, 1, answered.stderr);
    assertStringIncludes(
      answered.stderr,
      `Cannot connect to the browser at ${ws404}: Unexpected server response: 404`,
    );
    for (const out of [refused, answered]) assert(!out.stderr.includes("[object Object]"));
  } finally {
    await notFound.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
