/**
 * An event log file that cannot serve, met at the command line: damaged (truncated), written by
 * a newer Cairn, or read-only. Every command that takes `--db` answers with one line naming the
 * file (`cairn CMD: PATH: …`, as for a directory or another program's file) and exit code 2,
 * leaving the file as it was; a command that only reads opens a read-only file that needs no
 * migration, writing nothing to it.
 *
 * Read-only is made with `chattr +i` when the tests run as root (root writes through mode bits)
 * and with mode 0444 otherwise.
 */
import { DatabaseSync } from "node:sqlite";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { LATEST_VERSION } from "../../events/migrations.ts";
import { ingestFile } from "../../cli/ingest.ts";
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { cairn, pool, ROOT } from "../_fixtures/cli_run.ts";

const SEED = `${ROOT}examples/inventory.capture.json`;
const OTHER = `${ROOT}examples/web_checkout.capture.json`;
const NO_BROWSER = "/nonexistent/cairn-test-chromium";

/** Each command that takes `--db`, with arguments that reach its store. */
const DB_COMMANDS: Record<string, string[]> = {
  ingest: ["ingest", OTHER],
  optimize: ["optimize", OTHER],
  reproject: ["reproject", "--all"],
  export: ["export", "x"],
  history: ["history"],
  serve: ["serve", "--port", "0"],
  blaze: ["blaze", "start", "--url", "http://127.0.0.1:9/", "--prompt", "p"],
  record: ["record", "--url", "http://127.0.0.1:9/", "--prompt", "p"],
  replay: ["replay", `${ROOT}tests/testdata/playback/signup.trail.yaml`],
  validate: ["validate", "x"],
  mcp: ["mcp"],
  show: ["show", "x"],
};

const run = (args: string[], env: Record<string, string> = {}) =>
  cairn(args, { CAIRN_CHROMIUM: NO_BROWSER, ...env });

/** A store file holding the seed session; returns the session id. */
async function seeded(path: string): Promise<string> {
  const store = SqliteEventStore.open(path);
  try {
    return (await ingestFile(store, SEED)).sessionId;
  } finally {
    store.close(); // the last close folds the WAL into the file: one file to damage
  }
}

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn_store_file_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("every command that takes --db names a truncated file and a newer Cairn's file, exit 2, changing neither", async () => {
  const { COMMANDS } = await import("../../main.ts");
  const withDb = [];
  for (const [name, c] of Object.entries(COMMANDS)) {
    if ((await c.load()).spec.flags?.db) withDb.push(name);
  }
  assertEquals(Object.keys(DB_COMMANDS).sort(), withDb.sort(), "a command with --db untested");
  await withDir(async (dir) => {
    const trunc = `${dir}/trunc.db`;
    await seeded(trunc);
    await Deno.truncate(trunc, Math.floor((await Deno.stat(trunc)).size / 2));
    const newer = `${dir}/newer.db`;
    await seeded(newer);
    const db = new DatabaseSync(newer);
    db.prepare("INSERT INTO schema_migrations VALUES (?, 'future', '2030-01-01T00:00:00Z')")
      .run(LATEST_VERSION + 1);
    db.close();
    const files: [string, string][] = [
      [
        trunc,
        `${trunc}: damaged file, not a readable event log (database disk image is malformed)`,
      ],
      [
        newer,
        `${newer}: written by a newer Cairn (layout version ${
          LATEST_VERSION + 1
        }; this Cairn knows up to ${LATEST_VERSION})`,
      ],
    ];
    const bytes = await Promise.all(files.map(([f]) => Deno.readFile(f)));
    const runs = files.flatMap(([file, line]) =>
      Object.entries(DB_COMMANDS).map(([name, argv]) => ({
        name,
        argv: [...argv, "--db", file],
        line,
      }))
    );
    const outs = await pool(runs, 2, (r) => run(r.argv));
    for (const [i, r] of runs.entries()) {
      const out = outs[i]!;
      assertEquals([out.code, out.stderr], [2, `cairn ${r.name}: ${r.line}\n`], r.argv.join(" "));
    }
    for (const [i, [file]] of files.entries()) {
      assertEquals(await Deno.readFile(file), bytes[i], `${file} changed`);
    }
    // no daemon state, lock or WAL left beside them by a command that refused
    const left = (await Array.fromAsync(Deno.readDir(dir), (e) => e.name)).sort();
    assertEquals(left.filter((n) => !n.endsWith(".runs.lock")), ["newer.db", "trunc.db"]);
    // a path from CAIRN_DB says so
    const env = await run(["history"], { CAIRN_DB: trunc });
    assertEquals([env.code, env.stderr.split(": damaged")[0]], [
      2,
      `cairn history: ${trunc} (from CAIRN_DB)`,
    ]);
  });
});

