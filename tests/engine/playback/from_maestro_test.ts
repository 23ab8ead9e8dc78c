import { assertEquals } from "../../_fixtures/assert.ts";
import { parseMaestroFlow } from "../../../engine/formats/maestro_flow.ts";
import { maestroToPlan } from "../../../engine/playback/from_maestro.ts";
import { planFromText } from "../../../engine/playback/load_plan.ts";

const CORPUS = new URL("../../../../shared/corpus/maestro/", import.meta.url);

Deno.test("maestroToPlan() maps tapOn, inputText and assertVisible and keeps other commands as skipped", async () => {
  const file = new URL("demo_app_fill_form.yaml", CORPUS).pathname;
  const plan = maestroToPlan(parseMaestroFlow(await Deno.readTextFile(file)), { file });
  assertEquals(plan.source, { kind: "flow", file });
  assertEquals(plan.platform, "android");
  assertEquals(
    plan.actions.map((a) => [a.type, a.target ?? a.text]),
    [
      ["launchApp", undefined],
      ["click", { text: "Form Test" }],
      ["click", { text: "Email" }],
      ["type", "correct@mobile.dev"],
      ["click", { text: "Password" }],
      ["type", "maestro"],
      ["click", { text: "Login", index: 1 }],
      ["assert_visible", { text: "Credentials are correct" }],
    ],
  );
  assertEquals(plan.actions[1]!.label, "com.example.example (line 7)");
});

Deno.test("maestroToPlan() reads a regex text as a regex level, an escaped id as literal, back and tags: ios", () => {
  const plan = maestroToPlan(parseMaestroFlow(
    "appId: a\nname: Login\ntags: [ios]\n---\n" +
      '- tapOn: "LOG IN.*"\n- tapOn:\n    id: "org\\\\.wikipedia:id/search"\n' +
      '- tapOn:\n    id: ".*login_button"\n- back\n- pressKey: Enter\n',
  ));
  assertEquals(plan.platform, "ios");
  assertEquals(plan.actions.map((a) => [a.type, a.target ?? a.key]), [
    ["click", { textRegex: "LOG IN.*" }],
    ["click", { id: "org.wikipedia:id/search" }],
    ["tapOn", undefined], // an id Maestro matches as a regex: kept, reported skipped
    ["key_press", "Back"],
    ["key_press", "Enter"],
  ]);
  assertEquals(plan.actions[0]!.label, "Login (line 5)");
});

Deno.test("maestroToPlan() keeps a tapOn's childOf: an id scopes, a literal text anchors the row, anything else keeps the command unplayed", () => {
  const plan = maestroToPlan(parseMaestroFlow(
    "appId: a\n---\n" +
      "- tapOn:\n    text: Add\n    childOf:\n      text: Banana\n" +
      "- tapOn:\n    id: star\n    childOf:\n      id: row_5\n" +
      "- tapOn:\n    text: View\n    childOf:\n      text: Cable\n      childOf: { text: Office }\n" +
      '- tapOn:\n    text: Add\n    childOf:\n      text: "Ban.*"\n' +
      "- tapOn:\n    text: Add\n    childOf:\n      text: Banana\n      index: 1\n",
  ));
  assertEquals(plan.actions.map((a) => [a.type, a.target]), [
    ["click", { text: "Add", within: { texts: ["Banana"] } }],
    ["click", { id: "star", within: { id: "row_5" } }],
    ["click", { text: "View", within: { texts: ["Cable", "Office"] } }],
    ["tapOn", undefined], // a regex parent: not dropped, kept and reported skipped
    ["tapOn", undefined],
  ]);
});

Deno.test("planFromText() reads a Maestro flow file as a flow and a trail as a trail", async () => {
  const file = new URL("nowinandroid_bookmarks.yaml", CORPUS).pathname;
  const plan = await planFromText(await Deno.readTextFile(file), { file });
  assertEquals([plan.source.kind, plan.platform, plan.actions[1]!.type], [
    "flow",
    "android",
    "click",
  ]);
  const trail = await planFromText("config: { platform: web }\ntrail: []\n");
  assertEquals(trail.source.kind, "trail");
});

Deno.test("maestroToPlan() maps assertNotVisible, longPressOn, a swipe's direction and waitForAnimationToEnd; a swipe between points is kept", () => {
  const plan = maestroToPlan(parseMaestroFlow(
    [
      "appId: com.example",
      "---",
      "- assertNotVisible: Loading",
      "- longPressOn: { id: row }",
      "- swipe: { direction: LEFT }",
      '- swipe: { start: "50%, 15%", end: "15%, 50%" }',
      "- waitForAnimationToEnd",
    ].join("\n"),
  ));
  assertEquals(plan.actions.map((a) => [a.type, a.target ?? a.direction]), [
    ["assert_not_visible", { text: "Loading" }],
    ["long_press", { id: "row" }],
    ["swipe", "left"],
    ["swipe", undefined],
    ["wait", undefined],
  ]);
});
