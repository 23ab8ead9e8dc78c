/**
 * `cairn validate --memory KEY=VALUE` (and the HTTP body's `memory`): a password slot the trail
 * keeps as `null` is typed from the value given, which is stored nowhere. Without it the step is
 * reported not validated, not flagged `recordable: false`. Real Chromium, SQLite and HTTP.
 */
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { dbBytes } from "../../_fixtures/secret_forms.ts";
import { cairn } from "../../_fixtures/cli_run.ts";
import { createApp } from "../../../api/app.ts";
import { validationRegistry } from "../../../api/validations.ts";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";
import { parseTrail, stringifyTrail } from "../../../engine/trail/trail.ts";
import { waitUntil } from "../../_fixtures/wait.ts";

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** Typed while blazing (redacted there), and given to validate: neither may be stored. */
const BLAZED = "Blazed-pw-9137";
const SECRET = "Valid8-s3cret-4471";

/** Blazes a sign-in on login.html: email, password (a `null` slot), the Sign in button. */
async function blazeLogin(db: string, url: string): Promise<string> {
  const store = SqliteEventStore.open(db);
  const driver = await ChromeDriver.launch();
  try {
    const s = await BlazeSession.start(driver, store, { url, prompt: "Sign in" });
    const snap = (await s.call("snapshot", {})).output;
    const email = await s.call("type", {
      ref: refIn(snap, "Email"),
      text: "ada@example.com",
      step: "Type the email",
    });
    assert(email.ok, email.error);
    const pw = await s.call("type", {
      ref: refIn(snap, "Password"),
      text: BLAZED,
      step: "Type the password",
    });
    assert(pw.ok, pw.error);
    const line = snap.split("\n").find((l) => l.includes("button") && l.includes('"Sign in"'));
    const tap = await s.call("tap", { ref: refIn(line ?? "", "Sign in"), step: "Sign in" });
    assert(tap.ok, tap.error);
    await s.call("end", {});
    return s.id;
  } finally {
    await driver.close();
    store.close();
  }
}

