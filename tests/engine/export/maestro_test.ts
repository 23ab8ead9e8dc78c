/**
 * The Maestro export round-trips (export → import → the same trail), uses only commands of
 * Maestro's documented set (the set the corpus flows use, too), and `cairn ingest` / `cairn
 * replay` read such a flow on its own.
 */
import { dirname, join } from "node:path";
import YAML from "yaml";
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { parseTrail, stringifyTrail } from "../../../engine/trail/trail.ts";
import {
  MAESTRO_COMMANDS,
  maestroToTrail,
  trailToMaestro,
} from "../../../engine/export/maestro.ts";
import { planFromText } from "../../../engine/playback/load_plan.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import { parseMaestroFlow } from "../../../engine/formats/maestro_flow.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
const NOTES = `${ROOT}tests/testdata/export/notes.android.trail.yaml`;
const CORPUS = "/work/shared/corpus/maestro";

/** Every command name of a flow, the commands of inline runFlow blocks included. */
function commandNames(text: string): string[] {
  const names: string[] = [];
  const walk = (cmds: unknown[]) => {
    for (const c of cmds) {
      const name = typeof c === "string" ? c : Object.keys(c as object)[0]!;
      names.push(name);
      const args = typeof c === "object" ? (c as Record<string, unknown>)[name] : undefined;
      if (
        args && typeof args === "object" && Array.isArray((args as { commands?: unknown }).commands)
      ) {
        walk((args as { commands: unknown[] }).commands);
      }
    }
  };
  const docs = YAML.parseAllDocuments(text);
  walk((docs[1]?.toJS() ?? []) as unknown[]);
  return names;
}

Deno.test("a trail exported as a Maestro flow imports back to the same trail", async () => {
  const trail = parseTrail(await Deno.readTextFile(NOTES), NOTES);
  const flow = trailToMaestro(trail, { appId: "com.example.notes" });
  assertEquals(flow.warnings, []);
  const back = maestroToTrail(flow.text, "notes.maestro.yaml");
  assertEquals(stringifyTrail(back), stringifyTrail(trail));
  // the secret is declared nowhere in the flow but read, so it comes back as a slot without a default
  assertEquals(back.config.memory, { title: "Groceries (weekly)", pin: null });
  // the flow plays as the trail does
  const plan = await planFromText(flow.text, { file: "notes.maestro.yaml" });
  assertEquals(plan.actions, trailToPlan(trail).actions);
});

Deno.test("the Maestro export uses only Maestro's documented commands, as the corpus flows do", async () => {
  const trail = parseTrail(await Deno.readTextFile(NOTES), NOTES);
  const used = new Set(commandNames(trailToMaestro(trail, { appId: "a.b" }).text));
  for (const name of used) {
    assert(MAESTRO_COMMANDS.includes(name), `${name} is not a Maestro command`);
  }
  for (const expected of ["tapOn", "inputText", "assertVisible", "copyTextFrom", "evalScript"]) {
    assert(used.has(expected), `the export uses ${expected}`);
  }
  let corpus = 0;
  for await (const e of Deno.readDir(CORPUS)) {
    if (!/\.ya?ml$/.test(e.name)) continue;
    const text = await Deno.readTextFile(join(CORPUS, e.name));
    parseMaestroFlow(text, e.name); // a real flow reads
    for (const name of commandNames(text)) {
      assert(MAESTRO_COMMANDS.includes(name), `${e.name}: ${name} missing from the documented set`);
      corpus++;
    }
  }
  assert(corpus > 20, `the corpus holds flows (${corpus} commands)`);
});

Deno.test("what Maestro cannot say is a warning naming the action; chains keep their first expressible selector", () => {
  const trail = parseTrail(
    `config: { id: t, platform: android }
trail:
  - step: Go
    recording:
      - tap:
          selectors: [{ className: android.widget.Button, index: 2 }, { text: Go }, { xy: [1, 2] }]
      - hover: { selector: { text: Menu } }
`,
  );
  const out = trailToMaestro(trail, { appId: "a.b" });
  assertStringIncludes(out.text, "text: Go");
  assertEquals(out.warnings, [
    `step 1 "Go", action 1 (tap): Maestro has no selector fallbacks: selector 2 of 3 used, the others left out`,
    `step 1 "Go", action 2 (hover): a device has no pointer to hover with; left out`,
  ]);
});

const MAIN = `${ROOT}main.ts`;
async function cairn(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const o = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", MAIN, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const d = new TextDecoder();
  return { code: o.code, stdout: d.decode(o.stdout), stderr: d.decode(o.stderr) };
}

Deno.test("cairn ingest FLOW.yaml writes the trail beside the database; a web flow or runScript is refused naming the line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-maestro-ingest-" });
  try {
    const flowFile = join(dir, "notes.maestro.yaml");
    const exp = await cairn([
      "export",
      NOTES,
      "--format",
      "maestro",
      "--app-id",
      "com.example.notes",
      "--out",
      flowFile,
    ]);
    assertEquals(exp.code, 0, exp.stderr);
    const db = join(dir, "data", "cairn.db");
    const ing = await cairn(["ingest", flowFile, "--db", db]);
    assertEquals(ing.code, 0, ing.stderr);
    const written = ing.stdout.trim();
    assertEquals(dirname(written), join(dir, "data", "trails"));
    assertEquals(
      await Deno.readTextFile(written),
      stringifyTrail(parseTrail(await Deno.readTextFile(NOTES))),
    );

    const web = join(dir, "web.yaml");
    await Deno.writeTextFile(web, "url: https://example.com\nappId: web\n---\n- tapOn: Go\n");
    const refused = await cairn(["ingest", web, "--db", db]);
    assertEquals(refused.code, 2);
    assertStringIncludes(refused.stderr, "a Maestro web flow");
    const script = join(dir, "script.yaml");
    await Deno.writeTextFile(script, "appId: a.b\n---\n- launchApp\n- runScript: x.js\n");
    const s = await cairn(["ingest", script, "--db", db]);
    assertEquals(s.code, 2);
    assertEquals(
      s.stderr.trim(),
      `cairn ingest: ${script}:4: runScript: no trail action does this`,
    );
    // a corpus flow reads, what the trail does not carry named on stderr
    const corpus = await cairn(["ingest", `${CORPUS}/demo_app_fill_form.yaml`, "--db", db]);
    assertEquals(corpus.code, 0, corpus.stderr);
    assertStringIncludes(
      corpus.stderr,
      "demo_app_fill_form.yaml:15: assertVisible: optional: true is not carried",
    );
    assertStringIncludes(await Deno.readTextFile(corpus.stdout.trim()), 'tap: "Form Test"');
    const help = await cairn(["ingest", "--help"]);
    assertStringIncludes(help.stdout, "Maestro flow");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
