/**
 * `cairn ingest` and `cairn export` as a user runs them: `deno run -A main.ts …` in a child
 * process on a real SQLite file in a temp dir.
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import type { StoredEvent } from "../events/schemas.ts";
import { comparableEvents } from "../engine/formats/round_trip.ts";
import { cairn, headOf, ROOT } from "./cli_run.ts";

const SAMPLE = `${ROOT}tests/testdata/formats/bottom_nav.capture.json`;

async function withTemp(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn_formats_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function readSession(db: string, id: string): Promise<StoredEvent[]> {
  const store = SqliteEventStore.open(db);
  try {
    const out: StoredEvent[] = [];
    for await (const e of store.readStream(`session-${id}`)) out.push(e);
    return out;
  } finally {
    store.close();
  }
}

Deno.test("cairn ingest then export --format capture and events round-trips to equal events", async () => {
  await withTemp(async (dir) => {
    const db = `${dir}/c.db`;
    const first = await cairn(["ingest", "--db", db, "--json", SAMPLE]);
    assertEquals(first.code, 0, first.stderr);
    const [result] = JSON.parse(first.stdout) as { sessionId: string; events: number }[];
    const original = await readSession(db, result!.sessionId);
    assertEquals(original.length, result!.events);
    for (const format of ["capture", "events"]) {
      const file = `${dir}/out.${format}`;
      const exp = await cairn([
        "export",
        "--db",
        db,
        result!.sessionId,
        "--format",
        format,
        "-o",
        file,
      ]);
      assertEquals(exp.code, 0, exp.stderr);
      const again = await cairn(["ingest", "--db", db, file]);
      assertEquals(again.code, 0, again.stderr);
      const id = again.stdout.trim();
      assert(id !== result!.sessionId);
      assertEquals(comparableEvents(await readSession(db, id)), comparableEvents(original));
    }
  });
});

Deno.test("cairn export --format recording_v1 into a directory uses seed 004's file name and round-trips", async () => {
  await withTemp(async (dir) => {
    const db = `${dir}/c.db`;
    const name = "vw-ax-human-hs-0042-20251219-130500.json";
    const first = await cairn(["ingest", "--db", db, `${ROOT}tests/testdata/formats/${name}`]);
    assertEquals(first.code, 0, first.stderr);
    const id = first.stdout.trim();
    await Deno.mkdir(`${dir}/out`);
    const exp = await cairn([
      "export",
      "--db",
      db,
      id,
      "--format",
      "recording_v1",
      "-o",
      `${dir}/out`,
    ]);
    assertEquals(exp.code, 0, exp.stderr);
    assertEquals(exp.stdout.trim(), `${dir}/out/${name}`);
    const again = await cairn(["ingest", "--db", db, `${dir}/out/${name}`]);
    assertEquals(again.code, 0, again.stderr);
    assertEquals(
      comparableEvents(await readSession(db, again.stdout.trim())),
      comparableEvents(await readSession(db, id)),
    );
  });
});

const BAD_CAPTURE = `{
  "format": "cairn.capture/v1",
  "platform": "android",
  "actions": [{ "action": "tapp", "coordinates": { "x": 1, "y": "2" } }]
}`;

const CASES: { name: string; file: string; text: string; expect: RegExp }[] = [
  {
    name: "malformed JSON",
    file: "broken.json",
    text: '{\n  "format": "cairn.capture/v1",\n  "platform": ,\n}',
    expect: /broken\.json: line 3, column 15: expected a value/,
  },
  {
    name: "a wrong schema",
    file: "wrong.json",
    text: BAD_CAPTURE,
    expect: /wrong\.json: actions\.0\.action: .*; actions\.0\.coordinates\.y: /,
  },
  {
    name: "a truncated file",
    file: "cut.json",
    text: "",
    expect: /cut\.json: line \d+, column \d+: unexpected end of input \(is the file truncated\?\)/,
  },
  {
    name: "an unknown event type",
    file: "events.jsonl",
    text: `{"type":"SessionStarted","data":{"sessionId":"x","mode":"agent","platform":"web"}}\n` +
      `{"type":"ThingHappened","data":{}}\n`,
    expect: /events\.jsonl: line 2: type: unknown event type "ThingHappened"/,
  },
  {
    name: "a truncated events file",
    file: "cut.jsonl",
    text: `{"type":"SessionStarted","data":{"sessionId":"x","mode":"agent","platform":"web"}}\n` +
      `{"type":"StepStarted","data":{"index":0,"te`,
    expect: /cut\.jsonl: line 2, column 44: unexpected end of input \(is the file truncated\?\)/,
  },
  {
    name: "a recording with an unknown action type",
    file: "rec.json",
    text: JSON.stringify({
      schema_version: "recording_v1",
      mode: "agent",
      id: "t",
      created_at: "2025-12-19T12:00:00Z",
      timeline: [{
        t: "2025-12-19T12:00:01Z",
        kind: "decision",
        step: { step_id: "s1", action_type: "teleport", target: {} },
      }],
    }),
    expect: /rec\.json: timeline\.0\.step\.action_type: unknown action type "teleport"/,
  },
  {
    name: "an events file whose blob is missing",
    file: "noblob.jsonl",
    text: `{"type":"SessionStarted","data":{"sessionId":"x","mode":"agent","platform":"web"}}\n` +
      `{"type":"ScreenCaptured","data":{"hierarchy":{"hash":"${"a".repeat(64)}",` +
      `"mediaType":"application/json","size":2},"format":"chrome"}}\n`,
    expect: /noblob\.jsonl: line 2: blob a{64} is neither in the file nor in the database/,
  },
  {
    name: "an unknown format",
    file: "other.json",
    text: '{ "hello": "world" }',
    expect: /other\.json: unknown format/,
  },
  {
    name: "a missing hierarchy file",
    file: "nofile.json",
    text: JSON.stringify({
      format: "cairn.capture/v1",
      platform: "android",
      actions: [{ action: "tap", viewHierarchy: { file: "screens/none.xml" } }],
    }),
    expect: /nofile\.json: actions\.0\.viewHierarchy\.file: cannot read "screens\/none\.xml"/,
  },
];

for (const c of CASES) {
  Deno.test(`cairn ingest exits 2 with one line and appends nothing for ${c.name}`, async () => {
    await withTemp(async (dir) => {
      const db = `${dir}/c.db`;
      SqliteEventStore.open(db).close();
      const text = c.name === "a truncated file"
        ? (await Deno.readTextFile(SAMPLE)).slice(0, 700)
        : c.text;
      await Deno.writeTextFile(`${dir}/${c.file}`, text);
      // A good file first: a bad one anywhere in the batch stores nothing at all.
      const r = await cairn(["ingest", "--db", db, SAMPLE, `${dir}/${c.file}`]);
      assertEquals(r.code, 2, r.stderr);
      assertEquals(r.stdout, "");
      const lines = r.stderr.trim().split("\n");
      assertEquals(lines.length, 1, r.stderr);
      assertMatch(lines[0]!, c.expect);
      assertEquals(await headOf(db), 0);
    });
  });
}

Deno.test("cairn export names a session that does not exist, exit 2 as for any bad input", async () => {
  await withTemp(async (dir) => {
    SqliteEventStore.open(`${dir}/c.db`).close(); // a log, without that session
    const r = await cairn(["export", "--db", `${dir}/c.db`, "nope"]);
    assertEquals([r.code, r.stdout, r.stderr], [2, "", 'cairn export: No session "nope"\n']);
  });
});
