/**
 * Validation compares a trail with the capture projected in the trail's own selector mode
 * (`config.selectorMode`), as it does at the trail's own heuristics version: real Chromium,
 * SQLite and HTTP on 127.0.0.1, on the tester's duplicate-list capture
 * (tests/testdata/optimizer_v2), whose detail-panel check flexible mode writes as an
 * `assertVisible` of the product's name and adaptive mode as an `assertText` of `#detail-name`.
 * Projected at adaptive (the `--mode` default), the flexible trail's check had no captured action
 * of its kind to be compared with: it passed without any comparison.
 */
import { assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { cairn } from "../../_fixtures/cli_run.ts";
import { parseTrail } from "../../../engine/trail/trail.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

const DIR = new URL("../../testdata/optimizer_v2/", import.meta.url).pathname;
const CAPTURE = `${DIR}dup.capture.json`;
const CHECK = "Verify the detail panel shows the selected product's id";

Deno.test("cairn validate --trail compares a flexible trail with the capture projected in flexible mode; another --mode exits 2", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-mode-" });
  const server = serveFolder(DIR);
  try {
    const db = `${dir}/cairn.db`;
    const flexible = `${dir}/flexible.yaml`;
    const made = await cairn([
      "optimize",
      CAPTURE,
      ...["--heuristics", "v2", "--mode", "flexible", "--out", flexible, "--db", db],
    ]);
    assertEquals(made.code, 0, made.stderr);
    const own = parseTrail(await Deno.readTextFile(flexible));
    assertEquals(own.config.selectorMode, "flexible");
    assertEquals(
      own.trail.find((s) => s.step === CHECK)?.recording?.map((a) => a.kind),
      ["scroll", "assertText", "assertVisible"],
    );
    const url = `${server.url}duplicate-list.html`;
    const base = ["validate", CAPTURE, "--db", db, "--url", url, "--policy", "ci", "--json"];

    const run = await cairn([...base, "--trail", flexible]);
    assertEquals(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    assertEquals(parseTrail(report.trail).config.selectorMode, "flexible");
    const check = report.steps.find((s: { step: string }) => s.step === CHECK);
    // the assertVisible is compared with the capture's same action: the same element
    assertStringIncludes(
      check.evidence.join("\n"),
      "action 3 (assertVisible): same element (role, name and size agree)",
    );

    // Another mode than the trail's own is refused before anything runs (as --heuristics).
    const clash = await cairn([...base, "--trail", flexible, "--mode", "adaptive"]);
    assertEquals(clash.code, 2, clash.stderr);
    assertStringIncludes(
      clash.stderr,
      `--mode: ${flexible} was projected in flexible mode (config.selectorMode), not adaptive`,
    );
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
