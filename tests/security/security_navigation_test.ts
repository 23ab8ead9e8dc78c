/**
 * A run opens http(s) pages and about:blank only, checked when it navigates, after templates
 * are expanded: a trail's `navigate: "{{target}}"` filled with a `file:` url by memory fails
 * with `unsafe_url` over HTTP (a real `cairn serve`, real Chromium, a real SQLite file) and in
 * `cairn replay`; a redirect to `file:` is refused; `--allow-file-urls` lets the CLI open a
 * local file, `cairn validate --url file:…` included.
 */
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { cairn, startServe } from "../_fixtures/cli_run.ts";
import { ChromeDriver } from "../../drivers/chrome/chrome_driver.ts";
import { DriverError } from "../../drivers/driver.ts";
import { unsafeNavigation } from "../../drivers/navigation_guard.ts";
import { blazeCli } from "../_fixtures/blaze_cli_run.ts";
import { refIn } from "../_fixtures/blaze_refs.ts";
import { BlazeSession } from "../../runners/blaze/session.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";

const MARKER = "the-servers-own-file-3f9c";

const TRAIL = "config:\n  platform: web\n" +
  "trail:\n  - step: read the page\n    recording:\n" +
  '      - navigate: "{{target}}"\n' +
  "      - readText: { selector: { cssPath: body }, storeAs: leaked }\n";

