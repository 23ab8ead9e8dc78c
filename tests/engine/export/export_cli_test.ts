/**
 * `cairn export --format playwright|maestro|recorder` without running the other runners: a
 * stored session is projected into a trail first; a capture file is refused naming the way; the
 * mappings of chains, row anchors, indexes and templates.
 */
import { join } from "node:path";
import { assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { expressionToTs, stringToTs } from "../../../engine/export/playwright.ts";
import { recorderSelector } from "../../../engine/export/recorder.ts";
import { secretEnvName } from "../../../engine/export/shared.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
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

Deno.test("cairn export SESSION --format playwright projects the session into a trail; a capture file is refused", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-export-cli-" });
  try {
    const db = join(dir, "cairn.db");
    const capture = `${ROOT}examples/web_checkout.capture.json`;
    const ing = await cairn(["ingest", capture, "--db", db]);
    assertEquals(ing.code, 0, ing.stderr);
    const id = ing.stdout.trim();
    const trail = await cairn(["optimize", id, "--db", db]);
    const steps = trail.stdout.split("\n").filter((l) => /^ {2}- step: /.test(l)).length;
    const spec = await cairn(["export", id.slice(0, 8), "--format", "playwright", "--db", db]);
    assertEquals(spec.code, 0, spec.stderr);
    assertEquals(spec.stdout.match(/await test\.step\(/g)?.length, steps);
    assertStringIncludes(spec.stdout, `import { expect, test } from "@playwright/test";`);
    const refused = await cairn(["export", capture, "--format", "recorder", "--db", db]);
    assertEquals(refused.code, 2);
    assertEquals(
      refused.stderr.trim(),
      `cairn export: ${capture}: a JSON file, not a trail: \`cairn optimize ${capture} -o t.trail.yaml\` projects a capture into one`,
    );
    const missing = await cairn(["export", "nowhere.yaml", "--format", "maestro", "--db", db]);
    assertEquals(missing.code, 2);
    assertStringIncludes(missing.stderr, "nowhere.yaml: no such file");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the mappings: templates as TypeScript, Recorder selectors for chains, indexes and row anchors", () => {
  assertEquals(expressionToTs("itemCount + 1"), `num(mem["itemCount"]) + 1`);
  assertEquals(expressionToTs("a == 'x'"), `mem["a"] === 'x'`);
  assertEquals(stringToTs("Hi {{first}}!"), '`Hi ${String(mem["first"])}!`');
  assertEquals(stringToTs("cost $5"), '"cost $5"');
  assertEquals(secretEnvName("password"), "PASSWORD");
  assertEquals(secretEnvName("cardPin"), "CARD_PIN");
  assertEquals(recorderSelector({ testId: "go" }), '[data-testid="go"]');
  assertEquals(recorderSelector({ role: "button", name: "Log in" }), 'aria/Log in[role="button"]');
  assertEquals(recorderSelector({ text: "Add" }), "text/Add");
  assertEquals(recorderSelector({ testId: "row", index: 2 }), 'xpath/(//*[@data-testid="row"])[3]');
  assertEquals(
    recorderSelector({ text: "Add", childOf: { text: "Banana" } }),
    'xpath/(//*[.//*[normalize-space(.)="Banana"] and .//*[normalize-space(.)="Add"]])[last()]//*[normalize-space(.)="Add"]',
  );
  assertEquals(recorderSelector({ id: "save", childOf: { id: "form" } }), "#form #save");
  assertEquals(recorderSelector({ textRegex: "Add.*" }), undefined);
});
