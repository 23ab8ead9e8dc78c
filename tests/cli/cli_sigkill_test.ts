/**
 * A CLI process killed with SIGKILL (no handler runs) takes its Chromium with it: `cairn record`,
 * `cairn replay`, `cairn validate` and the `cairn blaze` daemon launch Chromium over the DevTools
 * pipe, which closes when the process dies, and Chromium exits on its own. Each child runs with
 * `TMPDIR` set to a folder of the test, so its Chromium is found by its `--user-data-dir`.
 */
import { assert, assertEquals } from "../_fixtures/assert.ts";
import { ChromeDriver } from "../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { withDeadline } from "../../drivers/with_deadline.ts";
import { blazeShop } from "../_fixtures/validation_capture.ts";
import { serveVaryingShop } from "../_fixtures/validation_server.ts";
import { serveFolder } from "../_fixtures/web_server.ts";
import { chromiumUnder, killChromiumUnder, ROOT } from "../_fixtures/cli_run.ts";

/** `cairn ARGS…` as a child whose browsers make their profiles under `tmp`. */
function spawnCairn(args: string[], tmp: string): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", "--no-check", `${ROOT}main.ts`, ...args],
    env: { NO_COLOR: "1", TMPDIR: tmp },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (at most 60 s, the machine may be busy) until a Chromium runs under `tmp`. */
async function chromiumUp(tmp: string, child: Deno.ChildProcess | undefined): Promise<number[]> {
  let exited = false;
  child?.status.then(() => exited = true);
  for (let i = 0; i < 600 && !exited; i++) {
    const pids = await chromiumUnder(tmp);
    // the browser process and at least one of its helpers: past the launch
    if (pids.length >= 2) return pids;
    await sleep(100);
  }
  return await chromiumUnder(tmp);
}

/** Waits at most `ms` for every Chromium under `tmp` to exit; returns those still running. */
async function chromiumGone(tmp: string, ms: number): Promise<number[]> {
  for (let i = 0; i < ms / 100 && (await chromiumUnder(tmp)).length > 0; i++) await sleep(100);
  return await chromiumUnder(tmp);
}

/** Kills what the test left running (the child, and any Chromium under `tmp`). */
async function cleanUp(child: Deno.ChildProcess | undefined, tmp: string): Promise<void> {
  if (child) {
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
    await child.status;
    await child.stdout.cancel().catch(() => {});
    await child.stderr.cancel().catch(() => {});
  }
  await killChromiumUnder(tmp);
  await chromiumGone(tmp, 3_000);
}

/** Removes the test's folder; a Chromium that just exited may still be writing its profile. */
async function removeDir(dir: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    try {
      return await Deno.remove(dir, { recursive: true });
    } catch (err) {
      if (err instanceof Deno.errors.NotFound || i === 19) throw err;
      await sleep(100);
    }
  }
}

/**
 * Starts `args` under a fresh TMPDIR, waits for its Chromium, SIGKILLs the process and checks
 * that no Chromium of it is left 5 s later.
 */
async function killedTakesChromium(
  dir: string,
  args: (tmp: string) => string[],
  pid: (child: Deno.ChildProcess) => Promise<number> = (c) => Promise.resolve(c.pid),
): Promise<void> {
  const tmp = `${dir}/tmp-${crypto.randomUUID().slice(0, 8)}`;
  await Deno.mkdir(tmp);
  const child = spawnCairn(args(tmp), tmp);
  let victim: number | undefined;
  try {
    const up = await chromiumUp(tmp, child);
    if (up.length === 0) {
      // it exited first: say what it printed
      const err = await withDeadline(new Response(child.stderr).text(), 5_000, () => new Error())
        .catch(() => "");
      assert(false, `${args(tmp)[0]} launched no Chromium: ${err.trim()}`);
    }
    victim = await pid(child);
    await sleep(300);
    Deno.kill(victim, "SIGKILL");
    if (victim === child.pid) {
      const status = await withDeadline(child.status, 10_000, () => new Error("not killed"));
      assertEquals(status.signal, "SIGKILL");
    }
    assertEquals(
      // Chromium exits once its pipe to the killed Cairn closes, its helpers a moment later:
      // well within 5 s on a quiet machine; 15 s leaves room for a busy one and still tells an
      // orphaned browser (which never exits) from it
      await chromiumGone(tmp, 15_000),
      [],
      `Chromium of ${args(tmp)[0]} still running 15 s after SIGKILL`,
    );
  } finally {
    if (victim !== undefined && victim !== child.pid) {
      try {
        Deno.kill(victim, "SIGKILL");
      } catch { /* gone */ }
    }
    await cleanUp(child, tmp);
  }
}

Deno.test("SIGKILL of cairn record, replay and validate leaves no Chromium running", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_sigkill_" });
  const db = `${dir}/c.db`;
  const web = serveFolder();
  const shop = await serveVaryingShop();
  try {
    await killedTakesChromium(dir, () => [
      "record",
      "--db",
      db,
      "--headless",
      "--url",
      web.url + "cart.html",
      "--prompt",
      "x",
    ]);

    const file = `${dir}/two.json`;
    await Deno.writeTextFile(
      file,
      JSON.stringify([
        { action: "navigate", url: web.url + "login.html", timestamp_ms: 0 },
        { action: "navigate", url: web.url + "cart.html", timestamp_ms: 30_000 },
      ]),
    );
    await killedTakesChromium(dir, () => ["replay", file, "--db", db, "--timing", "recorded"]);

    const store = SqliteEventStore.open(db);
    const driver = await ChromeDriver.launch();
    let sessionId: string;
    try {
      sessionId = await blazeShop(driver, store, shop.url);
    } finally {
      await driver.close();
      store.close();
    }
    const slow = `${web.url}slow?ms=10000&to=/login.html`;
    await killedTakesChromium(dir, () => ["validate", sessionId, "--db", db, "--url", slow]);
  } finally {
    await shop.close();
    await web.close();
    await removeDir(dir);
  }
});

Deno.test("SIGKILL of the cairn blaze daemon leaves no Chromium running, before any later call", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_sigkill_blaze_" });
  const db = `${dir}/c.db`;
  const web = serveFolder();
  try {
    await killedTakesChromium(
      dir,
      () => ["blaze", "--db", db, "start", "--url", web.url + "cart.html", "--prompt", "x"],
      async (child) => {
        // `blaze start` exits once the daemon holds the session; the daemon is the one to kill
        const status = await withDeadline(child.status, 60_000, () => new Error("no start"));
        assertEquals(status.code, 0);
        const state = JSON.parse(await Deno.readTextFile(`${db}.blaze.json`)) as { pid: number };
        return state.pid;
      },
    );
  } finally {
    await web.close();
    await removeDir(dir);
  }
});
