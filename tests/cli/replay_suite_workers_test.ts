/**
 * `cairn replay FOLDER --workers 2`: one Chromium for the whole suite (launched once, a context
 * per trail), two trails playing at the same time; SIGTERM mid-suite ends it with exit 143 and
 * no Chromium left. Real processes, real Chromium, pages on 127.0.0.1 that make each trail wait.
 */
import { join } from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { withDeadline } from "../../drivers/with_deadline.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { chromiumUnder, ROOT } from "../_fixtures/cli_run.ts";
import { serveFolder } from "../_fixtures/web_server.ts";
import { waitUntil } from "../_fixtures/wait.ts";

/** A trail that types a name and waits `delay` ms for the slow report page's line. */
function slowTrail(i: number, delay: number): string {
  return `config:
  platform: web
  url: http://localhost:8000/slow_report.html?delay=${delay}
trail:
  - step: Run the report
    recording:
      - inputText: { selector: { id: name }, text: "Ann ${i}" }
      - tap: { selector: { id: run } }
      - assertText: { selector: { id: status }, equals: "Report for Ann ${i}: ready" }
`;
}

/** The distinct profile folders (one per browser) of the Chromium processes under `tmp`. */
async function browsersUnder(tmp: string): Promise<Set<string>> {
  const dirs = new Set<string>();
  for (const pid of await chromiumUnder(tmp)) {
    const cmdline = await Deno.readTextFile(`/proc/${pid}/cmdline`).catch(() => "");
    const arg = cmdline.split("\0").find((a) => a.startsWith(`--user-data-dir=${tmp}/`));
    if (arg) dirs.add(arg);
  }
  return dirs;
}

/** Each playback's first and last event times (ms). */
async function spans(db: string): Promise<[number, number][]> {
  const store = SqliteEventStore.open(db);
  try {
    const out: [number, number][] = [];
    for (const s of await store.streams("playback-")) {
      const events = await Array.fromAsync(store.readStream(s.streamId));
      out.push([
        Date.parse(events[0]!.meta.recordedAt),
        Date.parse(events.at(-1)!.meta.recordedAt),
      ]);
    }
    return out;
  } finally {
    store.close();
  }
}

async function suite(delay: number, extra: string[]) {
  const dir = await Deno.makeTempDir({ prefix: "cairn-suite-workers-" });
  const tmp = join(dir, "tmp");
  const trails = join(dir, "e2e");
  await Deno.mkdir(tmp);
  await Deno.mkdir(trails);
  for (let i = 0; i < 4; i++) {
    await Deno.writeTextFile(join(trails, `t${i}.trail.yaml`), slowTrail(i, delay));
  }
  const web = serveFolder();
  const db = join(dir, "c.db");
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "-A",
      "--no-check",
      `${ROOT}main.ts`,
      "replay",
      trails,
      "--url",
      web.url,
      "--workers",
      "2",
      "--db",
      db,
      ...extra,
    ],
    env: { NO_COLOR: "1", CI: "1", TMPDIR: tmp },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = new Response(child.stdout).text();
  const stderr = new Response(child.stderr).text();
  const cleanUp = async () => {
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
    await child.status;
    for (const pid of await chromiumUnder(tmp)) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* exited meanwhile */ }
    }
    await stdout.catch(() => {});
    await stderr.catch(() => {});
    await web.close();
    await Deno.remove(dir, { recursive: true });
  };
  return { child, db, tmp, stdout, stderr, cleanUp };
}

Deno.test("replay --workers 2: one Chromium for the suite, two trails playing at once", async () => {
  const s = await suite(1_500, []);
  try {
    // every browser seen while the suite runs (polled until it exits, bounded)
    const seen = new Set<string>();
    let done = false;
    s.child.status.then(() => done = true);
    for (let i = 0; i < 1_200 && !done; i++) {
      for (const b of await browsersUnder(s.tmp)) seen.add(b);
      await new Promise((r) => setTimeout(r, 50));
    }
    const status = await withDeadline(s.child.status, 60_000, () => new Error("no exit"));
    assertEquals(status.code, 0, (await s.stdout) + (await s.stderr));
    assertStringIncludes(await s.stdout, "4 trails: 4 passed, 0 failed");
    assertEquals(seen.size, 1, `browsers launched: ${[...seen].join(", ")}`);
    // two workers: some two playbacks ran at the same time
    const sp = await spans(s.db);
    assertEquals(sp.length, 4);
    const overlap = sp.some((a, i) => sp.some((b, j) => i !== j && a[0] < b[1] && b[0] < a[1]));
    assert(overlap, `no two playbacks overlap: ${JSON.stringify(sp)}`);
  } finally {
    await s.cleanUp();
  }
});

Deno.test("replay --workers 2 on SIGTERM mid-suite: the running trails end failed, exit 143, no Chromium left", async () => {
  const s = await suite(20_000, ["--timeout", "30000"]);
  try {
    // both workers are waiting for their report (two typed names)
    for (let i = 0; i < 600; i++) {
      const store = SqliteEventStore.open(s.db);
      let typed = 0;
      try {
        for (const st of await store.streams("playback-").catch(() => [])) {
          for await (const e of store.readStream(st.streamId)) {
            if (e.type === "PlaybackActionCompleted" && e.data.action === "type") typed++;
          }
        }
      } finally {
        store.close();
      }
      if (typed >= 2) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const sent = Date.now();
    s.child.kill("SIGTERM");
    const status = await withDeadline(s.child.status, 20_000, () => new Error("no exit in 20 s"));
    assertEquals(status.code, 143, await s.stderr);
    assert(Date.now() - sent < 15_000, `exit took ${Date.now() - sent} ms`);
    assertStringIncludes(await s.stderr, "interrupted (SIGTERM)");
    assertStringIncludes(await s.stdout, "2 trails: 0 passed, 2 failed");
    // Chromium's helper processes end a moment after the browser: seconds on a busy machine
    await waitUntil("Chromium to exit", async () => (await chromiumUnder(s.tmp)).length === 0, {
      timeoutMs: 20_000,
    }).catch(() => {});
    assertEquals(await chromiumUnder(s.tmp), [], "Chromium left running after the suite exited");
  } finally {
    await s.cleanUp();
  }
});
