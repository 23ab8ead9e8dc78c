/**
 * `cairn ingest` and `cairn export` as a user runs them: `deno run -A main.ts …` in a child
 * process on a real SQLite file in a temp dir.
 */
import { assert, assertEquals, assertMatch } from "../../_fixtures/assert.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import type { StoredEvent } from "../../../events/schemas.ts";
import { comparableEvents } from "../../../engine/formats/round_trip.ts";
import { cairn, headOf, ROOT } from "../../_fixtures/cli_run.ts";

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

Deno.test("cairn export --out makes missing folders (a path ending in / is one); a bad path exits 2 naming --out", async () => {
  await withTemp(async (dir) => {
    const db = `${dir}/c.db`;
    const name = "vw-ax-human-hs-0042-20251219-130500.json";
    const first = await cairn(["ingest", "--db", db, `${ROOT}tests/testdata/formats/${name}`]);
    assertEquals(first.code, 0, first.stderr);
    const id = first.stdout.trim();
    const rec = await cairn([
      "export",
      "--db",
      db,
      id,
      "--format",
      "recording_v1",
      "-o",
      `${dir}/recordings/`,
    ]);
    assertEquals([rec.code, rec.stderr], [0, ""]);
    assertEquals(rec.stdout, `${dir}/recordings/${name}\n`);
    const cap = await cairn([
      "export",
      "--db",
      db,
      id,
      "--format",
      "capture",
      "-o",
      `${dir}/work/new2/`,
    ]);
    assertEquals([cap.code, cap.stderr], [0, ""]);
    assertEquals(cap.stdout, `${dir}/work/new2/${id}.capture.json\n`);
    const file = await cairn(["export", "--db", db, id, "-o", `${dir}/a/b/s.jsonl`]);
    assertEquals([file.code, file.stderr], [0, ""]);
    for (const out of [cap.stdout, rec.stdout, file.stdout]) {
      const again = await cairn(["ingest", "--db", db, out.trim()]);
      assertEquals(again.code, 0, again.stderr);
    }
    await Deno.writeTextFile(`${dir}/plain`, "");
    for (
      const [out, says] of [
        ["/proc/nope/x.json", "--out: /proc/nope/x.json cannot be written"],
        [`${dir}/plain/`, `--out: ${dir}/plain/${id}.capture.json cannot be written`],
      ]
    ) {
      const bad = await cairn(["export", "--db", db, id, "--format", "capture", "-o", out!]);
      assertEquals([bad.code, bad.stdout], [2, ""], bad.stderr);
      assertEquals(bad.stderr.trim().split("\n").length, 1, bad.stderr);
      assert(bad.stderr.startsWith(`cairn export: ${says}`), bad.stderr);
    }
  });
});

Deno.test("cairn export of a session that has not ended, as capture or recording_v1, ingests back not ended", async () => {
  await withTemp(async (dir) => {
    const db = `${dir}/c.db`;
    const file = `${ROOT}tests/testdata/formats/blaze_unended.events.jsonl`;
    const first = await cairn(["ingest", "--db", db, file]);
    assertEquals(first.code, 0, first.stderr);
    const id = first.stdout.trim();
    for (const format of ["capture", "recording_v1"]) {
      const out = `${dir}/out.${format}.json`;
      const exp = await cairn(["export", "--db", db, id, "--format", format, "-o", out]);
      assertEquals(exp.code, 0, exp.stderr);
      const again = await cairn(["ingest", "--db", db, out]);
      assertEquals(again.code, 0, again.stderr);
      const types = (await readSession(db, again.stdout.trim())).map((e) => e.type);
      assertEquals(types.filter((t) => /Ended$/.test(t)), [], format);
    }
  });
});

