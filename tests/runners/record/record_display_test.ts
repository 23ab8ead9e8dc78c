/**
 * `cairn record` without a display refuses with one line (exit 2) instead of recording a headless
 * browser nobody can act in; `--headless` is the scripted way round it. No browser is started and
 * no session is stored.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { cairn } from "../../_fixtures/cli_run.ts";

Deno.test("cairn record without DISPLAY refuses in one line naming Xvfb and --headless, storing nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-record-display-" });
  try {
    const db = `${dir}/c.db`;
    const noDisplay = { DISPLAY: "", WAYLAND_DISPLAY: "" };
    const run = await cairn(
      ["record", "--url", "http://127.0.0.1:9/", "--prompt", "p", "--db", db],
      noDisplay,
    );
    assertEquals(run.code, 2, run.stderr);
    assertEquals(run.stderr.trimEnd().split("\n").length, 1, run.stderr);
    assert(run.stderr.startsWith("cairn record: no display"), run.stderr);
    assert(run.stderr.includes("Xvfb") && run.stderr.includes("--headless"), run.stderr);
    assertEquals(run.stdout, "");
    const history = await cairn(["history", "--db", db, "--json"]);
    assertEquals(JSON.parse(history.stdout).sessions, [], history.stdout);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
