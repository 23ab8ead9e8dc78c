/**
 * The slots pass tells fields apart when no node is resolved (a Recorder flow, a recording_v1
 * trace without screens): inputs into two recorded fields are two slots, not one merged value.
 */
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { parseTrail, type TrailAction } from "../../../engine/trail/trail.ts";
import { projectTrail } from "../../../engine/optimizer/trail_projection.ts";
import { loadCaptureFile } from "../../_fixtures/optimizer_support.ts";

const DIR = new URL("../../testdata/optimizer_slots/", import.meta.url).pathname;

async function project(path: string, heuristics: string) {
  const c = await loadCaptureFile(path, "t");
  const p = projectTrail(c.events, { screens: c.screens, heuristics });
  return { trail: parseTrail(p.yaml), explain: p.explain };
}

function actions(t: ReturnType<typeof parseTrail>): TrailAction[] {
  return t.trail.flatMap((s) => s.recording ?? []);
}

for (const heuristics of ["v1", "v2"]) {
  Deno.test(`projectTrail() ${heuristics} keeps a Recorder flow's changes of #one and #two as two inputs`, async () => {
    const { trail } = await project(`${DIR}two_changes.json`, heuristics);
    const typed = actions(trail).filter((a) => a.kind === "inputText");
    assertEquals(typed, [
      { kind: "inputText", selector: { id: "one" }, text: "{{one}}" },
      { kind: "inputText", selector: { id: "two" }, text: "{{two}}" },
    ]);
    assertEquals(trail.config.memory, { one: "alpha", two: "beta" });
  });

  Deno.test(`projectTrail() ${heuristics} keeps the email a recording_v1 sign-in typed before the password`, async () => {
    const { trail, explain } = await project(
      "tests/testdata/playback/signin.recording_v1.json",
      heuristics,
    );
    const typed = actions(trail).filter((a) => a.kind === "inputText");
    assertEquals(typed, [
      { kind: "inputText", selector: { testId: "email-input" }, text: "{{email}}" },
      { kind: "inputText", selector: { testId: "password-input" }, text: "{{password}}" },
    ]);
    assertEquals(trail.config.memory, { email: "ann@example.com", password: null });
    assert(!explain.some((e) => e.lines.some((l) => l.includes("part of a longer input"))));
  });
}

Deno.test("projectTrail() still merges a Recorder's successive changes of one field into one input", async () => {
  const flow = {
    title: "One field",
    steps: [
      { type: "navigate", url: "http://127.0.0.1:8791/input.html" },
      { type: "change", value: "al", selectors: [["#one"]], target: "main" },
      { type: "change", value: "alpha", selectors: [["#one"]], target: "main" },
      { type: "change", value: "beta", selectors: [["#two"]], target: "main" },
    ],
  };
  const path = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await Deno.writeTextFile(path, JSON.stringify(flow));
    for (const heuristics of ["v1", "v2"]) {
      const { trail, explain } = await project(path, heuristics);
      assertEquals(actions(trail).filter((a) => a.kind === "inputText"), [
        { kind: "inputText", selector: { id: "one" }, text: "{{one}}" },
        { kind: "inputText", selector: { id: "two" }, text: "{{two}}" },
      ], heuristics);
      assertEquals(trail.config.memory, { one: "alpha", two: "beta" }, heuristics);
      assertStringIncludes(explain[1]!.outcome, "keystrokes merged into the inputText of action 3");
    }
  } finally {
    await Deno.remove(path);
  }
});