Deno.test("cairn ingest reads a file saved with a UTF-8 byte order mark as the same file without", async () => {
  await withTemp(async (dir) => {
    const db = `${dir}/c.db`;
    // the inventory example and its screens, so that the copy with a mark sits beside them
    await Deno.mkdir(`${dir}/inventory`);
    for await (const e of Deno.readDir(`${ROOT}examples/inventory`)) {
      await Deno.copyFile(`${ROOT}examples/inventory/${e.name}`, `${dir}/inventory/${e.name}`);
    }
    const plain = [
      `${ROOT}../shared/corpus/chrome-recorder/nightwatch_order-a-coffee.json`,
      `${ROOT}examples/inventory.capture.json`,
    ];
    const marked = await Promise.all(plain.map(async (file) => {
      const path = `${dir}/${file.split("/").at(-1)}`;
      await Deno.writeFile(path, new Uint8Array([0xef, 0xbb, 0xbf, ...await Deno.readFile(file)]));
      return path;
    }));
    const r = await cairn(["ingest", "--db", db, ...plain, ...marked]);
    assertEquals(r.code, 0, r.stderr);
    const ids = r.stdout.trim().split("\n");
    assertEquals(ids.length, 4);
    for (let i = 0; i < 2; i++) {
      assertEquals(
        comparableEvents(await readSession(db, ids[i + 2]!)),
        comparableEvents(await readSession(db, ids[i]!)),
      );
    }
  });
});

Deno.test("cairn ingest --format events names a file that is not one event per line, the inventory example", async () => {
  await withTemp(async (dir) => {
    const db = `${dir}/c.db`;
    SqliteEventStore.open(db).close();
    const file = `${ROOT}examples/inventory.capture.json`;
    const r = await cairn(["ingest", "--db", db, "--format", "events", file]);
    assertEquals(r.code, 2, r.stderr);
    assertEquals(
      r.stderr,
      `cairn ingest: ${file}: line 1: not a complete JSON event (an events file holds one JSON ` +
        "event per line)\n",
    );
    assertEquals(await headOf(db), 0);
  });
});

/** A capture whose one action's `toolParams.a` holds arrays nested so that the file is `levels` deep. */
function nestedCapture(levels: number): string {
  const arrays = levels - 4; // the file, actions, the action, toolParams
  return `{"format":"cairn.capture/v1","platform":"android","actions":[{"action":"tap",` +
    `"toolParams":{"a":${"[".repeat(arrays)}${"]".repeat(arrays)}}}]}`;
}

Deno.test("cairn ingest takes JSON nested to the limit, and its exports ingest again", async () => {
  await withTemp(async (dir) => {
    const db = `${dir}/c.db`;
    await Deno.writeTextFile(`${dir}/limit.json`, nestedCapture(1000));
    const first = await cairn(["ingest", "--db", db, `${dir}/limit.json`]);
    assertEquals(first.code, 0, first.stderr);
    const id = first.stdout.trim();
    for (const format of ["capture", "events"]) {
      const out = `${dir}/out.${format}`;
      const exp = await cairn(["export", "--db", db, id, "--format", format, "-o", out]);
      assertEquals(exp.code, 0, exp.stderr);
      const again = await cairn(["ingest", "--db", db, out]);
      assertEquals(again.code, 0, again.stderr);
      assertEquals(
        comparableEvents(await readSession(db, again.stdout.trim())),
        comparableEvents(await readSession(db, id)),
      );
    }
  });
});

/**
 * The inventory example copied into `dir` with a screenshot for its first action (`shot.png`, a
 * copy of docs/timeline_sheet.png) and `edit` applied; returns the capture's path.
 */
async function inventoryCopy(dir: string, edit: (dir: string) => Promise<void>): Promise<string> {
  await Deno.mkdir(`${dir}/inventory`);
  for await (const e of Deno.readDir(`${ROOT}examples/inventory`)) {
    await Deno.copyFile(`${ROOT}examples/inventory/${e.name}`, `${dir}/inventory/${e.name}`);
  }
  await Deno.copyFile(`${ROOT}docs/timeline_sheet.png`, `${dir}/shot.png`);
  const capture = JSON.parse(await Deno.readTextFile(`${ROOT}examples/inventory.capture.json`));
  capture.actions[0].screenshot = "shot.png";
  await Deno.writeTextFile(`${dir}/inventory.capture.json`, JSON.stringify(capture, null, 2));
  await edit(dir);
  return `${dir}/inventory.capture.json`;
}