async function withFiles(
  fn: (dir: string, secret: string, pages: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-nav-" });
  const secret = `${dir}/secret.txt`;
  await Deno.writeTextFile(secret, MARKER);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/redirect") {
      return new Response(null, { status: 302, headers: { location: `file://${secret}` } });
    }
    return new Response("<p>a web page</p>", { headers: { "content-type": "text/html" } });
  });
  try {
    await fn(dir, secret, `http://127.0.0.1:${server.addr.port}`);
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("the navigation rule: http(s) and about:blank; file: and data: only for local files; the scheme is named", () => {
  for (const ok of ["http://127.0.0.1/", "https://example.com/a?b", "about:blank"]) {
    assertEquals(unsafeNavigation(ok), undefined, ok);
  }
  for (
    const bad of ["file:///etc/passwd", "FILE:///etc/passwd", "javascript:alert(1)", "data:,x"]
  ) {
    const why = unsafeNavigation(bad);
    assert(why?.startsWith("unsafe_url"), bad);
    assertStringIncludes(why!, bad.split(":")[0]!.toLowerCase() + ":");
  }
  assertStringIncludes(unsafeNavigation("{{target}}")!, "not a url");
  assertEquals(unsafeNavigation("file:///tmp/a.html", { localFiles: true }), undefined);
  assert(unsafeNavigation("chrome://settings", { localFiles: true }));
});

Deno.test("POST /v1/playbacks: a templated navigate filled with a file: url fails unsafe_url and nothing of the file is stored", async () => {
  await withFiles(async (dir, secret, pages) => {
    const db = `${dir}/cairn.db`;
    const serve = await startServe(["--db", db], {}, dir);
    try {
      const post = (body: unknown) =>
        fetch(`${serve.url}/v1/playbacks`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      const play = async (body: unknown) => {
        const res = await post(body);
        const text = await res.text();
        assertEquals(res.status, 202, text);
        const id = JSON.parse(text).playbackId;
        for (let i = 0; i < 400; i++) {
          const r = await (await fetch(`${serve.url}/v1/playbacks/${id}`)).json();
          if (r.status !== "running") return r;
          await new Promise((ok) => setTimeout(ok, 50));
        }
        throw new Error("the playback did not finish");
      };
      const report = await play({ trail: TRAIL, memory: { target: `file://${secret}` } });
      const first = report.results[0];
      assertEquals(first.status, "failed", JSON.stringify(first));
      assertEquals(first.errorCode, "unsafe_url");
      assertStringIncludes(first.error, "file:");
      assert(!JSON.stringify(report).includes(MARKER), "the report holds none of the file");

      // the page answers a redirect to file: — refused too, nothing read
      const redirected = await play({ trail: TRAIL, memory: { target: `${pages}/redirect` } });
      assertEquals(redirected.results[0].status, "failed", JSON.stringify(redirected.results[0]));
      assert(!JSON.stringify(redirected).includes(MARKER), "the redirect read nothing");

      // control: the same trail on a web page plays and reads it
      const web = await play({ trail: TRAIL, memory: { target: `${pages}/page` } });
      assertEquals(web.results.map((r: { status: string }) => r.status), ["ok", "ok"]);
    } finally {
      serve.child.kill("SIGTERM");
      await serve.child.status;
    }
    // nothing of the file in the log either (the SQLite file itself)
    const bytes = await Deno.readFile(db);
    assert(
      !new TextDecoder().decode(bytes).includes(MARKER),
      "the event log holds none of the file",
    );
  });
});

Deno.test("cairn replay: a file: target is refused with unsafe_url unless --allow-file-urls", async () => {
  await withFiles(async (dir, secret) => {
    const trail = `${dir}/read.trail.yaml`;
    await Deno.writeTextFile(trail, TRAIL);
    const db = ["--db", `${dir}/cairn.db`];
    const refused = await cairn([
      "replay",
      trail,
      "--memory",
      `target=file://${secret}`,
      "--json",
      ...db,
    ]);
    assertEquals(refused.code, 1, refused.stderr);
    const report = JSON.parse(refused.stdout);
    assertEquals(report.results[0].error_code, "unsafe_url");
    assert(!refused.stdout.includes(MARKER) && !refused.stderr.includes(MARKER));

    const allowed = await cairn([
      "replay",
      trail,
      "--memory",
      `target=file://${secret}`,
      "--allow-file-urls",
      "--json",
      ...db,
    ]);
    assertEquals(allowed.code, 0, allowed.stdout + allowed.stderr);
    assertStringIncludes(allowed.stdout, MARKER);
  });
});

Deno.test("ChromeDriver.navigate refuses file: unless launched for local files", async () => {
  await withFiles(async (_dir, secret) => {
    const web = await ChromeDriver.launch();
    try {
      let err: unknown;
      await web.navigate(`file://${secret}`).catch((e) => err = e);
      assert(err instanceof DriverError && err.code === "unsafe_url", String(err));
      assert(!(await web.url()).startsWith("file:"));
    } finally {
      await web.close();
    }
    const local = await ChromeDriver.launch({ localFiles: true });
    try {
      const nav = await local.navigate(`file://${secret}`);
      assertEquals(nav.finalUrl, `file://${secret}`);
    } finally {
      await local.close();
    }
  });
});

Deno.test("cairn blaze: a file: start is refused with unsafe_url (scheme named) unless --allow-file-urls, by the CLI and by its daemon; the flag is the session's own", async () => {
  await withFiles(async (dir, secret, pages) => {
    const db = `${dir}/cairn.db`;
    const file = `file://${secret}`;
    // without the flag: refused before any daemon starts, exit 2 naming the scheme and the flag
    const refused = await blazeCli(db, "start", "--url", file, "--prompt", "x");
    assertEquals(refused.code, 2, refused.stderr);
    assertStringIncludes(refused.stderr, "unsafe_url");
    assertStringIncludes(refused.stderr, "file:");
    assertStringIncludes(refused.stderr, "--allow-file-urls");
    assert(!(await Deno.stat(`${db}.blaze.json`).then(() => true, () => false)), "no daemon");
    // the flag is for start only
    const misplaced = await blazeCli(db, "snapshot", "--allow-file-urls");
    assertEquals(misplaced.code, 2, misplaced.stderr);

    // a web session, without the flag
    const web = await blazeCli(db, "start", "--url", `${pages}/page`, "--prompt", "web");
    assertEquals(web.code, 0, web.stderr);
    const webId = /^Session (\S+) started/.exec(web.stdout)![1]!;
    let pid: number | undefined;
    try {
      const state = JSON.parse(await Deno.readTextFile(`${db}.blaze.json`));
      pid = state.pid;
      // the daemon itself holds the rule: a start sent straight to its API without the CLI's
      // header is refused by the browser's check, 422 unsafe_url, the scheme named
      const direct = await fetch(`http://127.0.0.1:${state.port}/v1/blaze/sessions`, {
        method: "POST",
        headers: { authorization: `Bearer ${state.token}`, "content-type": "application/json" },
        body: JSON.stringify({ url: file, prompt: "direct" }),
      });
      const directText = await direct.text();
      assertEquals(direct.status, 422, directText);
      assertEquals(JSON.parse(directText).error.code, "unsafe_url");
      assertStringIncludes(directText, "file:");
      assert(!directText.includes(MARKER));

      // navigating the web session to the file, or through a redirect to it: refused
      for (const url of [file, `${pages}/redirect`]) {
        const nav = await blazeCli(db, "navigate", `url=${url}`, "--session", webId);
        assertEquals(nav.code, 1, nav.stdout + nav.stderr);
        assert(!(nav.stdout + nav.stderr).includes(MARKER));
      }
      const shown = await blazeCli(db, "snapshot", "--session", webId);
      assertEquals(shown.code, 0, shown.stderr);
      assert(!shown.stdout.includes(MARKER), shown.stdout);

      // with the flag, on the same daemon: this session's browser opens the local file
      const local = await blazeCli(
        db,
        "start",
        "--url",
        file,
        "--prompt",
        "local",
        "--allow-file-urls",
      );
      assertEquals(local.code, 0, local.stderr);
      const localId = /^Session (\S+) started/.exec(local.stdout)![1]!;
      const read = await blazeCli(db, "snapshot", "--session", localId);
      assertStringIncludes(read.stdout, MARKER);
      // the other session keeps its own rule
      const still = await blazeCli(db, "navigate", `url=${file}`, "--session", webId);
      assertEquals(still.code, 1, still.stdout + still.stderr);
      assertStringIncludes(still.stdout + still.stderr, "unsafe_url");
      assertEquals((await blazeCli(db, "end", "--session", localId)).code, 0);
      assertEquals((await blazeCli(db, "end", "--session", webId)).code, 0);
    } finally {
      if (pid !== undefined) {
        try {
          Deno.kill(pid, "SIGTERM");
        } catch { /* already stopped */ }
      }
    }
  });
});

Deno.test("cairn validate: a trail's templated navigate filled with a file: url is refused with unsafe_url, nothing of the file read or stored", async () => {
  await withFiles(async (dir, secret) => {
    const trail = `${dir}/read.trail.yaml`;
    await Deno.writeTextFile(trail, TRAIL);
    const db = `${dir}/cairn.db`;
    const capture = new URL("../../examples/web_checkout.capture.json", import.meta.url).pathname;
    const out = await cairn([
      "validate",
      capture,
      "--trail",
      trail,
      "--memory",
      `target=file://${secret}`,
      "--max-iterations",
      "1",
      "--json",
      "--db",
      db,
    ]);
    assertEquals(out.code, 1, out.stderr);
    assertStringIncludes(out.stderr, "unsafe_url");
    assertStringIncludes(out.stderr, "file:");
    assert(!out.stdout.includes(MARKER) && !out.stderr.includes(MARKER));
    const bytes = await Deno.readFile(db);
    assert(!new TextDecoder().decode(bytes).includes(MARKER), "the log holds none of the file");
  });
});

Deno.test("cairn validate --url: a local file page opens with --allow-file-urls and is refused (exit 2, naming the flag) without it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-file-url-" });
  const db = `${dir}/cairn.db`;
  const page = '<button id="go" onclick="out.textContent = \'Done: ' + MARKER + "'\">Go</button>" +
    '<p id="out">waiting</p>';
  // the run is blazed on a web page; the same page is then a local file, and the server gone
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(page, { headers: { "content-type": "text/html" } }),
  );
  const local = `${dir}/page.html`;
  await Deno.writeTextFile(local, page);
  try {
    const store = SqliteEventStore.open(db);
    const driver = await ChromeDriver.launch();
    let sessionId: string;
    try {
      const s = await BlazeSession.start(driver, store, {
        url: `http://127.0.0.1:${server.addr.port}/page.html`,
        prompt: "Press Go and check the answer",
        screenshots: false,
        settleMs: 100,
      });
      const snap = async () => (await s.call("snapshot", {})).output;
      await s.call("step", { text: "Press Go" });
      assert((await s.call("tap", { ref: refIn(await snap(), "Go") })).ok);
      await s.call("step", { text: "Check the answer" });
      const done = `Done: ${MARKER}`;
      assert((await s.call("assert", { ref: refIn(await snap(), done), text: done })).ok);
      await s.end("completed");
      sessionId = s.id;
    } finally {
      await driver.close();
      store.close();
    }
    await server.shutdown();
    const url = `file://${local}`;
    const common = [sessionId, "--url", url, "--policy", "ci", "--db", db];

    const refused = await cairn(["validate", ...common]);
    assertEquals(refused.code, 2, refused.stderr);
    assertStringIncludes(refused.stderr, "--url: unsafe_url");
    assertStringIncludes(refused.stderr, "--allow-file-urls");
    assertEquals(refused.stderr.trim().split("\n").length, 1, refused.stderr);

    const allowed = await cairn(["validate", ...common, "--allow-file-urls", "--json"]);
    assertEquals(allowed.code, 0, allowed.stderr);
    const report = JSON.parse(allowed.stdout);
    assertEquals(report.status, "stable", allowed.stdout);
    assertStringIncludes(allowed.stderr, "stable after 1 iteration");
    // the replay opened the local page (its server is gone) and pressed Go there
    assertEquals(report.url, url);
    assertEquals(report.runs[0].steps.map((s: { passed: boolean }) => s.passed), [true, true]);

    // other schemes stay refused, with the flag too
    const ftp = await cairn([
      "validate",
      ...common.slice(0, 1),
      "--url",
      "ftp://x/",
      "--db",
      db,
      "--allow-file-urls",
    ]);
    assertEquals(ftp.code, 2, ftp.stderr);
    assertStringIncludes(ftp.stderr, "--url: expected an http(s) url");
  } finally {
    await server.shutdown().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});
