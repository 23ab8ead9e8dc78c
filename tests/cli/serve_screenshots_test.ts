/**
 * `cairn serve` writes its playbacks' screenshot files beside its database, not under the
 * directory it was started in: a real server process, real Chromium, a page on 127.0.0.1.
 */
import { assert, assertEquals } from "../_fixtures/assert.ts";
import { serveScreenshotDir } from "../../cli/serve.ts";
import { withDeadline } from "../../drivers/with_deadline.ts";
import { startServe } from "../_fixtures/cli_run.ts";
import { serveFolder } from "../_fixtures/web_server.ts";

Deno.test("serveScreenshotDir() is screenshots/ beside the database, absolute; none for :memory:", () => {
  assertEquals(serveScreenshotDir("/data/run/cairn.db"), "/data/run/screenshots");
  assertEquals(serveScreenshotDir("rel/c.db"), `${Deno.cwd()}/rel/screenshots`);
  assertEquals(serveScreenshotDir(":memory:"), undefined);
  // a log with no file beside it: .cairn/ under the working directory, not a "postgres:" folder
  assertEquals(
    serveScreenshotDir("postgres://cairn@db.example/cairn"),
    `${Deno.cwd()}/.cairn/screenshots`,
  );
});

Deno.test("cairn serve writes a playback's screenshots beside --db, not under its working directory", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_serve_shots_" });
  const cwd = `${dir}/cwd`;
  await Deno.mkdir(cwd);
  await Deno.mkdir(`${dir}/db`);
  const web = serveFolder();
  const { child, url: api, stderr } = await startServe(["--db", `${dir}/db/c.db`], {}, cwd);
  try {
    const started = await fetch(`${api}/v1/playbacks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        actions: [
          { action: "navigate", url: web.url + "login.html" },
          { action: "click", selector: "#no-such-element" },
        ],
        timeoutMs: 15_000,
      }),
    });
    assertEquals(started.status, 202);
    const { playbackId } = await started.json();
    let report: { status: string; results: { screenshotPath?: string }[] } | undefined;
    await withDeadline(
      (async () => {
        for (;;) {
          report = await (await fetch(`${api}/v1/playbacks/${playbackId}`)).json();
          if (report!.status !== "running") return;
          await new Promise((r) => setTimeout(r, 200));
        }
      })(),
      60_000,
      () => new Error("the playback did not end within 60 s"),
    );
    const paths = report!.results.flatMap((r) => r.screenshotPath ? [r.screenshotPath] : []);
    assert(paths.length > 0, JSON.stringify(report));
    for (const p of paths) {
      assert(p.startsWith(`${dir}/db/screenshots/`), p);
      assert((await Deno.stat(p)).isFile, p);
    }
    let inCwd = true;
    await Deno.stat(`${cwd}/.cairn`).catch(() => inCwd = false);
    assert(!inCwd, "nothing under the server's working directory");
  } finally {
    child.kill("SIGTERM");
    await withDeadline(child.status, 20_000, () => new Error("serve did not exit"));
    await stderr.catch(() => "");
    await web.close();
    await Deno.remove(dir, { recursive: true });
  }
});
