/**
 * Ctrl-C (SIGINT) or SIGTERM during `cairn validate` and `cairn replay`, as a shell sends it: the
 * run ends `failed` in the log saying it was interrupted, no Chromium outlives the command, and
 * it exits 130 / 143.
 */
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { ChromeDriver } from "../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import type { StoredEvent } from "../../events/schemas.ts";
import { withDeadline } from "../../drivers/with_deadline.ts";
import { blazeShop } from "../_fixtures/validation_capture.ts";
import { serveVaryingShop } from "../_fixtures/validation_server.ts";
import { serveFolder } from "../_fixtures/web_server.ts";
import { chromiumUnder, killChildAndChromium, ROOT } from "../_fixtures/cli_run.ts";
import { waitUntil } from "../_fixtures/wait.ts";

/** `cairn ARGS…` as a child whose browsers make their profiles under `tmp`. */
function spawnCairn(args: string[], tmp: string): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", "--no-check", `${ROOT}main.ts`, ...args],
    env: { NO_COLOR: "1", TMPDIR: tmp },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Reads `stream` until `text` shows (bounded); resolves to everything read, the rest kept. */
async function readUntil(
  stream: ReadableStream<Uint8Array<ArrayBuffer>>,
  text: string,
): Promise<{ seen: string; rest: Promise<string> }> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const deadline = Date.now() + 60_000;
  while (!seen.includes(text) && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += value;
  }
  const rest = (async () => {
    let more = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return more;
      more += value;
    }
  })();
  return { seen, rest };
}

async function lastEvent(db: string, prefix: string): Promise<StoredEvent[]> {
  const store = SqliteEventStore.open(db);
  try {
    const out = [];
    for (const s of await store.streams(prefix)) {
      out.push((await Array.fromAsync(store.readStream(s.streamId))).at(-1)!);
    }
    return out;
  } finally {
    store.close();
  }
}

async function noChromiumLeft(tmp: string): Promise<number[]> {
  // Chromium's helper processes end a moment after the browser: seconds on a busy machine
  await waitUntil("Chromium to exit", async () => (await chromiumUnder(tmp)).length === 0, {
    timeoutMs: 20_000,
  }).catch(() => {});
  return await chromiumUnder(tmp);
}

async function cleanUp(child: Deno.ChildProcess, tmp: string): Promise<void> {
  await killChildAndChromium(child, tmp);
}

Deno.test("cairn validate on SIGINT mid-run: the validation ends failed (interrupted), its Chromium is gone, exit 130", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_validate_int_" });
  const tmp = `${dir}/tmp`;
  await Deno.mkdir(tmp);
  const db = `${dir}/c.db`;
  const shop = await serveVaryingShop();
  const web = serveFolder();
  let child: Deno.ChildProcess | undefined;
  try {
    const store = SqliteEventStore.open(db);
    const driver = await ChromeDriver.launch();
    let sessionId: string;
    try {
      sessionId = await blazeShop(driver, store, shop.url);
    } finally {
      await driver.close();
      store.close();
    }
    // the page opened first answers after 10 s: the replay is under way when the signal comes
    const slow = `${web.url}slow?ms=10000&to=/login.html`;
    child = spawnCairn(["validate", sessionId, "--db", db, "--url", slow], tmp);
    const stdout = new Response(child.stdout).text();
    const { seen, rest } = await readUntil(child.stderr, "iteration 1/");
    assertStringIncludes(seen, "iteration 1/");
    assert((await chromiumUnder(tmp)).length > 0, "validate launched Chromium");
    await new Promise((r) => setTimeout(r, 500));
    const sent = Date.now();
    child.kill("SIGINT");
    const status = await withDeadline(child.status, 20_000, () => new Error("no exit in 20 s"));
    const stderr = seen + await rest;
    assertEquals(status.code, 130, stderr);
    // the navigate still waiting for the page fails as the browser closes after the grace
    assert(Date.now() - sent < 9_000, `exit took ${Date.now() - sent} ms`);
    assertStringIncludes(stderr, "interrupted (SIGINT)");
    await stdout;
    assertEquals(await noChromiumLeft(tmp), [], "Chromium left running after validate exited");
    const [ended] = await lastEvent(db, "validation-");
    assertEquals(ended?.type, "ValidationCompleted");
    const data = ended!.data as { status: string; message: string };
    assertEquals(data.status, "failed");
    assertEquals(
      data.message,
      "Validation stopped during iteration 1: Error: interrupted (SIGINT)",
    );
    const [replay] = await lastEvent(db, "playback-");
    assertEquals(replay?.type, "PlaybackCompleted");
  } finally {
    if (child) await cleanUp(child, tmp);
    await shop.close();
    await web.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn replay on SIGTERM mid-run: the playback ends failed before its next action, no Chromium left, exit 143", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_replay_term_" });
  const tmp = `${dir}/tmp`;
  await Deno.mkdir(tmp);
  const db = `${dir}/c.db`;
  const web = serveFolder();
  const file = `${dir}/two.json`;
  // recorded timing: 30 s between the two navigations, so the playback is running at SIGTERM
  await Deno.writeTextFile(
    file,
    JSON.stringify([
      { action: "navigate", url: web.url + "login.html", timestamp_ms: 0 },
      { action: "navigate", url: web.url + "cart.html", timestamp_ms: 30_000 },
    ]),
  );
  const child = spawnCairn(["replay", file, "--db", db, "--timing", "recorded"], tmp);
  const stdout = new Response(child.stdout).text();
  const stderr = new Response(child.stderr).text();
  try {
    let first: StoredEvent[] = [];
    for (let i = 0; i < 300 && first.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      first = (await lastEvent(db, "playback-").catch(() => []))
        .filter((e) => e.type === "PlaybackActionCompleted");
    }
    assertEquals(first.length, 1, "the first navigate was played");
    const sent = Date.now();
    child.kill("SIGTERM");
    const status = await withDeadline(child.status, 20_000, () => new Error("no exit in 20 s"));
    assertEquals(status.code, 143, await stderr);
    assert(Date.now() - sent < 10_000, `exit took ${Date.now() - sent} ms`);
    assertStringIncludes(await stderr, "cairn replay: interrupted (SIGTERM)");
    assertStringIncludes(await stdout, "failed");
    assertEquals(await noChromiumLeft(tmp), [], "Chromium left running after replay exited");
    const [ended] = await lastEvent(db, "playback-");
    assertEquals(ended?.type, "PlaybackCompleted");
    const data = ended!.data as { status: string; error: string };
    assertEquals(
      [data.status, data.error],
      ["failed", "Stopped before action 1: interrupted (SIGTERM)"],
    );
  } finally {
    await cleanUp(child, tmp);
    await stdout.catch(() => {});
    await stderr.catch(() => {});
    await web.close();
    await Deno.remove(dir, { recursive: true });
  }
});
