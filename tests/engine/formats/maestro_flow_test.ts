import { assertEquals, assertThrows } from "../../_fixtures/assert.ts";
import { looksLikeMaestroFlow, parseMaestroFlow } from "../../../engine/formats/maestro_flow.ts";

const CORPUS = new URL("../../../../shared/corpus/maestro/", import.meta.url);

Deno.test("parseMaestroFlow() reads every flow of the corpus: the appId header, ---, then the commands", async () => {
  let n = 0;
  for await (const e of Deno.readDir(CORPUS)) {
    const text = await Deno.readTextFile(new URL(e.name, CORPUS));
    assertEquals(looksLikeMaestroFlow(text), true, e.name);
    const flow = parseMaestroFlow(text, e.name);
    assertEquals(flow.appId.length > 0, true, e.name);
    assertEquals(flow.commands.length > 0, true, e.name);
    n++;
  }
  assertEquals(n, 9);
});

Deno.test("parseMaestroFlow() gives each command its name, argument and line", async () => {
  const text = await Deno.readTextFile(new URL("demo_app_fill_form.yaml", CORPUS));
  const flow = parseMaestroFlow(text);
  assertEquals([flow.appId, flow.tags], ["com.example.example", ["passing"]]);
  assertEquals(flow.commands.slice(0, 4), [
    { name: "launchApp", args: { clearState: true }, line: 5 },
    { name: "tapOn", args: "Form Test", line: 7 },
    { name: "tapOn", args: "Email", line: 8 },
    { name: "inputText", args: "correct@mobile.dev", line: 9 },
  ]);
  assertEquals(flow.commands.at(-2), {
    name: "tapOn",
    args: { text: "Login", index: 1 },
    line: 12,
  });
  const bare = parseMaestroFlow("appId: a\n---\n- back\n");
  assertEquals(bare.commands, [{ name: "back", args: undefined, line: 3 }]);
});

const BAD: [string, string, string][] = [
  ["malformed YAML in the commands", "appId: a\n---\n- tapOn: [\n", "f.yaml:4:1: Flow sequence"],
  ["a header without appId", "name: x\n---\n- back\n", "f.yaml:1:1: appId: expected"],
  ["an appId that is not a string", "appId: [a]\n---\n- back\n", "f.yaml:1:1: appId: expected"],
  ["no commands document", "appId: a\n", "f.yaml:1:1: a Maestro flow is two YAML documents"],
  ["a third document", "appId: a\n---\n- back\n---\n- back\n", "f.yaml:4:1: a Maestro flow is"],
  ["commands that are not a list", "appId: a\n---\nback: 1\n", "f.yaml:3:1: expected the list"],
  ["a command of two keys", "appId: a\n---\n- back\n- a: 1\n  b: 2\n", "f.yaml:4:3: command 2: "],
  ["an empty command", "appId: a\n---\n- back\n- \n", "f.yaml:4:"],
];
for (const [what, text, message] of BAD) {
  Deno.test(`parseMaestroFlow() refuses ${what} with one line naming the file and line`, () => {
    const err = assertThrows(() => parseMaestroFlow(text, "f.yaml"), SyntaxError, message);
    assertEquals(err.message.includes("\n"), false, err.message);
  });
}

Deno.test("looksLikeMaestroFlow() tells a flow from a trail", () => {
  assertEquals(looksLikeMaestroFlow("appId: a\n---\n- back\n"), true);
  assertEquals(looksLikeMaestroFlow("config: {}\ntrail: []\n"), false);
  assertEquals(looksLikeMaestroFlow("config: {}\ntrail: []\n---\nfoo: 1\n"), false);
});
