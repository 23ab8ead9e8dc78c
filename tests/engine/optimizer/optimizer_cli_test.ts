import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { lineDiff } from "../../../cli/reproject.ts";
import { cairn as cairnCli, ROOT } from "../../_fixtures/cli_run.ts";

/** `cairn ARGS…` on the log `db` (CAIRN_DB). */
async function cairn(
  args: string[],
  db: string,
): Promise<{ code: number; out: string; err: string }> {
  const r = await cairnCli(args, { CAIRN_DB: db });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

function trailSection(yaml: string): string {
  return yaml.slice(yaml.indexOf("\ntrail:\n") + 1);
}

Deno.test("cairn optimize prints the golden trail of a capture file and reuses its session", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const db = `${dir}/c.db`;
    const golden = await Deno.readTextFile(
      `${ROOT}tests/testdata/optimizer/inventory/adaptive.v3.yaml`,
    );
    const first = await cairn(["optimize", "examples/inventory.capture.json"], db);
    assertEquals(first.code, 0, first.err);
    assertEquals(trailSection(first.out), trailSection(golden));
    const again = await cairn([
      "optimize",
      "examples/inventory.capture.json",
      "--mode",
      "strict",
      "--explain",
    ], db);
    assertEquals(again.code, 0, again.err);
    assertStringIncludes(again.out, "selectorMode: strict");
    assertStringIncludes(again.out, "# --explain");
    assertStringIncludes(again.out, "dropped: failed call dropped");
    const id = /id: (capture-[0-9a-f]+)/.exec(first.out)![1]!;
    assertStringIncludes(again.out, `id: ${id}`);
    const byId = await cairn(["optimize", id, "--out", `${dir}/t.yaml`], db);
    assertEquals(byId.code, 0, byId.err);
    assertEquals(await Deno.readTextFile(`${dir}/t.yaml`), first.out);
    // the start of exactly one session id will do, as for history, export and replay
    const byPrefix = await cairn(["optimize", id.slice(0, 12)], db);
    assertEquals([byPrefix.code, byPrefix.err], [0, ""]);
    assertEquals(byPrefix.out, first.out);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn optimize --heuristics v0 --explain says no pass ran and how each action was written or why dropped", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const r = await cairn([
      "optimize",
      "examples/inventory.capture.json",
      "--heuristics",
      "v0",
      "--explain",
    ], `${dir}/c.db`);
    assertEquals(r.code, 0, r.err);
    const explain = r.out.slice(r.out.indexOf("# --explain\n")).trimEnd().split("\n");
    assertEquals(explain.slice(0, 6), [
      "# --explain",
      "# heuristics v0, the raw lens: no pass ran; each action as the run recorded it",
      "# step 1: Sign in with the test account",
      '#   action 1 (inputText) → as recorded: inputText {"text":"alice@example.com"}',
      '#   action 2 (tap) → dropped: the call failed (No element with text "Sign in" is clickable)',
      '#   action 3 (tap) → as recorded: tap {"selector":{"text":"Next"}}',
    ]);
    assertStringIncludes(
      r.out,
      '#   action 6 (readText) → as recorded: readText {"selector":{"text":"5"}}\n' +
        "#       selector: the text the action read\n",
    );
    // every captured action is explained once
    assertEquals(explain.filter((l) => /^# {3}action \d+ /.test(l)).length, 9);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn optimize gives a file one session id whatever the path's spelling, the optimizer page's for the example", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const db = `${dir}/c.db`;
    const spellings = [
      "examples/inventory.capture.json",
      "./examples/inventory.capture.json",
      `${ROOT}examples/inventory.capture.json`,
      "examples/../examples/inventory.capture.json",
    ];
    const ids = [];
    for (const path of spellings) {
      const r = await cairn(["optimize", path], db);
      assertEquals(r.code, 0, r.err);
      ids.push(/id: (capture-[0-9a-f]+)/.exec(r.out)![1]);
    }
    const page = await Deno.readTextFile(`${ROOT}docs/optimizer.md`);
    const quoted = /config:\n {2}id: (capture-[0-9a-f]+)\n/.exec(page)![1];
    assertEquals(ids, spellings.map(() => quoted));
    const sessions = await cairn(["history", "--json"], db);
    assertEquals(
      JSON.parse(sessions.out).sessions.map((s: { sessionId: string }) => s.sessionId),
      [quoted],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn optimize --step-mode N outside the trail's steps exits 2 naming the flag and the range", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const db = `${dir}/c.db`;
    const capture = "examples/inventory.capture.json"; // 4 steps
    for (const n of ["5", "99"]) {
      const r = await cairn(
        ["optimize", capture, "--step-mode", `${n}=strict`, "-o", `${dir}/t`],
        db,
      );
      assertEquals([r.code, r.out, r.err], [
        2,
        "",
        `cairn optimize: --step-mode ${n}=strict: N must be from 1 to 4, the trail's steps\n`,
      ]);
    }
    assertEquals(await Deno.stat(`${dir}/t`).then(() => true, () => false), false);
    const last = await cairn(["optimize", capture, "--step-mode", "4=strict"], db);
    assertEquals(last.code, 0, last.err);
    assertStringIncludes(
      last.out,
      "step: Verify inventory increased by 2\n    selectorMode: strict",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn optimize exits 2 with one line for a missing file or unknown session", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const missing = await cairn(["optimize", "nope.capture.json"], `${dir}/c.db`);
    assertEquals(missing.code, 2);
    assertEquals(missing.err.trim(), "cairn optimize: nope.capture.json: no such file");
    const unknown = await cairn(["optimize", "no-such-session"], `${dir}/c.db`);
    assertEquals(unknown.code, 2);
    assertStringIncludes(unknown.err, "neither a file nor a stored session");
    const mode = await cairn(["optimize", "x", "--mode", "loose"], `${dir}/c.db`);
    assertEquals(mode.code, 2);
    // reproject, like every command taking SESSION: an unknown one is bad input, nothing projected
    assertEquals(
      (await cairn(["optimize", "examples/merchant.capture.json"], `${dir}/c.db`)).code,
      0,
    );
    const reproject = await cairn(["reproject", "capture-", "nope"], `${dir}/c.db`);
    assertEquals([reproject.code, reproject.out, reproject.err], [
      2,
      "",
      'cairn reproject: No session "nope"\n',
    ]);
    // a start that fits two sessions names them rather than guess
    assertEquals(
      (await cairn(["optimize", "examples/inventory.capture.json"], `${dir}/c.db`)).code,
      0,
    );
    const two = await cairn(["optimize", "capture-"], `${dir}/c.db`);
    assertEquals([two.code, two.out], [2, ""]);
    assertStringIncludes(two.err, '"capture-" is the start of 2 sessions');
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn reproject prints which trails changed since the last one printed, with a diff", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const db = `${dir}/c.db`;
    for (const capture of ["inventory", "merchant"]) {
      const args = ["optimize", `examples/${capture}.capture.json`, "--heuristics", "v2"];
      assertEquals((await cairn(args, db)).code, 0);
    }
    const same = await cairn(["reproject", "--heuristics", "v2", "--all"], db);
    assertEquals(same.code, 0, same.err);
    assertStringIncludes(same.out, "2 sessions: 0 changed, 0 failed");
    // An older trail in the cache: the re-projection reports the change.
    for await (const f of Deno.readDir(`${dir}/trails`)) {
      const p = `${dir}/trails/${f.name}`;
      const t = await Deno.readTextFile(p);
      if (t.includes("next-button")) {
        await Deno.writeTextFile(p, t.replace('id: "next-button"', 'text: "Next"'));
      }
    }
    const changed = await cairn(["reproject", "--heuristics", "v2", "--all"], db);
    assertStringIncludes(changed.out, "2 sessions: 1 changed, 0 failed");
    assertStringIncludes(changed.out, '-          text: "Next"');
    assertStringIncludes(changed.out, '+          id: "next-button"');
    // Against the raw lens (v0): what the optimizer changed in the blaze's recording.
    const id = /capture-[0-9a-f]+/.exec(changed.out)![0];
    const vsRaw = await cairn(["reproject", "--from", "v0", "--heuristics", "v1", id], db);
    assertStringIncludes(vsRaw.out, "(adaptive, v0 → v1)");
    assertStringIncludes(vsRaw.out, '-      - inputText: "alice@example.com"');
    assertStringIncludes(vsRaw.out, '+      - inputText: "{{email}}"');
    // v1 → v2: the inventory trail is the same but for the version it names; the merchant's
    // sign-in check now reads the account from memory
    const v1v2 = await cairn(["reproject", "--from", "v1", "--heuristics", "v2", "--all"], db);
    assertEquals(v1v2.code, 0, v1v2.err);
    assertStringIncludes(
      v1v2.out,
      `unchanged  ${id} (adaptive, v1 → v2: only the version it names)`,
    );
    assertStringIncludes(v1v2.out, '+          equals: "Signed in as {{merchant_email}}"');
    assertStringIncludes(v1v2.out, "2 sessions: 1 changed, 0 failed");
    // v2 → v3: every tap gets its fallbacks after the id
    const v2v3 = await cairn(["reproject", "--from", "v2", "--heuristics", "v3", "--all"], db);
    assertEquals(v2v3.code, 0, v2v3.err);
    assertStringIncludes(
      v2v3.out,
      '  +            - id: "next-button"\n  +            - text: "Next"',
    );
    assertStringIncludes(v2v3.out, "2 sessions: 2 changed, 0 failed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("lineDiff() shows removed then added lines with context, and nothing for equal text", () => {
  assertEquals(lineDiff("a\nb\nc", "a\nb\nc"), []);
  assertEquals(lineDiff("a\nb\nc\nd\ne\nf", "a\nb\nc\nX\ne\nf", 1), [" c", "-d", "+X", " e"]);
  assert(lineDiff("", "x").includes("+x"));
});

Deno.test("parseStepModes() reads 1-based step overrides and rejects malformed ones", async () => {
  const { parseStepModes } = await import("../../../cli/optimize.ts");
  assertEquals(parseStepModes(["2=strict", "5=flexible"]), { 1: "strict", 4: "flexible" });
  let threw = false;
  try {
    parseStepModes(["x=strict"]);
  } catch (err) {
    threw = (err as Error).name === "UsageError";
  }
  assert(threw);
});
