/**
 * `cairn replay PATH…` as a suite: a folder, a glob, several files; a line per action, a summary
 * table, `--retries`, `--workers`, exit 1 when any trail failed, and a JUnit XML report valid
 * against the JUnit schema CI servers read (tests/testdata/junit/junit.xsd).
 */
import { join } from "node:path";
import { servePlaybackPages } from "../_fixtures/playback_server.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../_fixtures/assert.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const MAIN = `${ROOT}main.ts`;
const XSD = `${ROOT}tests/testdata/junit/junit.xsd`;

async function cairn(
  args: string[],
  cwd?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const o = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", MAIN, ...args],
    stdout: "piped",
    stderr: "piped",
    env: { CI: "1" },
    ...(cwd ? { cwd } : {}),
  }).output();
  const d = new TextDecoder();
  return { code: o.code, stdout: d.decode(o.stdout), stderr: d.decode(o.stderr) };
}

/**
 * Validates XML against the JUnit schema with libxml2 (xmllint-wasm from npm), in a separate
 * `deno` process outside the project (no lock file, no node_modules of ours): the package's
 * @types/node would otherwise enter the project's lock and its type check.
 */
async function validJunit(xml: string): Promise<string[]> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-xmllint-" });
  try {
    await Deno.writeTextFile(join(dir, "report.xml"), xml);
    const script = `import { validateXML } from "npm:xmllint-wasm@5.3.0";
const r = await validateXML({
  xml: [{ fileName: "report.xml", contents: await Deno.readTextFile("report.xml") }],
  schema: [await Deno.readTextFile(${JSON.stringify(XSD)})],
});
console.log(JSON.stringify(r.valid ? [] : r.errors.map((e) => e.message)));`;
    const o = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--no-lock", "--node-modules-dir=none", script],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const out = new TextDecoder().decode(o.stdout);
    if (o.code !== 0) throw new Error(new TextDecoder().decode(o.stderr));
    return JSON.parse(out) as string[];
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const FAILING = `config:
  id: broken
  platform: web
  url: http://localhost:8000/app.html
trail:
  - step: Look for a heading the page does not have
    recording:
      - assertVisible:
          selector: { text: "No such heading" }
`;

Deno.test("cairn replay FOLDER plays a suite: progress lines, summary table, retries, JUnit valid against the schema, exit 1", async () => {
  const pages = await Deno.makeTempDir({ prefix: "cairn-suite-pages-" });
  const dir = await Deno.makeTempDir({ prefix: "cairn-suite-" });
  await Deno.copyFile(`${ROOT}tests/testdata/playback/app.html`, join(pages, "app.html"));
  await Deno.copyFile(`${ROOT}tests/testdata/web/fruit_rows.html`, join(pages, "fruit_rows.html"));
  const server = servePlaybackPages(pages);
  try {
    const suite = join(dir, "e2e");
    await Deno.mkdir(join(suite, "more"), { recursive: true });
    await Deno.copyFile(
      `${ROOT}tests/testdata/export/signin.trail.yaml`,
      join(suite, "a_signin.trail.yaml"),
    );
    await Deno.copyFile(
      `${ROOT}tests/testdata/export/fruit.trail.yaml`,
      join(suite, "more", "fruit.trail.yaml"),
    );
    await Deno.writeTextFile(join(suite, "b_broken.trail.yaml"), FAILING);
    await Deno.writeTextFile(join(suite, "notes.txt"), "not a trail");
    const junit = join(dir, "reports", "cairn.xml");
    const res = await cairn([
      "replay",
      suite,
      "--url",
      server.url,
      "--memory",
      "password=hunter2",
      "--retries",
      "1",
      "--timeout",
      "1500",
      "--junit",
      junit,
      "--db",
      join(dir, "cairn.db"),
      "--screenshots",
      join(dir, "shots"),
    ]);
    assertEquals(res.code, 1, res.stdout + res.stderr);
    const out = res.stdout;
    // plain lines (CI): one per action as it finishes, then one per trail
    assertMatch(out, /\[1\/3\] .*a_signin\.trail\.yaml {2}#\d+ ok +type /);
    assertStringIncludes(out, "b_broken.trail.yaml (attempt 2)");
    assertMatch(out, /✗ \[\d\/3\] .*b_broken\.trail\.yaml .*No such heading/);
    // the summary: every trail, its counts and attempts; the broken one twice
    assertMatch(out, /a_signin\.trail\.yaml +passed +\d+ +\d+ +\d+ +0 +0 +1 /);
    assertMatch(out, /b_broken\.trail\.yaml +failed +1 +0 +0 +1 +0 +2 /);
    assertMatch(out, /fruit\.trail\.yaml +passed/);
    assertStringIncludes(out, "3 trails: 2 passed, 1 failed");

    const xml = await Deno.readTextFile(junit);
    assertEquals(await validJunit(xml), []);
    assertStringIncludes(xml, `tests="3" failures="1"`);
    assertMatch(
      xml,
      /<testcase name="b_broken\.trail\.yaml"[^>]*>\s*<failure message="action 0 \(/,
    );
    assertStringIncludes(xml, "(after 2 attempts)");
    // the validator says no to what the schema forbids (a case without a name)
    assert((await validJunit(xml.replace(/<testcase name="[^"]*"/, "<testcase"))).length > 0);

    // a glob, quoted so that Cairn expands it, with two workers: only the passing trails
    const glob = await cairn([
      "replay",
      join(suite, "**", "*_signin.trail.yaml"),
      join(suite, "more"),
      "--url",
      server.url,
      "--memory",
      "password=hunter2",
      "--workers",
      "2",
      "--db",
      join(dir, "cairn.db"),
      "--screenshots",
      join(dir, "shots"),
    ]);
    assertEquals(glob.code, 0, glob.stdout + glob.stderr);
    assertStringIncludes(glob.stdout, "2 trails: 2 passed, 0 failed");
    assertStringIncludes(glob.stdout, "2 workers");

    // a file that cannot be read fails the suite before anything plays
    await Deno.writeTextFile(join(suite, "c_bad.yaml"), "config: [\n");
    const bad = await cairn(["replay", suite, "--url", server.url, "--db", join(dir, "cairn.db")]);
    assertEquals(bad.code, 2);
    assertStringIncludes(bad.stderr, "c_bad.yaml");
    assertEquals(bad.stdout, "");
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    await Deno.remove(pages, { recursive: true }).catch(() => {});
  }
});

Deno.test("a trail that passes on a retry is reported passed, its failed attempt a flakyFailure (schema-valid)", async () => {
  // the page shows "Ready" from its second load on
  let loads = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    loads++;
    const body = loads >= 2 ? "<h1>Ready</h1>" : "<h1>Loading</h1>";
    return new Response(`<!doctype html><title>f</title>${body}`, {
      headers: { "content-type": "text/html" },
    });
  });
  const dir = await Deno.makeTempDir({ prefix: "cairn-suite-flaky-" });
  try {
    const trail = join(dir, "flaky.trail.yaml");
    await Deno.writeTextFile(
      trail,
      `config:\n  platform: web\n  url: http://127.0.0.1:${server.addr.port}/\ntrail:\n  - step: Ready\n    recording:\n      - assertVisible: { selector: { text: Ready } }\n`,
    );
    const junit = join(dir, "r.xml");
    const res = await cairn([
      "replay",
      trail,
      "--retries",
      "2",
      "--timeout",
      "800",
      "--junit",
      junit,
      "--db",
      join(dir, "cairn.db"),
      "--screenshots",
      join(dir, "shots"),
    ]);
    assertEquals(res.code, 0, res.stdout + res.stderr);
    assertMatch(res.stdout, /flaky\.trail\.yaml +passed +1 +1 +0 +0 +0 +2 /);
    const xml = await Deno.readTextFile(junit);
    assertEquals(await validJunit(xml), []);
    assertStringIncludes(xml, `tests="1" failures="0"`);
    assertMatch(
      xml,
      /<flakyFailure message="action 0 \([^"]*Ready[^"]*\): [^"]+" type="playback"\/>/,
    );
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
