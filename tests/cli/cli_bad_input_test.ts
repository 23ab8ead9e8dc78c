/**
 * Bad input at the CLI as a user meets it (`deno run -A main.ts …` in a child process): a
 * malformed YAML trail or a trail with a wrong schema given to `cairn replay` and
 * `cairn validate --trail`, a malformed Maestro flow (after a good one is shown to be read), a
 * Maestro flow tagged `ios` (Cairn drives no iOS device; the README says so),
 * and a malformed Chrome DevTools Recorder file given to
 * `cairn ingest` (detected, and with `--format chrome-recorder`). Each ends in exit code 2,
 * exactly one line on stderr naming the file and the field or line, and nothing appended to a
 * store that already holds a session; the same for a point beyond Chromium's largest layout size
 * in a capture, an events file, a Recorder flow or a synthetic action. And a `--db` that names a
 * directory, refused by every command that takes `--db` with one line naming it, exit code 2,
 * nothing written.
 *
 * Every child runs with `CAIRN_CHROMIUM` pointing at a binary that does not exist, so a
 * command that reached its browser launch would fail with "Cannot launch Chromium" (exit 1)
 * instead: the trail must be read and rejected before any browser starts. The control tests
 * show that a good trail does reach that launch.
 */
import { assert, assertEquals, assertMatch } from "../_fixtures/assert.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { ingestFile } from "../../cli/ingest.ts";
import { cairn, type CliOutput, headOf, pool, ROOT } from "../_fixtures/cli_run.ts";
import { escapeRegex } from "../../engine/trail/regex.ts";

/** The session every store holds before a case runs. */
const SEED = `${ROOT}examples/web_checkout.capture.json`;
const GOOD_TRAIL = `${ROOT}tests/testdata/playback/signup.trail.yaml`;
const GOOD_RECORDER = `${ROOT}tests/testdata/playback/signin.recorder.json`;
const NO_BROWSER = "/nonexistent/cairn-test-chromium";
/** Subprocesses at a time (the machines have 2 cores). */
const CONCURRENCY = 2;

/** `cairn ARGS…` with a browser that cannot launch. */
const run = (args: string[]) => cairn(args, { CAIRN_CHROMIUM: NO_BROWSER });

/** A fresh store holding one session (SEED); returns the session id. */
async function seededStore(db: string): Promise<string> {
  const store = SqliteEventStore.open(db);
  try {
    return (await ingestFile(store, SEED)).sessionId;
  } finally {
    store.close();
  }
}

interface Case {
  name: string;
  /** File name in the temp dir. */
  file: string;
  text: string | (() => Promise<string>);
  /** What follows `FILE` on the stderr line: the line and column, or the field. */
  where: RegExp;
}

interface Run {
  before: number;
  after: number;
  path: string;
  out: CliOutput;
}

/**
 * Writes each case's file next to a seeded store in its own temp dir, runs `argv(path,
 * session)` (at most CONCURRENCY at a time), and reads the store's head before and after.
 */
