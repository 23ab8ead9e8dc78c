/**
 * A step that fails only because an earlier step failed, or was not replayed at all (the
 * agent's step, a secret with no value), is not held against its own selectors: it is
 * `dependent` in that replay, never flagged `recordable: false`, and converges once the earlier
 * step holds. Real Chromium on a 127.0.0.1 page, a real SQLite log, the real CLI.
 */
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { cairn } from "../../_fixtures/cli_run.ts";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";
import { parseTrail, stringifyTrail } from "../../../engine/trail/trail.ts";

/** The password signin_check.html welcomes; any other shows "Wrong". */
const PASSWORD = "hunter2";

/** Blazes user, password (a `null` slot), Sign in, and the "Welcome" it shows. */
async function blaze(db: string, url: string): Promise<string> {
  const store = SqliteEventStore.open(db);
  const driver = await ChromeDriver.launch();
  try {
    const s = await BlazeSession.start(driver, store, { url, prompt: "Sign in" });
    const snap = (await s.call("snapshot", {})).output;
    const user = await s.call("type", {
      ref: refIn(snap, "User"),
      text: "ada",
      step: "Type the user",
    });
    assert(user.ok, user.error);
    const pw = await s.call("type", {
      ref: refIn(snap, "Password"),
      text: PASSWORD,
      step: "Type the password",
    });
    assert(pw.ok, pw.error);
    const line = snap.split("\n").find((l) => l.includes("button") && l.includes('"Sign in"'));
    const tap = await s.call("tap", { ref: refIn(line ?? "", "Sign in"), step: "Sign in" });
    assert(tap.ok, tap.error);
    const after = (await s.call("snapshot", {})).output;
    const welcome = after.split("\n").find((l) => l.includes('"Welcome"'));
    const check = await s.call("assert", {
      ref: refIn(welcome ?? "", "Welcome"),
      text: "Welcome",
      step: "Verify welcome",
    });
    assert(check.ok, check.error);
    await s.call("end", {});
    return s.id;
  } finally {
    await driver.close();
    store.close();
  }
}

interface Report {
  status: string;
  message?: string;
  trail: string;
  steps: { status: string; evidence: string[] }[];
  runs: { steps: { status: string; passed: boolean; dependent?: boolean; refined?: boolean }[] }[];
}

