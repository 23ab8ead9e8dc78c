/**
 * `cairn replay`'s report as a person reads it, end to end (a real process, Chromium, a page on
 * 127.0.0.1, a SQLite file): the status says `failed` when an action failed, the table's count
 * and the JSON's agree (the page opened first counted apart in both), a page that cannot be
 * opened ends the run at once, and a short `--timeout` still says why an element was not found.
 */
import { cairn } from "../_fixtures/cli_run.ts";
import { serveFolder } from "../_fixtures/web_server.ts";
import type { PlaybackReport } from "../../engine/playback/report.ts";
import {
  assert,
  assertEquals,
  assertLessOrEqual,
  assertStringIncludes,
} from "../_fixtures/assert.ts";

async function withTrail(
  recording: string,
  fn: (trail: string, base: string, dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-replay-report-" });
  const server = serveFolder();
  try {
    const trail = `${dir}/t.trail.yaml`;
    await Deno.writeTextFile(
      trail,
      `config:\n  platform: web\n  url: ${server.url}gestures.html\ntrail:\n  - step: s\n    recording:\n${
        recording.trim().split("\n").map((l) => `      ${l}`).join("\n")
      }\n`,
    );
    await fn(trail, server.url, dir);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("cairn replay says failed when an action failed, and counts the source's actions in the table and the JSON alike", async () => {
  await withTrail(
    `- tap: Hold me\n- assertText: { selector: { id: pressed }, equals: "Long pressed" }`,
    async (trail, _base, dir) => {
      const db = ["--db", `${dir}/cairn.db`, "--screenshots", `${dir}/shots`, "--timeout", "1500"];
      const table = await cairn(["replay", trail, ...db]);
      assertEquals(table.code, 1, table.stderr);
      const head = table.stdout.split("\n")[0]!;
      assertStringIncludes(head, "  failed  2 actions: 1 ok · 0 healed · 1 failed · 0 skipped;");
      assertStringIncludes(head, "+ page opened first: ok");
      assertStringIncludes(table.stdout, 'found "Clicked"');
      const json = await cairn(["replay", trail, ...db, "--json"]);
      assertEquals(json.code, 1, json.stderr);
      const report = JSON.parse(json.stdout) as PlaybackReport;
      assertEquals(report.status, "failed");
      assertEquals(
        [report.actions_total, report.actions_executed, report.actions_failed],
        [2, 1, 1],
      );
      assertEquals(report.results.length, 3); // the opening, then the trail's two
      assertEquals(report.results[0]!.added, true);
    },
  );
});

Deno.test("cairn replay whose opening navigate fails skips the rest at once, naming it", async () => {
  // a port nothing listens on
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  await withTrail(`- tap: Hold me\n- assertVisible: Gestures`, async (trail, _base, dir) => {
    const t0 = performance.now();
    const res = await cairn([
      "replay",
      trail,
      "--url",
      `http://127.0.0.1:${port}/gestures.html`,
      "--db",
      `${dir}/cairn.db`,
      "--screenshots",
      `${dir}/shots`,
      "--json",
    ]);
    assertEquals(res.code, 1, res.stderr);
    const report = JSON.parse(res.stdout) as PlaybackReport;
    assertEquals(report.status, "failed");
    assertEquals(report.results.map((r) => [r.status, r.error_code]), [
      ["failed", "page_error"],
      ["skipped", "skipped_dependency"],
      ["skipped", "skipped_dependency"],
    ]);
    assertEquals(
      report.results[2]!.error,
      `Skipped: the opening navigate to http://127.0.0.1:${port}/gestures.html failed (page_error): no page to act on`,
    );
    assertEquals([report.actions_total, report.actions_skipped], [2, 2]);
    // not two 10 s timeouts
    assertLessOrEqual(performance.now() - t0, 15_000);
  });
});

Deno.test("cairn replay with a short --timeout reports a missing element as selector_not_found, not timeout", async () => {
  await withTrail(`- tap: { id: not-there }\n- tap: Hold me`, async (trail, _base, dir) => {
    for (const timeout of ["1000", "2000"]) {
      const res = await cairn([
        "replay",
        trail,
        "--timeout",
        timeout,
        "--db",
        `${dir}/cairn.db`,
        "--screenshots",
        `${dir}/shots`,
        "--json",
      ]);
      assertEquals(res.code, 1, res.stderr);
      const report = JSON.parse(res.stdout) as PlaybackReport;
      const missing = report.results.find((r) => r.source_index === 0)!;
      assertEquals(missing.error_code, "selector_not_found", `--timeout ${timeout}`);
      assert(missing.tried && missing.tried.length > 0, "the levels tried are reported");
      assertEquals(report.results.at(-1)!.status, "ok");
    }
  });
});
