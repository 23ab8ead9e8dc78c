/**
 * `cairn validate SESSION --trail FILE` on trails written by hand: a click on the wrong one of
 * several identical row buttons is caught (the row is compared, not only role, name and size),
 * a step the player skipped keeps the user's actions, a trail given as the session is named as
 * one, a fallback that never matched is pruned for what it is, comments survive, and a step
 * that clicked a clearly different element is reported so even after an earlier failure. Real
 * Chromium on a 127.0.0.1 page, a real capture (a blaze session) in a real SQLite log.
 */
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { cairn } from "../../_fixtures/cli_run.ts";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";
import type { Driver } from "../../../drivers/driver.ts";
import { runValidation } from "../../../runners/validation/runner.ts";
import { parseTrail } from "../../../engine/trail/trail.ts";

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Plants</title></head><body>
<h1>Plants</h1>
<button id="inc" onclick="document.getElementById('out').textContent='One more'">Add one</button>
<ul id="list">
  <li class="row"><span>Cactus</span> <button class="add" onclick="document.getElementById('out').textContent='Added Cactus'">Add</button></li>
  <li class="row"><span>Fern</span> <button class="add" onclick="document.getElementById('out').textContent='Added Fern'">Add</button></li>
  <li class="row"><span>Rose</span> <button class="add" onclick="document.getElementById('out').textContent='Added Rose'">Add</button></li>
</ul>
<button id="dbl">Dbl me</button>
<p id="out">Nothing yet</p>
</body></html>`;

interface Rig {
  dir: string;
  db: string;
  url: string;
  sessionId: string;
}

/** Serves the page, blazes "Add Fern" (Fern's row button) then "Add one", and runs `fn`. */
async function withCapture(fn: (rig: Rig) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-hand-" });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }),
  );
  const url = `http://127.0.0.1:${server.addr.port}/plants`;
  const db = `${dir}/cairn.db`;
  try {
    const store = SqliteEventStore.open(db);
    const driver = await ChromeDriver.launch();
    let sessionId: string;
    try {
      const s = await BlazeSession.start(driver, store, { url, prompt: "Add a fern, add one" });
      const lines = (await s.call("snapshot", {})).output.split("\n");
      const at = lines.findIndex((l) => l.includes('"Fern"'));
      const fern = lines.slice(at).find((l) => l.includes("button") && l.includes('"Add"'));
      const tap = await s.call("tap", { ref: refIn(fern ?? "", "Add"), step: "Add Fern" });
      assert(tap.ok, tap.error);
      const snap = (await s.call("snapshot", {})).output;
      const one = await s.call("tap", { ref: refIn(snap, "Add one"), step: "Add one" });
      assert(one.ok, one.error);
      await s.call("end", {});
      sessionId = s.id;
    } finally {
      await driver.close();
      store.close();
    }
    await fn({ dir, db, url, sessionId });
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
}

function handTrail(rig: Rig, steps: string): string {
  return `config:\n  id: ${rig.sessionId}\n  platform: web\n  url: ${rig.url}\ntrail:\n${steps}`;
}

Deno.test("cairn validate --trail: a click on the first of identical row buttons is not Fern's: ci fails it, authoring refines it to Fern's row", async () => {
  await withCapture(async (rig) => {
    const file = `${rig.dir}/hand.trail.yaml`;
    await Deno.writeTextFile(
      file,
      handTrail(
        rig,
        `  # the plant the order needs
  - step: Add Fern
    recording:
      - click: { text: Add, index: 0 }
  - step: Add one # the counter
    recording:
      # by id: the copy changes
      - click:
          selector: { id: inc }
          selectors: [ { text: "Sign in" } ]
`,
      ),
    );
    const ci = await cairn([
      "validate",
      rig.sessionId,
      "--db",
      rig.db,
      "--trail",
      file,
      "--policy",
      "ci",
      "--json",
    ]);
    assertEquals(ci.code, 1, ci.stderr);
    const report = JSON.parse(ci.stdout);
    assertEquals(report.status, "failed", ci.stderr);
    assertEquals(report.steps[0].status, "unstable", ci.stderr);
    const why = report.steps[0].evidence.join("\n");
    assertStringIncludes(why, "a different row");
    assertStringIncludes(why, '"Fern"');
    assertStringIncludes(why, '"Cactus"');

    const out = `${rig.dir}/out.trail.yaml`;
    const authoring = await cairn([
      "validate",
      rig.sessionId,
      "--db",
      rig.db,
      "--trail",
      file,
      "--out",
      out,
    ]);
    assertEquals(authoring.code, 0, authoring.stderr);
    assertStringIncludes(authoring.stderr, "step 1 FAILED → refined");
    // a fallback that matched nothing, in the capture or the replays, is pruned as that
    assertStringIncludes(
      authoring.stderr,
      'step 2: dropped fallback text="Sign in" (matched nothing in either run)',
    );
    const written = await Deno.readTextFile(out);
    // never the index that picked Cactus's button: the row showing "Fern" picks it
    assert(!/\bindex: 0/.test(written), written);
    assert(/childOf:\s*\n\s*text: "?Fern"?/.test(written), written);
    // the user's comments stay, on the steps validation changed and on those it did not
    for (const c of ["# the plant the order needs", "# the counter", "# by id: the copy changes"]) {
      assertStringIncludes(written, c);
    }
    assertStringIncludes(written, "- step: Add one # the counter\n");
  });
});