Deno.test("cairn validate: a step failing only after an earlier step failed or was not replayed is dependent, not flagged", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-dependent-" });
  const server = serveFolder();
  try {
    const db = `${dir}/cairn.db`;
    const url = server.url + "signin_check.html";
    const sessionId = await blaze(db, url);
    const base = ["validate", sessionId, "--db", db, "--url", url, "--json"];
    const good = `${dir}/good.trail.yaml`;
    const first = await cairn([...base, "--memory", `password=${PASSWORD}`, "--out", good]);
    assertEquals(first.code, 0, first.stderr);
    const trailText = await Deno.readTextFile(good);

    // 1. The sign-in button's selector is wrong. Replayed without refining (ci), step 4 (the
    // message is empty, so its element is hidden) fails only because nothing signed in; under
    // authoring the button is placed and refined during the replay, which goes on from it, so
    // step 4 is played on the signed-in page and passes in that same iteration.
    const trail = parseTrail(trailText, good);
    const click = trail.trail[2]!.recording![0]!;
    assertEquals(click.kind, "tap", trailText);
    const wrong = `${dir}/wrongsel.trail.yaml`;
    // one wrong selector, no fallbacks (v3 writes a chain the player would heal through)
    assert(JSON.stringify(click).includes('"testId":"submit"'), trailText);
    delete click.selectors;
    click.selector = { testId: "nope" };
    const wrongText = stringifyTrail(trail);
    await Deno.writeTextFile(wrong, wrongText);
    const healed = await cairn([
      ...base,
      "--trail",
      wrong,
      "--memory",
      `password=${PASSWORD}`,
    ]);
    const h = JSON.parse(healed.stdout) as Report;
    assertEquals(healed.code, 0, healed.stderr);
    assertEquals(h.status, "stable", healed.stderr);
    assertEquals(h.runs.length, 2, healed.stderr);
    assertEquals(h.runs[0]!.steps[2]!.refined, true, healed.stderr);
    assertEquals(h.runs[0]!.steps[3]!.passed, true, healed.stderr);
    assertEquals(h.runs[0]!.steps[3]!.dependent, undefined, healed.stderr);
    const ci = await cairn([
      ...base,
      "--trail",
      wrong,
      "--memory",
      `password=${PASSWORD}`,
      "--policy",
      "ci",
    ]);
    const c = JSON.parse(ci.stdout) as Report;
    assertEquals(c.status, "failed", ci.stderr);
    assertEquals(c.runs[0]!.steps[2]!.passed, false, ci.stderr);
    assertEquals(c.runs[0]!.steps[3]!.passed, false, ci.stderr);
    assertEquals(c.runs[0]!.steps[3]!.dependent, true, ci.stderr);
    assertEquals(h.steps.map((s) => s.status), ["stable", "stable", "refined", "stable"]);
    assert(!h.trail.includes("recordable: false"), h.trail);

    // 2. No value for the password: step 2 is skipped and step 4 fails ("Wrong") only because
    // of that. Not proven stable, nothing flagged.
    const bare = await cairn(base);
    assertEquals(bare.code, 1, bare.stderr);
    const b = JSON.parse(bare.stdout) as Report;
    assertEquals(b.status, "unstable", bare.stderr);
    assertEquals(b.steps.map((s) => s.status), ["stable", "skipped", "stable", "skipped"]);
    assertEquals(b.runs.length, 1, "a step failing after an unreplayed one is not replayed again");
    assertEquals(b.runs[0]!.steps[3]!.dependent, true);
    assertStringIncludes(
      b.message ?? "",
      'step 4 "Verify welcome" not validated: it failed only after step 2 "Type the password" ' +
        'was not replayed (memory "password" has no value)',
    );
    assert(!b.trail.includes("recordable: false"), b.trail);

    // The same with step 3 left to the agent: step 4's message never appears.
    const agent = parseTrail(trailText, good);
    agent.trail[2] = { step: agent.trail[2]!.step, recordable: false };
    const agentFile = `${dir}/agent.trail.yaml`;
    await Deno.writeTextFile(agentFile, stringifyTrail(agent));
    const byAgent = await cairn([
      ...base,
      "--trail",
      agentFile,
      "--memory",
      `password=${PASSWORD}`,
    ]);
    assertEquals(byAgent.code, 1, byAgent.stderr);
    assertStringIncludes(
      byAgent.stderr,
      "replaying 3 actions (1 step left to the agent), after opening the page",
    );
    assertStringIncludes(byAgent.stderr, "unstable after 1 iteration:");
    const a = JSON.parse(byAgent.stdout) as Report;
    assertEquals(a.status, "unstable", byAgent.stderr);
    assertEquals(a.steps.map((s) => s.status), ["stable", "stable", "not_recordable", "skipped"]);
    assertStringIncludes(a.message ?? "", "was not replayed (recordable: false)");
    assertEquals(
      (a.trail.match(/recordable: false/g) ?? []).length,
      1,
      "only the agent's own step is recordable: false",
    );

    // A key a template reads is accepted though the trail's memory does not declare it, as
    // replay accepts it; a key nothing reads is still refused.
    const undeclared = trailText.replace(/^ {4}password: null\n/m, "");
    assert(undeclared !== trailText && undeclared.includes("{{password}}"), trailText);
    const undeclaredFile = `${dir}/undeclared.trail.yaml`;
    await Deno.writeTextFile(undeclaredFile, undeclared);
    const read = await cairn([
      ...base,
      "--trail",
      undeclaredFile,
      "--memory",
      `password=${PASSWORD}`,
    ]);
    assertEquals(read.code, 0, read.stderr);
    assertEquals((JSON.parse(read.stdout) as Report).status, "stable", read.stderr);
    const unread = await cairn([
      ...base,
      "--trail",
      undeclaredFile,
      "--memory",
      `password=${PASSWORD}`,
      "--memory",
      "pin=1",
    ]);
    assertEquals(unread.code, 2, unread.stderr);
    assertStringIncludes(unread.stderr, '"pin"');
    // and without its value the key the template reads is refused when the trail is read
    const unset = await cairn([...base, "--trail", undeclaredFile]);
    assertEquals(unset.code, 2, unset.stderr);
    assertStringIncludes(unset.stderr, "reads {{password}}, which nothing sets");
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn validate --max-iterations with --policy dev or ci exits 2 before anything runs", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-iterations-" });
  try {
    const db = `${dir}/cairn.db`;
    for (const [policy, n] of [["ci", "5"], ["dev", "3"]]) {
      const r = await cairn([
        "validate",
        "no-such-session",
        "--db",
        db,
        "--policy",
        policy!,
        "--max-iterations",
        n!,
      ]);
      assertEquals(r.code, 2, r.stderr);
      assertStringIncludes(
        r.stderr,
        `--max-iterations: only the authoring policy takes it (--policy ${policy}`,
      );
      assertEquals(r.stderr.trim().split("\n").length, 1, r.stderr);
    }
    // the policy's own count is what it does anyway; authoring takes any count in range
    const same = await cairn([
      "validate",
      "no-such-session",
      "--db",
      db,
      "--policy",
      "ci",
      "--max-iterations",
      "1",
    ]);
    assertEquals(same.code, 2, same.stderr);
    assertStringIncludes(
      same.stderr,
      "no-such-session: neither a capture file nor a stored session",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
