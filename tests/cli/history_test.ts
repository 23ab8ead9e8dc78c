import sharp from "sharp";
import { DatabaseSync } from "node:sqlite";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../_fixtures/assert.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const CAPTURE = new URL("../../examples/inventory.capture.json", import.meta.url).pathname;

/** The files of a folder with their bytes, by name. */
async function filesIn(dir: string): Promise<Record<string, Uint8Array>> {
  const out: Record<string, Uint8Array> = {};
  for await (const e of Deno.readDir(dir)) out[e.name] = await Deno.readFile(`${dir}/${e.name}`);
  return out;
}

async function cairn(args: string[], cwd: string, env: Record<string, string> = {}) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", "--no-check", MAIN, ...args],
    cwd,
    env: { CAIRN_DB: "", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

async function fixture(dir: string): Promise<{ db: string; png: Uint8Array }> {
  const db = `${dir}/.cairn/cairn.db`;
  const store = SqliteEventStore.open(db);
  const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 9, 9]);
  const shot = await store.putBlob(png, "image/png");
  const tree = await store.putBlob(new TextEncoder().encode("{}"), "application/json");
  await store.append("session-h1", [
    {
      type: "SessionStarted",
      data: { sessionId: "h1", mode: "agent", platform: "web", url: "http://x/" },
    },
    { type: "StepStarted", data: { index: 0, text: "Sign in" } },
    {
      type: "ScreenCaptured",
      data: { hierarchy: tree, screenshot: shot, format: "chrome", url: "http://x/login" },
    },
    {
      type: "ActionPerformed",
      data: { actionId: "a1", kind: "tap", point: { x: 10, y: 20 }, source: "agent" },
    },
    { type: "ActionCompleted", data: { actionId: "a1", ok: true, durationMs: 7 } },
  ]);
  store.close();
  return { db, png };
}

