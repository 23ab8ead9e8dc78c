/**
 * `cairn replay` end to end: a real process, a trail file, Chromium, a SQLite file. The trail
 * exercises templates from memory, `readText … storeAs`, `assertText` over an expression,
 * `assertVisible`, and a strict step that fails rather than heals.
 */
import { servePlaybackPages } from "./playback_server.ts";
import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import type { PlaybackReport } from "../engine/playback/report.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const TRAIL = new URL("./testdata/playback/signup.trail.yaml", import.meta.url).pathname;

async function cairn(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
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
    assertMatchLine(table.stdout, /^\s+6\s+failed\s+click \[data-testid=submit-btn\]/m);

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
      /^warning: action 6: screenshot not written to .*not-a-folder\/pb-[^ ]+\/failed-6\.png: .*stored as blob [0-9a-f]{64}\)$/m,
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
