/**
 * `cairn validate` as a user runs it: a separate process with its own headless Chromium, on a
 * capture made by an agent-style blaze of the varying shop.
 */
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { parseTrail } from "../../../engine/trail/trail.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { blazeShop } from "../../_fixtures/validation_capture.ts";
import { serveVaryingShop } from "../../_fixtures/validation_server.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;

async function cairn(...args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", MAIN, "validate", ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

Deno.test("cairn validate: ci exits 1 naming the step and a new blaze; authoring writes the stable trail; bad input exits 2", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-cli-" });
  const shop = await serveVaryingShop();
  const db = `${dir}/cairn.db`;
  try {
    const store = SqliteEventStore.open(db);
    const driver = await ChromeDriver.launch();
    let sessionId: string;
    try {
      sessionId = await blazeShop(driver, store, shop.url);
    } finally {
      await driver.close();
      store.close();
    }

    const ci = await cairn(sessionId, "--db", db, "--url", shop.url, "--policy", "ci");
    assertEquals(ci.code, 1, ci.stderr);
    assertStringIncludes(ci.stderr, "iteration 1/1");
    assertStringIncludes(ci.stderr, 'step 2 "Add an Espresso to the cart"');
    assertStringIncludes(ci.stderr, "a new blaze from the NL steps is needed");

    const out = `${dir}/shop.trail.yaml`;
    const authored = await cairn(sessionId, "--db", db, "--url", shop.url, "--out", out, "--json");
    assertEquals(authored.code, 0, authored.stderr);
    const report = JSON.parse(authored.stdout);
    assertEquals(report.status, "stable");
    assertEquals(report.iterations, 2);
    assertEquals(report.runs.length, 2);
    assertEquals(report.steps[1].status, "refined");
    assertStringIncludes(authored.stderr, "iteration 2/3");
    assertStringIncludes(authored.stderr, "step 2 FAILED → refined");
    const trail = parseTrail(await Deno.readTextFile(out), out);
    assertEquals(trail.trail.length, 5);
    assert(trail.trail.every((s) => s.recordable !== false));

    const again = await cairn(
      sessionId,
      "--db",
      db,
      "--url",
      shop.url,
      "--policy",
      "ci",
      "--trail",
      out,
    );
    assertEquals(again.code, 0, again.stderr);
    assertStringIncludes(again.stderr, "stable after 1 iteration");
    // the trail's own actions, as replay numbers them; the page opened first is not one
    const actions = trail.trail.reduce((n, s) => n + (s.recording?.length ?? 0), 0);
    assertStringIncludes(
      again.stderr,
      `iteration 1/1: replaying ${actions} actions, after opening the page\n`,
    );

    const unknown = await cairn("no-such-session", "--db", db);
    assertEquals(unknown.code, 2);
    assertStringIncludes(
      unknown.stderr,
      "no-such-session: neither a capture file nor a stored session",
    );
    const zero = await cairn(sessionId, "--db", db, "--max-iterations", "0");
    assertEquals(zero.code, 2);
    assertStringIncludes(zero.stderr, "--max-iterations");
    const badUrl = await cairn(sessionId, "--db", db, "--url", "shop");
    assertEquals(badUrl.code, 2);
    assertStringIncludes(badUrl.stderr, "--url");
  } finally {
    await shop.close();
    await Deno.remove(dir, { recursive: true });
  }
});