/** The real browser, without a mouse to hover with: the player skips a hover it cannot play. */
function withoutHover(real: ChromeDriver): Driver {
  return new Proxy(real, {
    get(target, prop) {
      if (prop === "hover") return undefined;
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

Deno.test("runValidation() keeps a step whose action the player skipped as the user wrote it: not validated, never recordable: false, no re-blaze", async () => {
  await withCapture(async (rig) => {
    const source = handTrail(
      rig,
      `  - step: Add Fern
    recording:
      - click: { text: Add, childOf: { text: Fern } }
  - step: Add one
    recording:
      - hover: { id: inc }
      - click: { id: inc }
`,
    );
    const store = SqliteEventStore.open(rig.db);
    const real = await ChromeDriver.launch();
    try {
      for (const policy of ["authoring", "ci"] as const) {
        const state = await runValidation(withoutHover(real), store, rig.sessionId, {
          policy,
          trail: parseTrail(source),
        });
        const final = parseTrail(state.trail);
        // the user's actions, all of them, as written
        assertEquals(final.trail[1]!.recordable, undefined, state.trail);
        assertEquals(final.trail[1]!.recording?.map((a) => a.kind), ["hover", "tap"], policy);
        const step = state.finalSteps![1]!;
        assertEquals(step.status, "skipped", `${policy}: ${JSON.stringify(step)}`);
        assertStringIncludes(step.evidence.join("\n"), "hover: the web driver has no mouse");
        assertEquals(state.finalSteps![0]!.status, "stable", policy);
        assertEquals(state.status, "unstable", `${policy}: ${state.message}`);
        assertStringIncludes(state.message ?? "", 'step 2 "Add one" not validated');
        assert(
          !/new blaze|no longer matches|recordable: false/.test(state.message ?? ""),
          state.message,
        );
      }
    } finally {
      await real.close();
      store.close();
    }
  });
});

Deno.test("cairn validate TRAIL_FILE (a trail where the session goes) says it is a trail and how to validate it, exit 2", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-hand-" });
  try {
    const file = `${dir}/my.trail.yaml`;
    await Deno.writeTextFile(
      file,
      "config:\n  id: 3f1c-session\n  platform: web\ntrail:\n  - step: Go\n    recording:\n      - click: Go\n",
    );
    const r = await cairn(["validate", file, "--db", `${dir}/cairn.db`]);
    assertEquals(r.code, 2, r.stderr);
    assertStringIncludes(r.stderr, `${file}: this is a trail`);
    assertStringIncludes(r.stderr, `cairn validate 3f1c-session --trail ${file}`);
    assert(!r.stderr.includes("expected a value"), r.stderr);
    assertEquals(r.stderr.trim().split("\n").length, 1, r.stderr);
    // without config.id: the session is named as SESSION
    await Deno.writeTextFile(file, "trail:\n  - step: Go\n    recording:\n      - back\n");
    const bare = await cairn(["validate", file, "--db", `${dir}/cairn.db`]);
    assertEquals(bare.code, 2, bare.stderr);
    assertStringIncludes(bare.stderr, `cairn validate SESSION --trail ${file}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn validate --policy ci: a step whose selector clicked a clearly different element is reported as that, even after an earlier step failed", async () => {
  await withCapture(async (rig) => {
    const file = `${rig.dir}/hand.trail.yaml`;
    await Deno.writeTextFile(
      file,
      handTrail(
        rig,
        `  - step: Add Fern
    recording:
      - click: { text: Add, index: 0 }
  - step: Add one
    recording:
      - click: { cssPath: "body > button:nth-of-type(2)" }
`,
      ),
    );
    const r = await cairn([
      "validate",
      rig.sessionId,
      "--db",
      rig.db,
      "--trail",
      file,
      "--policy",
      "ci",
      "--json",
    ]);
    assertEquals(r.code, 1, r.stderr);
    const report = JSON.parse(r.stdout);
    assertEquals(report.steps[0].status, "unstable", r.stderr);
    const step = report.steps[1];
    // its own mismatch, not "not validated … after step 1 failed"
    assertEquals(step.status, "unstable", JSON.stringify(step));
    const why = step.evidence.join("\n");
    assertStringIncludes(why, 'name "Add one" → "Dbl me"');
    assert(!why.includes("not held against its selectors"), why);
    assertStringIncludes(report.message, 'step 2 "Add one"');
  });
});