/** Makes a file read-only for this process: `chattr +i` as root, mode 0444 otherwise. */
async function makeReadOnly(path: string): Promise<() => Promise<void>> {
  if (Deno.uid() === 0) {
    const set = await new Deno.Command("chattr", { args: ["+i", path] }).output();
    assert(set.success, `chattr +i ${path}: ${new TextDecoder().decode(set.stderr)}`);
    return async () => void await new Deno.Command("chattr", { args: ["-i", path] }).output();
  }
  await Deno.chmod(path, 0o444);
  return () => Deno.chmod(path, 0o644);
}

Deno.test("a read-only log: commands that write refuse it at once (exit 2, serve before it listens); commands that read open it", async () => {
  await withDir(async (dir) => {
    const path = `${dir}/ro.db`;
    const session = await seeded(path);
    const before = await Deno.readFile(path);
    const undo = await makeReadOnly(path);
    try {
      const line = `${path}: read-only file, and this command writes to the event log\n`;
      for (
        const [name, argv] of [
          ["ingest", ["ingest", OTHER]],
          ["serve", ["serve", "--port", "0"]],
          ["blaze", ["blaze", "start", "--url", "http://127.0.0.1:9/", "--prompt", "p"]],
          ["replay", DB_COMMANDS.replay!],
        ] as const
      ) {
        const out = await run([...argv, "--db", path]);
        assertEquals([out.code, out.stderr, out.stdout], [2, `cairn ${name}: ${line}`, ""], name);
      }
      const history = await run(["history", "--db", path]);
      assertEquals(history.code, 0, history.stderr);
      assertStringIncludes(history.stdout, session);
      const timeline = await run(["history", session.slice(0, 8), "--at", "3", "--db", path]);
      assertEquals(timeline.code, 0, timeline.stderr);
      const exported = await run(["export", session, "--db", path]);
      assertEquals(exported.code, 0, exported.stderr);
      assertStringIncludes(exported.stdout, '"type":"SessionStarted"');
      const optimized = await run(["optimize", session, "--db", path]);
      assertEquals(optimized.code, 0, optimized.stderr);
      assertStringIncludes(optimized.stdout, `id: ${session}`);
    } finally {
      await undo();
    }
    assertEquals(await Deno.readFile(path), before, "the read-only file changed");
  });
});

Deno.test("a read-only log of an older layout is refused by a reading command, saying it must be upgraded", async () => {
  await withDir(async (dir) => {
    const path = `${dir}/old.db`;
    // the first layout: an events table, no schema_migrations
    const db = new DatabaseSync(path);
    db.exec(`
      CREATE TABLE events (
        position INTEGER PRIMARY KEY, stream_id TEXT NOT NULL, stream_version INTEGER NOT NULL,
        type TEXT NOT NULL, schema_version INTEGER NOT NULL, data TEXT NOT NULL, meta TEXT NOT NULL,
        UNIQUE (stream_id, stream_version));
      CREATE TABLE blobs (hash TEXT PRIMARY KEY, media_type TEXT NOT NULL, size INTEGER NOT NULL, bytes BLOB NOT NULL);
      CREATE TABLE idempotency (key TEXT PRIMARY KEY, stream_id TEXT NOT NULL, positions TEXT NOT NULL, stream_version INTEGER NOT NULL);
    `);
    db.prepare("INSERT INTO events VALUES (1, 'session-old', 1, 'SessionStarted', 1, ?, ?)").run(
      JSON.stringify({ sessionId: "old", mode: "import", platform: "android" }),
      JSON.stringify({ recordedAt: "2024-05-01T10:00:00.000Z" }),
    );
    db.close();
    const undo = await makeReadOnly(path);
    try {
      const out = await run(["history", "--db", path]);
      assertEquals([out.code, out.stderr], [
        2,
        `cairn history: ${path}: read-only file, and its layout (version 1) must be upgraded to version ${LATEST_VERSION} first: open it once where it can be written\n`,
      ]);
    } finally {
      await undo();
    }
    // once writable, the same command upgrades it and reads
    const out = await run(["history", "--db", path]);
    assertEquals(out.code, 0, out.stderr);
    assertStringIncludes(out.stdout, "old");
  });
});