Deno.test("cairn history lists the timeline and --at N shows the state and writes the screenshot", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_hist_" });
  try {
    const { png } = await fixture(dir);
    const list = await cairn(["history", "h1"], dir); // default db: .cairn/cairn.db under cwd
    assertEquals(list.code, 0, list.stderr);
    const lines = list.stdout.trim().split("\n");
    assertEquals(lines.length, 5);
    assertMatch(lines[1]!, /^\s+2\s+\S+Z\s+StepStarted\s+step 1: Sign in$/);
    assertStringIncludes(lines[3]!, "tap at (10, 20) [agent]");

    const at = await cairn(["history", "session-h1", "--at", "4"], dir);
    assertEquals(at.code, 0, at.stderr);
    assertStringIncludes(at.stdout, "step 1: Sign in");
    assertStringIncludes(at.stdout, "last action @4: tap at (10, 20) → pending");
    const path = at.stdout.match(/screenshot: (\S+\.png)/)?.[1];
    assert(path, at.stdout);
    assertStringIncludes(path, `${dir}/.cairn/blobs/`);
    assertEquals(await Deno.readFile(path), png);

    const json = await cairn(["history", "h1", "--at", "5", "--json"], dir);
    const state = JSON.parse(json.stdout);
    assertEquals(state.state.lastAction.result.ok, true);
    assertEquals(state.state.counts, { events: 5, actions: 1, screens: 1, failures: 0 });
    assertEquals(state.screenshotPath, path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn history numbers steps from 1 and --at N takes a position of the timeline's first column", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_hist_" });
  try {
    const { db } = await fixture(dir);
    const store = SqliteEventStore.open(db);
    await store.append("session-other", [
      { type: "SessionStarted", data: { sessionId: "other", mode: "agent", platform: "web" } },
    ]); // position 6: h1's next events are not at its own event numbers
    const head = await store.append("session-h1", [
      { type: "StepEnded", data: { index: 0, ok: true } },
      { type: "StepStarted", data: { index: 1, text: "Check out" } },
    ], { expectedVersion: 5 });
    store.close();
    const list = await cairn(["history", "h1", "--db", db], dir);
    assertEquals(list.code, 0, list.stderr);
    const lines = list.stdout.trim().split("\n");
    assertMatch(lines[5]!, /^\s+7\s+\S+Z\s+StepEnded\s+step 1 ended$/);
    assertMatch(lines[6]!, /^\s+8\s+\S+Z\s+StepStarted\s+step 2: Check out$/);
    assertEquals(head.positions, [7, 8]);
    const at = await cairn(["history", "h1", "--at", "8", "--db", db], dir);
    assertEquals(at.code, 0, at.stderr);
    assertStringIncludes(at.stdout, "session-h1 at position 8 (last event 8");
    assertStringIncludes(at.stdout, "step 2: Check out\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn history --at before the session's first event exits 2 naming its positions; after its last event it shows the final state", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_hist_" });
  try {
    const { db } = await fixture(dir); // session-h1 holds positions 1–5
    const store = SqliteEventStore.open(db);
    await store.append("session-late", [
      { type: "SessionStarted", data: { sessionId: "late", mode: "agent", platform: "web" } },
      { type: "StepStarted", data: { index: 0, text: "Check out" } },
    ]); // positions 6–7
    store.close();
    for (const json of [[], ["--json"]]) {
      const early = await cairn(["history", "late", "--at", "3", "--db", db, ...json], dir);
      assertEquals([early.code, early.stdout, early.stderr], [
        2,
        "",
        "cairn history: --at 3 is before this session's first event (position 6): session-late spans positions 6–7\n",
      ]);
    }
    const first = await cairn(["history", "late", "--at", "6", "--db", db], dir);
    assertEquals(first.code, 0, first.stderr);
    assertMatch(first.stdout, /^session-late at position 6 \(last event 6, \S+Z\)\n/);
    assertStringIncludes(first.stdout, "step: none yet\n");

    const after = await cairn(["history", "late", "--at", "99", "--db", db], dir);
    assertEquals(after.code, 0, after.stderr);
    assertMatch(
      after.stdout,
      /^session-late at position 99: after its last event \(position 7, \S+Z\), the final state\n/,
    );
    assertStringIncludes(after.stdout, "step 1: Check out\n");
    const json = await cairn(["history", "late", "--at", "99", "--json", "--db", db], dir);
    assertEquals(json.code, 0, json.stderr);
    const shown = JSON.parse(json.stdout);
    assertEquals(
      [shown.at, shown.firstPosition, shown.lastPosition, shown.state.position],
      [99, 6, 7, 7],
    );
    // the contact sheet takes the same range
    const sheet = await cairn([
      "history",
      "late",
      "--sheet",
      `${dir}/s.png`,
      "--at",
      "2",
      "--db",
      db,
    ], dir);
    assertEquals([sheet.code, sheet.stderr.split(":")[1]], [
      2,
      " --at 2 is before this session's first event (position 6)",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn history and export exit 2 with one line on an unknown or empty SESSION or a bad --at", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_hist_" });
  try {
    const { db } = await fixture(dir); // one session: an empty start would match it
    for (const command of ["history", "export"]) {
      const missing = await cairn([command, "nope", "--db", db], dir);
      assertEquals([missing.code, missing.stdout, missing.stderr], [
        2,
        "",
        `cairn ${command}: No session "nope"\n`,
      ]);
      const empty = await cairn([command, "", "--db", db], dir);
      assertEquals([empty.code, empty.stdout, empty.stderr], [
        2,
        "",
        // export takes a trail file too
        `cairn ${command}: ${
          command === "export" ? "TRAIL|SESSION" : "SESSION"
        } must not be empty\n`,
      ]);
    }
    const bad = await cairn(["history", "h1", "--at", "-3", "--db", db], dir);
    assertEquals(bad.code, 2);
    assertStringIncludes(bad.stderr, "--at");
    assertEquals(bad.stderr.trim().split("\n").length, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn history without SESSION lists the sessions, oldest first; --limit keeps the newest", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_hist_" });
  try {
    const { db } = await fixture(dir);
    const store = SqliteEventStore.open(db);
    await store.append("session-h2", [
      {
        type: "SessionStarted",
        data: { sessionId: "h2", mode: "human", platform: "android", prompt: "Add\n  a plant" },
      },
      { type: "SessionEnded", data: { reason: "completed" } },
    ]);
    await store.append("playback-p1", [{ type: "StepStarted", data: { index: 0, text: "x" } }]);
    store.close();

    const list = await cairn(["history", "--db", db], dir);
    assertEquals(list.code, 0, list.stderr);
    const lines = list.stdout.trim().split("\n");
    assertEquals(lines.length, 4, list.stdout); // a header, two sessions and the playback
    assertMatch(lines[0]!, /^ID\s+KIND\s+EVENTS\s+STARTED\s+RUN$/);
    assertMatch(lines[1]!, /^h1\s+session\s+5\s+\S+Z\s+agent web$/);
    assertMatch(
      lines[2]!,
      /^h2\s+session\s+2\s+\S+Z\s+human android — Add a plant \(completed\)$/,
    );
    assertMatch(lines[3]!, /^p1\s+playback\s+1\s+\S+Z\s*$/);

    const newest = await cairn(["history", "--db", db, "--limit", "1", "--json"], dir);
    assertEquals(newest.code, 0, newest.stderr);
    const { sessions } = JSON.parse(newest.stdout);
    assertEquals(sessions.map((s: { sessionId: string }) => s.sessionId), ["h2"]);
    assertEquals(sessions[0].version, 2);
    assertEquals(sessions[0].ended, { reason: "completed" });

    const at = await cairn(["history", "--db", db, "--at", "3"], dir);
    assertEquals([at.code, at.stderr], [
      2,
      "cairn history: --at needs a SESSION (see cairn history --help)\n",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn history and export refuse a --db where no log is, and create nothing there", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_hist_" });
  try {
    const typo = `${dir}/typo/cairn.db`;
    const empty = `${dir}/empty/cairn.db`; // a 0-byte file: SQLite would make it a database
    await Deno.mkdir(`${dir}/empty`);
    await Deno.writeFile(empty, new Uint8Array());
    for (const db of [typo, empty]) {
      for (const args of [["history"], ["history", "h1"], ["export", "h1"]]) {
        const r = await cairn([...args, "--db", db], dir);
        assertEquals(
          [r.code, r.stderr],
          [2, `cairn ${args[0]}: No event log at ${db} (cairn ingest FILE creates one)\n`],
        );
      }
    }
    const fromEnv = await cairn(["history", "h1"], dir, { CAIRN_DB: typo });
    assertEquals(
      [fromEnv.code, fromEnv.stderr],
      [
        2,
        `cairn history: No event log at ${typo} (from CAIRN_DB) (cairn ingest FILE creates one)\n`,
      ],
    );
    assertEquals(await Deno.stat(`${dir}/typo`).then(() => true, () => false), false);
    assertEquals(await filesIn(`${dir}/empty`), { "cairn.db": new Uint8Array() });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a --db that is not a Cairn event log is refused by name, exit 2, and left as it was", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_hist_" });
  try {
    const json = `${dir}/notdb.json`;
    await Deno.writeTextFile(json, '{"not": "a database"}\n');
    const foreign = `${dir}/notes.db`; // another program's SQLite file
    const db = new DatabaseSync(foreign);
    db.exec("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('keep me')");
    db.close();
    const before = await filesIn(dir);
    for (const path of [json, foreign]) {
      for (const args of [["history"], ["export", "h1"], ["ingest", CAPTURE]]) {
        const r = await cairn([...args, "--db", path], dir);
        assertEquals([r.code, r.stdout, r.stderr], [
          2,
          "",
          `cairn ${args[0]}: ${path}: not a Cairn event log\n`,
        ]);
      }
    }
    assertEquals(await filesIn(dir), before);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SESSION may be the start of exactly one session id, as git takes a short hash", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_hist_" });
  try {
    const { db } = await fixture(dir);
    const store = SqliteEventStore.open(db);
    await store.append("session-h2", [{ type: "StepStarted", data: { index: 0, text: "a" } }]);
    await store.append("session-7f3a9c00", [{
      type: "StepStarted",
      data: { index: 0, text: "b" },
    }]);
    store.close();
    const short = await cairn(["history", "7f3", "--db", db], dir);
    assertEquals(short.code, 0, short.stderr);
    assertMatch(short.stdout, /^\s+7\s+\S+Z\s+StepStarted\s+step 1: b\n$/);
    const exported = await cairn(["export", "session-7f", "--db", db], dir);
    assertEquals(exported.code, 0, exported.stderr);
    assertEquals(JSON.parse(exported.stdout.trim()).data, { index: 0, text: "b" });
    const ambiguous = await cairn(["history", "h", "--db", db], dir);
    assertEquals([ambiguous.code, ambiguous.stderr], [
      2,
      'cairn history: "h" is the start of 2 sessions (session-h1, session-h2): give more of the id\n',
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn history into a reader that stops early (| head) exits 0 without a message", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_hist_" });
  try {
    const { db } = await fixture(dir);
    const store = SqliteEventStore.open(db);
    const steps = Array.from({ length: 3000 }, (_, i) => ({
      type: "StepStarted" as const,
      data: { index: i, text: `step number ${i} of a long session` },
    }));
    await store.append("session-long", steps);
    store.close();
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-q", "-A", "--no-check", MAIN, "history", "long", "--db", db],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const reader = child.stdout.getReader();
    const first = await reader.read(); // one chunk, then hang up as head does
    assert(!first.done && first.value.length > 0);
    await reader.cancel();
    const status = await child.status;
    const stderr = new TextDecoder().decode(
      new Uint8Array(await new Response(child.stderr).arrayBuffer()),
    );
    assertEquals([status.code, stderr], [0, ""]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn history --sheet draws the screenshots as one picture; a session without any is refused", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_hist_" });
  try {
    const { db } = await fixture(dir);
    const store = SqliteEventStore.open(db);
    const tree = await store.putBlob(new TextEncoder().encode("{}"), "application/json");
    const events = [];
    for (let i = 0; i < 5; i++) {
      const png = await sharp({
        create: { width: 200, height: 300, channels: 3, background: { r: 40 * i, g: 90, b: 160 } },
      }).png().toBuffer();
      const shot = await store.putBlob(new Uint8Array(png), "image/png");
      events.push({
        type: "ScreenCaptured" as const,
        data: { hierarchy: tree, screenshot: shot, format: "chrome" as const },
      });
    }
    await store.append("session-shots", events);
    store.close();
    const out = `${dir}/sheets/new/run.png`; // folders that do not exist yet are made
    const r = await cairn(["history", "shots", "--sheet", out, "--columns", "2", "--db", db], dir);
    assertEquals(r.code, 0, r.stderr);
    assertMatch(r.stdout, /^.*run\.png: 5 screens \(@\d+ … @\d+\), 996×2370\n$/);
    const meta = await sharp(await Deno.readFile(out)).metadata();
    assertEquals([meta.format, meta.width], ["png", 996]);
    // --at stops the sheet there
    const first = await cairn(["history", "shots", "--sheet", out, "--at", "7", "--db", db], dir);
    assertStringIncludes(first.stdout, "2 screens (@6 … @7)");
    // before the session's first event: no state of it to draw (bad input)
    const early = await cairn(["history", "shots", "--sheet", out, "--at", "0", "--db", db], dir);
    assertEquals([early.code, early.stderr], [
      2,
      "cairn history: --at 0 is before this session's first event (position 6): session-shots spans positions 6–10\n",
    ]);

    const steps = SqliteEventStore.open(db);
    await steps.append("session-steps", [{ type: "StepStarted", data: { index: 0, text: "a" } }]);
    steps.close();
    const none = await cairn(["history", "steps", "--sheet", out, "--db", db], dir);
    assertEquals([none.code, none.stderr], [
      1,
      "cairn history: session-steps has no screenshots\n",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn history on a playback by its printed id: its actions, errors and screenshots; --snapshot; /v1/blobs by short hash", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_hist_" });
  try {
    const { db } = await fixture(dir);
    const store = SqliteEventStore.open(db);
    const png = await sharp({
      create: { width: 120, height: 90, channels: 3, background: { r: 9, g: 90, b: 160 } },
    }).png().toBuffer();
    const shot = await store.putBlob(new Uint8Array(png), "image/png");
    const xml = await Deno.readTextFile(
      "/work/shared/corpus/android/appium-source_theapp_login.xml",
    );
    const tree = await store.putBlob(new TextEncoder().encode(xml), "application/xml");
    await store.append("playback-pb-1248081a-c33", [
      {
        type: "PlaybackStarted",
        data: {
          playbackId: "pb-1248081a-c33",
          source: { kind: "trail" },
          platform: "android",
          actionsTotal: 2,
          timing: "fast",
          onError: "continue",
        },
      },
      {
        type: "PlaybackActionResolved",
        data: { index: 0, strategy: "id", selector: "loginBtn", healed: false, screen: tree },
      },
      {
        type: "PlaybackActionCompleted",
        data: { index: 0, action: "tap", status: "ok", durationMs: 20, screenshot: shot },
      },
      {
        type: "PlaybackActionCompleted",
        data: {
          index: 1,
          action: "tap",
          status: "failed",
          error: "No element matches text=Pay",
          durationMs: 30,
          screenshot: shot,
        },
      },
    ]);
    const [last] = await Array.fromAsync(
      store.readStream("playback-pb-1248081a-c33", { from: 4, limit: 1 }),
    );
    store.close();
    const at = await cairn([
      "history",
      "pb-1248081a-c33",
      "--at",
      String(last!.position),
      "--db",
      db,
    ], dir);
    assertEquals(at.code, 0, at.stderr);
    assertStringIncludes(at.stdout, "playback-pb-1248081a-c33 at position");
    assertStringIncludes(at.stdout, "failed in 30 ms: No element matches text=Pay");
    assertStringIncludes(at.stdout, "counts: 4 events, 2 actions, 2 screens, 1 failures");
    assertMatch(at.stdout, /screenshot: .*\.png/);
    // the start of the id works too, and --snapshot prints the screen the first action resolved on
    const snap = await cairn(
      ["history", "pb-1248", "--at", String(last!.position - 1), "--snapshot", "--db", db],
      dir,
    );
    assertEquals(snap.code, 0, snap.stderr);
    assertStringIncludes(snap.stdout, 'ViewGroup "loginBtn" [ref=p548]');
    const sheet = await cairn(
      ["history", "pb-1248081a-c33", "--sheet", `${dir}/s.png`, "--db", db],
      dir,
    );
    assertEquals(sheet.code, 0, sheet.stderr);
    assertStringIncludes(sheet.stdout, "2 screens");
    const list = await cairn(["history", "--db", db], dir);
    assertMatch(list.stdout, /pb-1248081a-c33\s+playback\s+4\s/);

    const { createApp } = await import("../../api/app.ts");
    const http = SqliteEventStore.open(db);
    try {
      const app = createApp({ store: http });
      const blob = await app.request(`/v1/blobs/${shot.hash.slice(0, 12)}`);
      assertEquals(blob.status, 200);
      assertEquals(new Uint8Array(await blob.arrayBuffer()).length, shot.size);
      const state = await app.request(`/v1/sessions/pb-1248081a-c33/state`);
      assertEquals(state.status, 200);
      assertEquals((await state.json()).state.counts.failures, 1);
    } finally {
      http.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