const SCREEN_EDITS: { name: string; edit: (dir: string) => Promise<void>; expect?: RegExp }[] = [
  { name: "as it is (a real PNG screenshot)", edit: () => Promise.resolve() },
  {
    name: "a text file saved as its PNG screenshot",
    edit: (dir) => Deno.writeTextFile(`${dir}/shot.png`, "not a png\n"),
    expect: /: actions\.0\.screenshot: not a PNG image /,
  },
  {
    name: "a hierarchy file cut short",
    edit: async (dir) => {
      const path = `${dir}/inventory/03_password.xml`;
      await Deno.writeTextFile(path, (await Deno.readTextFile(path)).slice(0, 900));
    },
    expect: /: actions\.\d+\.viewHierarchy\.file: Unterminated .* at line \d+, column \d+$/,
  },
];

for (const c of SCREEN_EDITS) {
  Deno.test(`cairn ingest checks the screens of the inventory example: ${c.name}`, async () => {
    await withTemp(async (dir) => {
      const db = `${dir}/c.db`;
      SqliteEventStore.open(db).close();
      const r = await cairn(["ingest", "--db", db, await inventoryCopy(dir, c.edit)]);
      if (!c.expect) {
        assertEquals(r.code, 0, r.stderr);
        assert(await headOf(db) > 0);
        return;
      }
      assertEquals(r.code, 2, r.stderr);
      assertEquals(r.stderr.trim().split("\n").length, 1, r.stderr);
      assertMatch(r.stderr.trim(), c.expect);
      assertEquals(await headOf(db), 0);
    });
  });
}

const BAD_CAPTURE = `{
  "format": "cairn.capture/v1",
  "platform": "android",
  "actions": [{ "action": "tapp", "coordinates": { "x": 1, "y": "2" } }]
}`;

/** A text as UTF-16 LE with its byte order mark. */
function utf16le(text: string): Uint8Array {
  const out = [0xff, 0xfe];
  for (let i = 0; i < text.length; i++) {
    out.push(text.charCodeAt(i) & 0xff, text.charCodeAt(i) >> 8);
  }
  return new Uint8Array(out);
}