async function runCases(
  cases: readonly Case[],
  argv: (path: string, db: string, session: string) => string[],
): Promise<Run[]> {
  return await pool(cases, CONCURRENCY, async (c) => {
    const dir = await Deno.makeTempDir({ prefix: "cairn_bad_input_" });
    try {
      const db = `${dir}/c.db`;
      const session = await seededStore(db);
      const path = `${dir}/${c.file}`;
      await Deno.writeTextFile(path, typeof c.text === "string" ? c.text : await c.text());
      const before = await headOf(db);
      const out = await run(argv(path, db, session));
      return { before, after: await headOf(db), path, out };
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

/** Exit 2, nothing on stdout, exactly one stderr line naming the file and where, nothing appended. */
function assertRejected(command: string, c: Case, run: Run): void {
  const { out } = run;
  const shown = `exit ${out.code}\nstdout: ${JSON.stringify(out.stdout)}\nstderr: ${
    JSON.stringify(out.stderr)
  }`;
  assertEquals(out.code, 2, shown);
  assertEquals(out.stdout, "", shown);
  const lines = out.stderr.split("\n");
  assertEquals(lines.length, 2, `expected exactly one stderr line; ${shown}`);
  assertEquals(lines[1], "", shown);
  const line = lines[0]!;
  assert(!/chromium|browser/i.test(line), `a browser launch was attempted; ${shown}`);
  assertMatch(
    line,
    new RegExp(`^cairn ${command}: ${escapeRegex(run.path)}${c.where.source}`),
    `the line does not name the file and ${c.where}; ${shown}`,
  );
  assert(run.before > 0, "the store holds no session before the run");
  assertEquals(run.after, run.before, `events were appended; ${shown}`);
}

const TRAIL_CASES: Case[] = [
  {
    name: "malformed YAML: an unclosed flow mapping",
    file: "unclosed.trail.yaml",
    text: "config:\n  id: bad\n  platform: web\ntrail:\n  - step: Add one item\n    recording:\n" +
      "      - tap:\n          selector: { id: add-item\n",
    where: /:\d+:\d+: /,
  },
  {
    name: "malformed YAML: bad indentation",
    file: "indent.trail.yaml",
    text: "config:\n  id: bad\n  platform: web\ntrail:\n  - step: Add one item\n    recording:\n" +
      "      - tap:\n          selector: { id: a }\n     - tap:\n         selector: { id: b }\n" +
      "  - step: Then\n    recording:\n      - tap:\n          selector: { id: c }\n",
    where: /:9:\d+: /,
  },
  {
    name: "wrong schema: a step with an unknown action key",
    file: "unknown-action.trail.yaml",
    text: "config:\n  id: bad\n  platform: web\ntrail:\n  - step: Add one item\n    recording:\n" +
      "      - tap:\n          selector: { id: add-item }\n      - teleport:\n" +
      "          selector: { id: add-item }\n",
    where: /: trail\.0\.recording\.1: .*teleport/,
  },
  {
    name: "wrong schema: a field of the wrong type",
    file: "wrong-type.trail.yaml",
    text: "config:\n  id: bad\n  platform: 42\ntrail:\n  - step: Add one item\n    recording:\n" +
      "      - tap:\n          selector: { id: add-item }\n",
    where: /: config\.platform: /,
  },
  {
    name: "wrong schema: a heuristics version this build does not know",
    file: "heuristics-v9.trail.yaml",
    text:
      "config:\n  id: bad\n  platform: web\n  heuristics: v9\ntrail:\n  - step: Add one item\n" +
      "    recording:\n      - tap:\n          selector: { id: add-item }\n",
    where: /: config\.heuristics: unknown heuristics version "v9" \(known: v0, v1, v2, v3\)$/,
  },
  {
    name: "a trail followed by a second YAML document",
    file: "two-docs.trail.yaml",
    text: "config:\n  id: bad\n  platform: web\ntrail:\n  - step: Add one item\n    recording:\n" +
      "      - tap:\n          selector: { id: add-item }\n---\ntrail: []\n",
    where: /:9:1: a second YAML document \(after ---\): a trail is one document$/,
  },
  {
    name: "a template reading a key nothing sets",
    file: "unset-key.trail.yaml",
    text: "config:\n  id: bad\n  platform: web\ntrail:\n  - step: Add one item\n    recording:\n" +
      '      - type: { selector: { id: qty }, text: "{{howMany}}" }\n',
    where:
      /: trail\.0\.recording\.0\.type\.text: reads \{\{howMany\}\}, which nothing sets: .* --memory does not give it$/,
  },
];

/** A Maestro flow with a command of two keys on line 5: replay reads flows, validate trails only. */
const BAD_MAESTRO: Case = {
  name: "a Maestro flow with a command of two keys",
  file: "bad.maestro.yaml",
  text: "appId: com.example\n---\n- launchApp\n- tapOn: Email\n- tapOn: a\n  back: 1\n",
  where: /:5:3: command 3: expected a command name or a map with one command$/,
};

const RECORDER_CASES: Case[] = [
  {
    name: "a Chrome Recorder step with an unknown type",
    file: "unknown-step.recorder.json",
    text: async () => {
      const flow = JSON.parse(await Deno.readTextFile(GOOD_RECORDER)) as {
        steps: { type: string }[];
      };
      flow.steps[2]!.type = "teleport";
      return JSON.stringify(flow, null, 2);
    },
    where: /: steps\.2\.type: /,
  },
  {
    name: "a truncated Chrome Recorder file",
    file: "cut.recorder.json",
    text: async () => {
      const text = await Deno.readTextFile(GOOD_RECORDER);
      return text.slice(0, Math.floor(text.length / 2));
    },
    where: /: line \d+, column \d+: /,
  },
];

Deno.test("cairn replay FILE rejects a bad trail before any browser launch, appending nothing", async (t) => {
  const runs = await runCases(TRAIL_CASES, (path, db) => ["replay", "--db", db, path]);
  for (const [i, c] of TRAIL_CASES.entries()) {
    await t.step(c.name, () => assertRejected("replay", c, runs[i]!));
  }
});

Deno.test("cairn validate --trail FILE rejects a bad trail before any browser launch, appending nothing", async (t) => {
  const runs = await runCases(
    TRAIL_CASES,
    (path, db, session) => ["validate", "--db", db, "--trail", path, session],
  );
  for (const [i, c] of TRAIL_CASES.entries()) {
    await t.step(c.name, () => assertRejected("validate", c, runs[i]!));
  }
});

Deno.test("cairn replay reads a Maestro flow (appId header, ---, commands) and names the line of a bad command", async () => {
  const flow = `${ROOT}../shared/corpus/maestro/demo_app_fill_form.yaml`;
  // the flow is read and played on Android: the start fails on a closed Appium port, not on YAML
  const good = await run(["replay", "--db", ":memory:", "--appium", "http://127.0.0.1:9/", flow]);
  assertEquals(good.code, 1, good.stderr);
  assertMatch(good.stderr, /^cairn replay: Cannot start an Android session: /);
  const [bad] = await runCases([BAD_MAESTRO], (path, db) => ["replay", "--db", db, path]);
  assertRejected("replay", BAD_MAESTRO, bad!);
  // validate --trail reads trails only: the --- line is where the flow stops being one
  const asTrail = {
    ...BAD_MAESTRO,
    where: /:2:1: a Maestro flow \(appId, ---, commands\), not a trail/,
  };
  const [validated] = await runCases(
    [asTrail],
    (path, db, session) => ["validate", "--db", db, "--trail", path, session],
  );
  assertRejected("validate", asTrail, validated!);
});

Deno.test("cairn replay refuses a Maestro flow tagged ios (exit 2, no browser), as the README says", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_ios_flow_" });
  try {
    const flow = `${dir}/ios_flow.yaml`;
    await Deno.writeTextFile(
      flow,
      "appId: com.example.app\ntags:\n  - ios\n---\n- launchApp\n- tapOn: Log in\n",
    );
    const r = await run(["replay", "--db", ":memory:", flow]);
    assertEquals(r.code, 2, r.stderr);
    const message = "an ios plan cannot be replayed: Cairn drives Chromium and Android";
    assertEquals(r.stderr, `cairn replay: ${flow}: ${message}\n`);
    // The docs say what the command does: the replay page's Maestro section names no iOS replay,
    // and the page and the README's Limits say an iOS plan is refused, with the message above.
    const readme = await Deno.readTextFile(`${ROOT}README.md`);
    const playback = await Deno.readTextFile(`${ROOT}docs/replay.md`);
    const section = (title: string) => {
      const start = readme.indexOf(title);
      assert(start >= 0, title);
      const end = readme.indexOf("\n## ", start + 1);
      return readme.slice(start, end < 0 ? undefined : end);
    };
    const maestro = playback.slice(playback.indexOf("\n### Maestro flows\n") + 20);
    const maestroPara = maestro.slice(0, maestro.indexOf("\n\n", 1)).replaceAll("\n", " ");
    assert(!/played on Android \(iOS when/.test(maestroPara), maestroPara);
    assert(maestroPara.includes("does not replay"), maestroPara);
    assert(
      playback.replaceAll("\n", " ").includes(`FILE: ${message}`),
      "the replay page names the message",
    );
    const limits = section("\n## Limits\n").replaceAll(/\s+/g, " ");
    assert(/no iOS driver, so nothing is blazed or replayed on iOS/.test(limits), limits);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn ingest rejects a malformed Chrome Recorder file, appending nothing", async (t) => {
  // A good flow first: a bad file anywhere in the batch stores nothing at all.
  const runs = await runCases(
    RECORDER_CASES,
    (path, db) => ["ingest", "--db", db, GOOD_RECORDER, path],
  );
  for (const [i, c] of RECORDER_CASES.entries()) {
    await t.step(c.name, () => assertRejected("ingest", c, runs[i]!));
  }
});

Deno.test("cairn ingest --format chrome-recorder rejects a malformed Chrome Recorder file, appending nothing", async (t) => {
  const runs = await runCases(
    RECORDER_CASES,
    (path, db) => ["ingest", "--db", db, "--format", "chrome-recorder", GOOD_RECORDER, path],
  );
  for (const [i, c] of RECORDER_CASES.entries()) {
    await t.step(c.name, () => assertRejected("ingest", c, runs[i]!));
  }
});

Deno.test("control: a good trail reaches the (missing) browser in replay and validate", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_bad_input_" });
  try {
    const db = `${dir}/c.db`;
    const session = await seededStore(db);
    // validate refuses a trail whose config.id names another session: this one names none
    const trail = `${dir}/good.trail.yaml`;
    await Deno.writeTextFile(
      trail,
      (await Deno.readTextFile(GOOD_TRAIL)).replace(/^ {2}id: .*\n/m, ""),
    );
    const [replay, validate] = await pool(
      [
        ["replay", "--db", db, GOOD_TRAIL, "--url", "http://127.0.0.1:9/"],
        ["validate", "--db", db, "--trail", trail, session],
      ],
      CONCURRENCY,
      run,
    );
    for (const r of [replay!, validate!]) {
      assertEquals(r.code, 1, r.stderr);
      assertMatch(r.stderr, new RegExp(`Cannot launch Chromium: ${escapeRegex(NO_BROWSER)}`));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Files whose one point lies beyond Chromium's largest layout size (±33,554,431 CSS px). */
const POINT_CASES: Case[] = [
  {
    name: "a capture tap at x = 1e300",
    file: "far.capture.json",
    text: JSON.stringify({
      format: "cairn.capture/v1",
      platform: "web",
      actions: [{ action: "navigate", url: "http://127.0.0.1/" }, {
        action: "tap",
        coordinates: { x: 1e300, y: 0 },
      }],
    }),
    where: /: actions\.1\.coordinates\.x: expected a coordinate from -33554431 to 33554431/,
  },
  {
    name: "an events file's ActionPerformed.point.y = -1e20",
    file: "far.events.jsonl",
    text: [
      { type: "SessionStarted", data: { sessionId: "f", mode: "agent", platform: "web" } },
      {
        type: "ActionPerformed",
        data: { actionId: "a1", kind: "tap", point: { x: 4, y: -1e20 }, source: "agent" },
      },
    ].map((e) => JSON.stringify(e)).join("\n") + "\n",
    where: /: line 2: data\.point\.y: expected a coordinate from -33554431 to 33554431/,
  },
  {
    // the capture schema bounds points only: ingest checks the events' geometry after mapping
    name: "a capture whose viewport is 1e300 wide",
    file: "wide.capture.json",
    text: JSON.stringify({
      format: "cairn.capture/v1",
      platform: "web",
      viewport: { width: 1e300, height: 720 },
      actions: [{ action: "navigate", url: "http://127.0.0.1/" }],
    }),
    where: /: event 0 \(SessionStarted\): data\.viewport\.width: expected a coordinate from /,
  },
  {
    name: "a Chrome Recorder click offsetX = 4e7",
    file: "far.recorder.json",
    text: async () => {
      const flow = JSON.parse(await Deno.readTextFile(GOOD_RECORDER));
      flow.steps[2].offsetX = 4e7;
      return JSON.stringify(flow);
    },
    where: /: steps\.2\.offsetX: expected a coordinate from -33554431 to 33554431/,
  },
];

Deno.test("cairn ingest and optimize refuse a point off any page, naming the file and field, appending nothing", async (t) => {
  for (const command of ["ingest", "optimize"]) {
    const runs = await runCases(POINT_CASES, (path, db) => [command, "--db", db, path]);
    for (const [i, c] of POINT_CASES.entries()) {
      await t.step(`${command}: ${c.name}`, () => assertRejected(command, c, runs[i]!));
    }
  }
});

Deno.test("cairn replay refuses a point off any page before any browser launch", async (t) => {
  const cases: Case[] = [
    POINT_CASES.find((c) => c.file === "far.recorder.json")!,
    {
      name: "a synthetic click at x = 1e300",
      file: "far.actions.json",
      text: JSON.stringify([{ action: "click", x: 1e300, y: 3 }]),
      where: /: 0\.x: expected a coordinate from -33554431 to 33554431/,
    },
  ];
  const runs = await runCases(cases, (path, db) => ["replay", "--db", db, path]);
  for (const [i, c] of cases.entries()) {
    await t.step(c.name, () => assertRejected("replay", c, runs[i]!));
  }
});

/** For each command that takes `--db`: arguments that reach its store (with a good rest). */
const DB_COMMANDS: Record<string, string[]> = {
  ingest: ["ingest", SEED],
  optimize: ["optimize", SEED],
  reproject: ["reproject", "--all"],
  export: ["export", "x"],
  history: ["history"],
  show: ["show", "x"],
  serve: ["serve", "--port", "0"],
  blaze: ["blaze", "start", "--url", "http://127.0.0.1:9/", "--prompt", "p"],
  record: ["record", "--url", "http://127.0.0.1:9/", "--prompt", "p"],
  mcp: ["mcp"],
  replay: ["replay", GOOD_TRAIL],
  validate: ["validate", "x"],
};

Deno.test("every command that takes --db refuses a directory by name, exit 2, writing nothing", async () => {
  const { COMMANDS } = await import("../../main.ts");
  const withDb = [];
  for (const [name, c] of Object.entries(COMMANDS)) {
    if ((await c.load()).spec.flags?.db) withDb.push(name);
  }
  assertEquals(Object.keys(DB_COMMANDS).sort(), withDb.sort(), "a command with --db untested");
  const parent = await Deno.makeTempDir({ prefix: "cairn_bad_input_" });
  try {
    const dir = `${parent}/logs`;
    await Deno.mkdir(dir);
    const argvs = [...Object.values(DB_COMMANDS), ["blaze", "snapshot"]];
    const outs = await pool(argvs, CONCURRENCY, (argv) => run([...argv, "--db", dir]));
    for (const [i, argv] of argvs.entries()) {
      const r = outs[i]!;
      assertEquals(
        [r.code, r.stderr],
        [
          2,
          `cairn ${
            argv[0]
          }: ${dir}: is a directory, not an event log file (name a file, e.g. ${dir}/cairn.db)\n`,
        ],
        argv.join(" "),
      );
    }
    // nothing written in the folder or beside it (no database, no blaze.json)
    assertEquals(await Array.fromAsync(Deno.readDir(parent), (e) => e.name), ["logs"]);
    assertEquals(await Array.fromAsync(Deno.readDir(dir)), []);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("a folder with nothing to play (replay plays a folder as a suite) or where a file belongs (optimize): exit 2, one line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-folder-input-" });
  try {
    const replay = await run(["replay", dir, "--db", `${dir}/c.db`]);
    assertEquals(replay.code, 2, replay.stderr);
    assertEquals(
      replay.stderr.trim(),
      `cairn replay: ${dir}: no trail, flow or recording in the folder`,
    );
    const optimize = await run(["optimize", dir, "--db", `${dir}/c.db`]);
    assertEquals(optimize.code, 2, optimize.stderr);
    assertEquals(
      optimize.stderr.trim(),
      `cairn optimize: ${dir}: is a folder; name a capture file`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
