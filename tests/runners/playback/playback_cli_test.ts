/**
 * `cairn replay` end to end: a real process, a trail file, Chromium, a SQLite file. The trail
 * exercises templates from memory, `readText … storeAs`, `assertText` over an expression,
 * `assertVisible`, and a strict step that fails rather than heals.
 */
import { servePlaybackPages } from "../../_fixtures/playback_server.ts";
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import type { PlaybackReport } from "../../../engine/playback/report.ts";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;
const TRAIL = new URL("../../testdata/playback/signup.trail.yaml", import.meta.url).pathname;

async function cairn(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", MAIN, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("cairn replay plays a trail: memory templates, storeAs, assertions, strict mode fails instead of healing", async () => {
  const server = servePlaybackPages();
  const dir = await Deno.makeTempDir({ prefix: "cairn-replay-cli-" });
  try {
    server.setVariant("notestid");
    const res = await cairn([
      "replay",
      TRAIL,
      "--url",
      server.url + "app.html",
      "--db",
      `${dir}/cairn.db`,
      "--screenshots",
      `${dir}/shots`,
      "--json",
    ]);
    assertEquals(res.code, 1, res.stderr);
    const report = JSON.parse(res.stdout) as PlaybackReport;
    assertEquals(report.source, "trail");
    assertEquals(report.results.map((r) => [r.action, r.status]), [
      ["navigate", "ok"],
      ["type", "healed"],
      ["read_text", "ok"],
      ["click", "ok"],
      ["assert_text", "ok"],
      ["assert_visible", "ok"],
      ["click", "failed"],
    ]);
    assertEquals(report.results[1]!.selector_used, "aria_label");
    assertEquals(report.results[2]!.value, "5");
    assertEquals(report.results[4]!.value, "6");
    assertEquals(
      report.results[6]!.tried?.length,
      1,
      "strict mode tries the primary selector only",
    );
    assert((await Deno.stat(report.results[6]!.screenshot_path!)).isFile);

    const table = await cairn([
      "replay",
      TRAIL,
      "--url",
      server.url + "app.html",
      "--db",
      `${dir}/cairn.db`,
      "--screenshots",
      `${dir}/shots`,
    ]);
    assertEquals(table.code, 1);
    assertStringIncludes(table.stdout, "healed");
    // The header counts the trail's 6 actions, as the rows number them; the page opened first
    // is told apart (it is not one of them).
    assertMatchLine(
      table.stdout,
      /^Playback \S+ {2}failed {2}6 actions: 4 ok · 1 healed · 1 failed · 0 skipped; \+ page opened first: ok {2}\(\d+\.\d s\)$/m,
    );
    // The trail's own actions keep their numbers (0–5); the page --url opens first is "+".
    assertMatchLine(table.stdout, /^\s+\+\s+ok\s+navigate http/m);
    assertMatchLine(table.stdout, /^\s+0\s+healed\s+type \[data-testid=email-input\]/m);
    assertMatchLine(table.stdout, /^\s+5\s+failed\s+click \[data-testid=submit-btn\]/m);

    // A screenshot that cannot be written (the folder is a file) is named, not lost.
    await Deno.writeTextFile(`${dir}/not-a-folder`, "");
    const unwritable = await cairn([
      "replay",
      TRAIL,
      "--url",
      server.url + "app.html",
      "--db",
      `${dir}/cairn.db`,
      "--screenshots",
      `${dir}/not-a-folder`,
    ]);
    assertEquals(unwritable.code, 1, unwritable.stderr);
    assertMatchLine(
      unwritable.stdout,
      /^warning: action 5: screenshot not written to .*not-a-folder\/pb-[^ ]+\/failed-5\.png: .*stored as blob [0-9a-f]{64}\)$/m,
    );

    server.setVariant("");
    const ok = await cairn([
      "replay",
      TRAIL,
      "--url",
      server.url + "app.html",
      "--db",
      `${dir}/cairn.db`,
      "--json",
    ]);
    assertEquals(ok.code, 0, ok.stdout);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** Blazes a sign-in on login.html: the email, then the password (stored as `[redacted]`). */
async function blazeLogin(db: string, url: string): Promise<string> {
  const store = SqliteEventStore.open(db);
  const driver = await ChromeDriver.launch();
  try {
    const s = await BlazeSession.start(driver, store, { url, prompt: "Sign in" });
    const snap = (await s.call("snapshot", {})).output;
    for (const [label, text] of [["Email", "ada@example.com"], ["Password", "pw-7731"]]) {
      const typed = await s.call("type", { ref: refIn(snap, label!), text, step: `Type ${label}` });
      assert(typed.ok, typed.error);
    }
    await s.call("end", {});
    return s.id;
  } finally {
    await driver.close();
    store.close();
  }
}

Deno.test("cairn replay numbers a stored session's actions as the session does: the page opened first is +, --override N is the session's action N with or without --url", async () => {
  const server = serveFolder();
  const dir = await Deno.makeTempDir({ prefix: "cairn-replay-numbers-" });
  try {
    const db = `${dir}/cairn.db`;
    const url = server.url + "login.html";
    const id = await blazeLogin(db, url);

    const table = await cairn(["replay", id, "--db", db]);
    assertEquals(table.code, 0, table.stderr);
    assertMatchLine(table.stdout, /^\s+\+\s+ok\s+navigate http:\/\/127\.0\.0\.1:\d+\/login\.html/m);
    assertMatchLine(table.stdout, /^\s+0\s+ok\s+type textbox "Email"/m);
    assertMatchLine(table.stdout, /^\s+1\s+skipped\s+type textbox "Password".*redacted_value/m);
    assertStringIncludes(table.stdout, "+: the page the source starts on, opened first by Cairn");
    assertStringIncludes(
      table.stdout,
      "2 actions: 1 ok · 0 healed · 0 failed · 1 skipped; + page opened first: ok  (",
    );

    // The password is the session's action 1: --override 1 types it, with or without --url.
    for (const extra of [[], ["--url", url]]) {
      const res = await cairn([
        "replay",
        id,
        "--db",
        db,
        "--override",
        "1=s3cret-1",
        "--json",
        ...extra,
      ]);
      assertEquals(res.code, 0, res.stderr);
      const report = JSON.parse(res.stdout) as PlaybackReport;
      assertEquals(
        report.results.map((r) => [r.index, r.source_index, r.added, r.action, r.status]),
        [
          [0, undefined, true, "navigate", "ok"],
          [1, 0, undefined, "type", "ok"],
          [2, 1, undefined, "type", "ok"],
        ],
        extra.join(" "),
      );
      const store = SqliteEventStore.open(db);
      const events = await Array.fromAsync(store.readStream(`playback-${report.playback_id}`))
        .finally(() => store.close());
      const completed = events.filter((e) => e.type === "PlaybackActionCompleted")
        .map((e) => e.data as { index: number; sourceIndex?: number; added?: boolean });
      assertEquals(completed.map((d) => [d.index, d.sourceIndex, d.added]), [
        [0, undefined, true],
        [1, 0, undefined],
        [2, 1, undefined],
      ]);
    }
    // Numbers the session does not have, or an action that types nothing, are usage errors.
    for (const extra of [[], ["--url", url]]) {
      const beyond = await cairn(["replay", id, "--db", db, "--override", "2=x", ...extra]);
      assertEquals(beyond.code, 2, beyond.stderr);
      assertStringIncludes(beyond.stderr, "--override 2: the plan has actions 0–1");
    }
    const trail = await cairn(["replay", TRAIL, "--override", "5=x", "--url", url, "--db", db]);
    assertEquals(trail.code, 2, trail.stderr);
    assertStringIncludes(
      trail.stderr,
      "--override 5: action 5 is a click; only typing takes a value",
    );
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn replay: a type without a selector fails unless the focused element takes text; a navigate to a 404 page warns", async () => {
  const server = serveFolder();
  const dir = await Deno.makeTempDir({ prefix: "cairn-replay-focus-" });
  try {
    await Deno.writeTextFile(
      `${dir}/focus.trail.yaml`,
      `config:
  id: focus-typing
  platform: web
  url: ${server.url}login.html
trail:
  - step: Type the email into the focused field
    recording:
      - tap:
          selector: { id: email }
      - inputText:
          text: ada@example.com
  - step: Type with the checkbox focused
    recording:
      - tap:
          selector: { id: remember }
      - inputText:
          text: nope
  - step: Type on a page that is not there
    recording:
      - navigate:
          url: ${server.url}missing.html
      - inputText:
          text: lost
`,
    );
    const args = ["replay", `${dir}/focus.trail.yaml`, "--db", `${dir}/cairn.db`];
    const res = await cairn([...args, "--json"]);
    assertEquals(res.code, 1, res.stderr);
    const report = JSON.parse(res.stdout) as PlaybackReport;
    assertEquals(
      report.results.map((r) => [r.action, r.status, r.selector_used, r.error_code, r.error]),
      [
        ["navigate", "ok", "navigate", undefined, undefined],
        ["click", "ok", "id", undefined, undefined],
        ["type", "ok", "focused", undefined, undefined],
        ["click", "ok", "id", undefined, undefined],
        [
          "type",
          "failed",
          undefined,
          "selector_not_found",
          'Cannot type into the focused checkbox "Remember me": it is not a text field or editable content',
        ],
        ["navigate", "ok", "navigate", undefined, undefined],
        [
          "type",
          "failed",
          undefined,
          "selector_not_found",
          "No text field has the focus: a type without a selector types into the focused element",
        ],
      ],
    );
    assertEquals(report.results[5]!.warning, "HTTP 404 Not Found");
    assertEquals(report.results[0]!.warning, undefined);
    const table = await cairn(args);
    assertMatchLine(table.stdout, /^warning: action 4: HTTP 404 Not Found$/m);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn replay rejects bad input with one line and exit code 2", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-replay-cli-" });
  try {
    await Deno.writeTextFile(`${dir}/old.json`, '{"schema_version":"recording_v0","timeline":[]}');
    const old = await cairn(["replay", `${dir}/old.json`, "--db", `${dir}/c.db`]);
    assertEquals(old.code, 2);
    assertStringIncludes(old.stderr, "schema_version");
    assertStringIncludes(old.stderr, "recording_v1");
    const bad = await cairn(["replay", TRAIL, "--override", "three=x", "--db", `${dir}/c.db`]);
    assertEquals(bad.code, 2);
    assertEquals(bad.stderr.trim().split("\n").length, 1);
    const nowhere = await cairn(["replay", TRAIL, "--override", "99=x", "--db", `${dir}/c.db`]);
    assertEquals(nowhere.code, 2);
    assertStringIncludes(nowhere.stderr, "--override 99");
    const missing = await cairn(["replay", `${dir}/nope.yaml`, "--db", `${dir}/c.db`]);
    assertEquals(missing.code, 2);
    assertStringIncludes(missing.stderr, "no such file or stored session");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

function assertMatchLine(text: string, re: RegExp): void {
  assert(re.test(text), `expected ${re} in:\n${text}`);
}