const CASES: { name: string; file: string; text: string | Uint8Array; expect: RegExp }[] = [
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
    name: "an ActionCompleted for an action never performed",
    file: "orphan.jsonl",
    text: `{"type":"SessionStarted","data":{"sessionId":"x","mode":"agent","platform":"web"}}\n` +
      `{"type":"ActionCompleted","data":{"actionId":"a9","ok":true,"durationMs":1}}\n`,
    expect:
      /orphan\.jsonl: line 2: ActionCompleted for action "a9", which no earlier ActionPerformed started$/,
  },
  {
    name: "an event after SessionEnded",
    file: "late.jsonl",
    text: `{"type":"SessionStarted","data":{"sessionId":"x","mode":"agent","platform":"web"}}\n` +
      `{"type":"SessionEnded","data":{"reason":"completed"}}\n` +
      `{"type":"StepStarted","data":{"index":0,"text":"late"}}\n`,
    expect: /late\.jsonl: line 3: StepStarted after SessionEnded$/,
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
    name: "an events file with an unknown data field",
    file: "typo.jsonl",
    text: `{"type":"SessionStarted","data":{"sessionId":"x","mode":"agent","platform":"web",` +
      `"promt":"typo"}}\n{"type":"SessionEnded","data":{"reason":"completed"}}\n`,
    expect: /typo\.jsonl: line 1: data\.promt: unknown field \(not in the SessionStarted schema\)$/,
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
    name: "a Latin-1 file",
    file: "latin1.json",
    text: Uint8Array.from(
      '{"format":"cairn.capture/v1","platform":"android","prompt":"café","actions":[]}',
      (c) => c.charCodeAt(0),
    ),
    expect:
      /latin1\.json: byte offset 63 \(line 1\): not UTF-8 \(byte 0xe9\); save the file as UTF-8$/,
  },
  {
    name: "a UTF-16 file",
    file: "utf16.json",
    text: utf16le(await Deno.readTextFile(SAMPLE)),
    expect:
      /utf16\.json: UTF-16 is not supported \(byte order mark FF FE\); save the file as UTF-8$/,
  },
  {
    name: "JSON nested deeper than the limit",
    file: "deep.json",
    text: nestedCapture(10_000),
    expect: /deep\.json: actions\.0\.toolParams\.a\.0…: nested deeper than 1000 levels$/,
  },
  {
    name: "a timestamp past the last date",
    file: "late.json",
    text: JSON.stringify({
      format: "cairn.capture/v1",
      platform: "android",
      actions: [{ action: "tap", timestamp: 8640000000000001 }],
    }),
    expect:
      /late\.json: actions\.0\.timestamp: expected epoch milliseconds from 0 to 253402300799999 /,
  },
  {
    name: "a timestamp on 30 February",
    file: "feb30.json",
    text: JSON.stringify({
      format: "cairn.capture/v1",
      platform: "android",
      startedAt: "2026-02-30T00:00:00Z",
      actions: [],
    }),
    expect: /feb30\.json: startedAt: expected an ISO 8601 date-time with seconds and a time zone /,
  },
  {
    name: "an events file whose recordedAt is not a date-time",
    file: "garbage-time.jsonl",
    text: `{"type":"SessionStarted","data":{"sessionId":"x","mode":"agent","platform":"web"},` +
      `"meta":{"recordedAt":"garbage"}}\n{"type":"SessionEnded","data":{"reason":"completed"}}\n`,
    expect: /garbage-time\.jsonl: line 1: meta\.recordedAt: expected an ISO 8601 date-time /,
  },
  {
    name: "a Chrome Recorder viewport a capture could not hold",
    file: "viewport.json",
    text: JSON.stringify({
      title: "t",
      steps: [{ type: "setViewport", width: -5, height: 0 }, {
        type: "navigate",
        url: "https://a.test/",
      }],
    }),
    expect:
      /viewport\.json: steps\.0\.width: Too small: expected number to be >0; steps\.0\.height: /,
  },
  {
    name: "a hierarchy that does not parse",
    file: "unclosed.json",
    text: JSON.stringify({
      format: "cairn.capture/v1",
      platform: "android",
      actions: [{
        action: "tap",
        viewHierarchy: '<hierarchy><node bounds="[0,0][10,10]"><unclosed',
      }],
    }),
    expect:
      /unclosed\.json: actions\.0\.viewHierarchy: Unterminated start tag <unclosed> at line 1, column 40$/,
  },
  {
    name: "an XML hierarchy labelled chrome",
    file: "label.json",
    text: JSON.stringify({
      format: "cairn.capture/v1",
      platform: "web",
      actions: [{
        action: "tap",
        format: "chrome",
        viewHierarchy: '<hierarchy><node bounds="[0,0][10,10]"/></hierarchy>',
      }],
    }),
    expect:
      /label\.json: actions\.0\.viewHierarchy: Invalid Chrome hierarchy JSON at line 1, column 1: /,
  },
  {
    name: "an XML hierarchy nested 20,000 deep",
    file: "deepxml.json",
    text: JSON.stringify({
      format: "cairn.capture/v1",
      platform: "android",
      actions: [{
        action: "tap",
        viewHierarchy: "<hierarchy>" + '<node bounds="[0,0][1,1]">'.repeat(20_000) +
          "</node>".repeat(20_000) + "</hierarchy>",
      }],
    }),
    expect:
      /deepxml\.json: actions\.0\.viewHierarchy: Elements nested deeper than 1000 levels at line 1, column \d+$/,
  },
  {
    name: "a screenshot that is not an image of its type",
    file: "fakeshot.json",
    text: JSON.stringify({
      format: "cairn.capture/v1",
      platform: "android",
      actions: [{
        action: "tap",
        viewHierarchy: '<hierarchy><node bounds="[0,0][10,10]"/></hierarchy>',
        screenshot: `data:image/png;base64,${btoa("not a png\n")}`,
      }],
    }),
    expect:
      /fakeshot\.json: actions\.0\.screenshot: not a PNG image \(its bytes do not start with the PNG signature\)$/,
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
  {
    name: "an iOS hierarchy in an Android capture",
    file: "ios_in_android.json",
    text: JSON.stringify({
      format: "cairn.capture/v1",
      platform: "android",
      actions: [{
        action: "tap",
        coordinates: { x: 10, y: 10 },
        viewHierarchy: '<?xml version="1.0"?><AppiumAUT><XCUIElementTypeApplication ' +
          'type="XCUIElementTypeApplication" x="0" y="0" width="390" height="844"/></AppiumAUT>',
      }],
    }),
    expect:
      /ios_in_android\.json: actions\.0\.viewHierarchy: this xcuitest hierarchy is an iOS screen, but the capture's platform is android$/,
  },
  {
    name: "an iOS Maestro hierarchy in an Android capture",
    file: "maestro_ios_in_android.json",
    text: JSON.stringify({
      format: "cairn.capture/v1",
      platform: "android",
      actions: [{
        action: "tap",
        coordinates: { x: 10, y: 10 },
        viewHierarchy: {
          attributes: { bounds: "[0,0][390,844]" },
          children: [{ attributes: { text: "Go", bounds: "[0,0][100,40]" }, children: [] }],
        },
      }],
    }),
    expect:
      /maestro_ios_in_android\.json: actions\.0\.viewHierarchy: this maestro hierarchy is an iOS screen, but the capture's platform is android$/,
  },
  {
    name: "an element box beyond the largest screen",
    file: "huge_box.json",
    text: JSON.stringify({
      format: "cairn.capture/v1",
      platform: "android",
      actions: [{
        action: "tap",
        coordinates: { x: 10, y: 10 },
        viewHierarchy: '<hierarchy><node class="android.widget.Button" text="Go" ' +
          'bounds="[0,0][99999999999,100]"/></hierarchy>',
      }],
    }),
    expect:
      /huge_box\.json: actions\.0\.viewHierarchy: element android\.widget\.Button "Go" has bounds beyond ±33,554,431 px/,
  },
  {
    name: "an Android screen where no element has a size",
    file: "no_bounds.json",
    text: JSON.stringify({
      format: "cairn.capture/v1",
      platform: "android",
      actions: [{
        action: "tap",
        coordinates: { x: 10, y: 10 },
        viewHierarchy: '<hierarchy><node class="android.widget.Button" text="Go"/></hierarchy>',
      }],
    }),
    expect: /no_bounds\.json: actions\.0\.viewHierarchy: no element has a size/,
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
      if (typeof text === "string") await Deno.writeTextFile(`${dir}/${c.file}`, text);
      else await Deno.writeFile(`${dir}/${c.file}`, text);
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

Deno.test("cairn export --format recording_v1 refuses a device session rather than write it as web", async () => {
  await withTemp(async (dir) => {
    const db = `${dir}/c.db`;
    const ing = await cairn(["ingest", "--db", db, `${ROOT}examples/inventory.capture.json`]);
    assertEquals(ing.code, 0, ing.stderr);
    const id = ing.stdout.trim();
    const r = await cairn(["export", "--db", db, id, "--format", "recording_v1"]);
    assertEquals([r.code, r.stdout], [2, ""]);
    assertEquals(r.stderr.trim().split("\n").length, 1, r.stderr);
    assertMatch(r.stderr, /recording_v1 holds web sessions and .* is android/);
    // the formats that carry a device session still export it
    const cap = await cairn(["export", "--db", db, id, "--format", "capture"]);
    assertEquals(cap.code, 0, cap.stderr);
  });
});