Deno.test("cairn validate --memory: a null password slot is typed from the value given and stored nowhere; without it the step is not validated", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-memory-" });
  const server = serveFolder();
  try {
    const db = `${dir}/cairn.db`;
    const url = server.url + "login.html";
    const sessionId = await blazeLogin(db, url);
    const out = `${dir}/login.trail.yaml`;

    const given = await cairn([
      "validate",
      sessionId,
      "--db",
      db,
      "--url",
      url,
      "--memory",
      `password=${SECRET}`,
      "--out",
      out,
      "--json",
    ]);
    assertEquals(given.code, 0, given.stderr);
    const report = JSON.parse(given.stdout);
    assertEquals(report.status, "stable", given.stderr);
    assertEquals(report.steps.map((s: { status: string }) => s.status), [
      "stable",
      "stable",
      "stable",
    ]);
    const trail = await Deno.readTextFile(out);
    assertStringIncludes(trail, "password: null");
    assert(!trail.includes("recordable: false"), trail);

    const missing = await cairn(["validate", sessionId, "--db", db, "--url", url, "--json"]);
    // The other steps held, but the password step was never typed: not proven stable, exit 1.
    assertEquals(missing.code, 1, missing.stderr);
    const bare = JSON.parse(missing.stdout);
    assertEquals(bare.status, "unstable", missing.stdout);
    assertEquals(bare.steps.map((s: { status: string }) => s.status), [
      "stable",
      "skipped",
      "stable",
    ]);
    assertStringIncludes(
      missing.stderr,
      'error: Not proven stable: step 2 "Type the password" not validated: memory "password" has no value',
    );
    assertStringIncludes(bare.steps[1].evidence.join("\n"), "supply --memory password=");
    assertStringIncludes(bare.message, "supply --memory password=");
    assert(!bare.trail.includes("recordable: false"), bare.trail);
    assertStringIncludes(bare.trail, "password: null");
    assertStringIncludes(missing.stderr, "skipped");

    // Nothing replayed proves anything: the email and sign-in steps left to the agent, the
    // password without a value. Not "stable": failed, exit 1, and no trail written.
    const agentOnly = parseTrail(trail, out);
    for (const i of [0, 2]) {
      agentOnly.trail[i] = { step: agentOnly.trail[i]!.step, recordable: false };
    }
    const agentFile = `${dir}/agent.trail.yaml`;
    await Deno.writeTextFile(agentFile, stringifyTrail(agentOnly));
    const nothing = await cairn([
      "validate",
      sessionId,
      "--db",
      db,
      "--url",
      url,
      "--trail",
      agentFile,
      "--out",
      `${dir}/nothing.trail.yaml`,
    ]);
    assertEquals(nothing.code, 1, nothing.stderr);
    assertStringIncludes(nothing.stderr, "not_recordable  1. Type the email");
    assertStringIncludes(nothing.stderr, "skipped         2. Type the password");
    assertStringIncludes(
      nothing.stderr,
      'error: Nothing was validated: step 1 "Type the email" is recordable: false (the agent ' +
        'handles it); step 2 "Type the password" not validated: memory "password" has no value ' +
        '(supply --memory password=…); step 3 "Sign in" is recordable: false (the agent handles it)',
    );
    assertEquals(await exists(`${dir}/nothing.trail.yaml`), false);

    const unknown = await cairn(["validate", sessionId, "--db", db, "--memory", "pin=1234"]);
    assertEquals(unknown.code, 2, unknown.stderr);
    assertStringIncludes(unknown.stderr, "pin");
    const malformed = await cairn(["validate", sessionId, "--db", db, "--memory", "password"]);
    assertEquals(malformed.code, 2, malformed.stderr);

    for (const r of [given, missing, unknown]) {
      assert(!(r.stdout + r.stderr).includes(SECRET), r.stdout + r.stderr);
    }
    assert(!trail.includes(SECRET), trail);
    const bytes = await dbBytes(db);
    assertStringIncludes(bytes, "ada@example.com"); // the scan does see stored text
    assert(!bytes.includes(SECRET), "the SQLite file holds the supplied password");
    assert(!bytes.includes(BLAZED), "the SQLite file holds the blazed password");
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("POST /v1/sessions/:id/validations with memory: validates stable, stores the value nowhere; an unknown key is 400", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-memory-http-" });
  const server = serveFolder();
  const db = `${dir}/cairn.db`;
  try {
    const url = server.url + "login.html";
    const sessionId = await blazeLogin(db, url);
    const store = SqliteEventStore.open(db);
    const registry = validationRegistry(store, { createDriver: () => ChromeDriver.launch() });
    try {
      const app = createApp({ store });
      const post = (body: unknown) =>
        app.request(`/v1/sessions/${sessionId}/validations`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      const bad = await post({ url, memory: { pin: "1234" } });
      assertEquals(bad.status, 400);
      const error = (await bad.json()).error;
      assertEquals(error.code, "invalid_request");
      assertStringIncludes(error.message, "pin");
      // named as a field of the body, as POST /v1/playbacks names it
      assertEquals(error.issues.map((i: { path: string }) => i.path), ["body.memory.pin"]);
      // a key --memory could not take (an =, or empty) is refused by the body's schema
      const malformed = await post({ url, memory: { "pass=word": SECRET, "": SECRET } });
      assertEquals(malformed.status, 400);
      const body = await malformed.text();
      assertEquals(
        JSON.parse(body).error.issues.map((i: { path: string }) => i.path),
        ["body.memory.pass=word", "body.memory."],
      );
      assert(!body.includes(SECRET), body);

      const res = await post({ url, memory: { password: SECRET } });
      assertEquals(res.status, 202);
      const { validationId: id } = await res.json();
      let report = await (await app.request(`/v1/validations/${id}`)).json();
      // bounded (120 s): each iteration launches Chromium, seconds apiece on a busy machine
      report = await waitUntil("the validation to end", async () => {
        const r = await (await app.request(`/v1/validations/${id}`)).json();
        return r.status !== "running" && r;
      }, { timeoutMs: 120_000, everyMs: 100 });
      assertEquals(report.status, "stable", JSON.stringify(report.steps));
      assert(!JSON.stringify(report).includes(SECRET));
      assertStringIncludes(report.trail, "password: null");
    } finally {
      await registry.close();
      store.close();
    }
    assert(!(await dbBytes(db)).includes(SECRET), "the SQLite file holds the supplied password");
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
