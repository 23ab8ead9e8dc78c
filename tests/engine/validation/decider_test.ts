import { assertEquals, assertStringIncludes, assertThrows } from "../../_fixtures/assert.ts";
import type { NewEvent } from "../../../events/schemas.ts";
import {
  decide,
  evolve,
  initialState,
  nextMove,
  type Policy,
  policyFlags,
  type StepOutcome,
  type ValidationCommand,
  type ValidationState,
} from "../../../engine/validation/decider.ts";
import { renderStepTable, validationReport } from "../../../engine/validation/report.ts";

function given(events: NewEvent[]): ValidationState {
  return events.reduce(evolve, initialState);
}

function when(state: ValidationState, command: ValidationCommand): ValidationState {
  return decide(command, state).reduce(evolve, state);
}

function started(policy: Policy, maxIterations = 3): ValidationState {
  return given(decide({
    type: "StartValidation",
    data: { validationId: "v1", sessionId: "s1", policy, maxIterations },
  }, initialState));
}

function outcome(index: number, passed: boolean, extra: Partial<StepOutcome> = {}): StepOutcome {
  return { index, step: `step ${index}`, passed, evidence: [], refined: false, ...extra };
}

function iterate(state: ValidationState, outcomes: StepOutcome[]): ValidationState {
  return when(state, {
    type: "RecordIteration",
    data: { playbackId: `p${state.iteration + 1}`, trail: "t", outcomes },
  });
}

Deno.test("policyFlags() maps each workflow to its loop", () => {
  const cases: [Policy, number, ReturnType<typeof policyFlags>][] = [
    ["authoring", 3, { maxIterations: 3, refine: true, persist: true, onUnstable: "flag" }],
    ["authoring", 5, { maxIterations: 5, refine: true, persist: true, onUnstable: "flag" }],
    ["dev", 5, { maxIterations: 2, refine: true, persist: false, onUnstable: "fallback_nl" }],
    ["ci", 5, { maxIterations: 1, refine: false, persist: false, onUnstable: "reblaze" }],
  ];
  for (const [policy, n, want] of cases) assertEquals(policyFlags(policy, n), want);
});

Deno.test("decide() refuses to start twice or record before starting", () => {
  const s = started("authoring");
  assertThrows(
    () =>
      decide({
        type: "StartValidation",
        data: { validationId: "v1", sessionId: "s1", policy: "ci", maxIterations: 1 },
      }, s),
    TypeError,
    "already started",
  );
  assertThrows(
    () =>
      decide(
        { type: "RecordIteration", data: { playbackId: "p", trail: "", outcomes: [] } },
        initialState,
      ),
    TypeError,
    "not running",
  );
});

Deno.test("decide() and nextMove() under authoring: a step refined after a failure converges when the next replay passes", () => {
  let s = started("authoring");
  assertEquals(nextMove(s), "replay");
  s = iterate(s, [outcome(0, true), outcome(1, false, { refined: true })]);
  assertEquals(s.iterations[0]!.steps.map((x) => x.status), ["stable", "unstable"]);
  assertEquals(nextMove(s), "replay");
  s = iterate(s, [outcome(0, true), outcome(1, true)]);
  assertEquals(nextMove(s), "complete");
  s = when(s, { type: "CompleteValidation", data: { trail: "final" } });
  assertEquals(s.status, "stable");
  assertEquals(s.finalSteps!.map((x) => x.status), ["stable", "refined"]);
});

Deno.test("decide() and nextMove() under authoring: a step that failed without a refinement stays unstable even if a later replay passes", () => {
  let s = started("authoring");
  s = iterate(s, [outcome(0, true), outcome(1, false)]);
  assertEquals(nextMove(s), "replay");
  s = iterate(s, [outcome(0, true), outcome(1, true)]); // a lucky load
  assertEquals(nextMove(s), "replay");
  s = iterate(s, [outcome(0, true), outcome(1, false)]);
  assertEquals(nextMove(s), "complete"); // 3 of 3
  s = when(s, { type: "CompleteValidation", data: { trail: "final" } });
  assertEquals(s.status, "unstable");
  assertEquals(s.finalSteps!.map((x) => x.status), ["stable", "unstable"]);
  assertStringIncludes(s.message ?? "", 'step 2 "step 1" after 3 iterations');
});

Deno.test("decide() keeps an unstable step's last failure in its evidence when the last replay was lucky", () => {
  let s = started("authoring");
  s = iterate(s, [outcome(0, false, { evidence: ["action 1: the element is disabled"] })]);
  s = iterate(s, [outcome(0, false, { evidence: ["action 1: not the same element"] })]);
  s = iterate(s, [outcome(0, true, { evidence: ["action 1: same element"] })]); // a lucky load
  s = when(s, { type: "CompleteValidation", data: { trail: "final" } });
  assertEquals(s.finalSteps![0]!.status, "unstable");
  assertEquals(s.finalSteps![0]!.evidence, [
    "iteration 2: action 1: not the same element",
    "action 1: same element",
  ]);
});

Deno.test("decide() and nextMove() under authoring: a failure that only followed an earlier failure is not held against the step", () => {
  let s = started("authoring");
  s = iterate(s, [outcome(0, false, { refined: true }), outcome(1, false, { dependent: true })]);
  assertEquals(s.iterations[0]!.steps[1]!.dependent, true);
  s = iterate(s, [outcome(0, true), outcome(1, true)]);
  assertEquals(nextMove(s), "complete");
  s = when(s, { type: "CompleteValidation", data: { trail: "final" } });
  assertEquals(s.finalSteps!.map((x) => x.status), ["refined", "stable"]);
});

Deno.test("decide() and nextMove() under dev: stops after one replay when nothing could be refined, and falls back to NL", () => {
  let s = started("dev", 9);
  s = iterate(s, [outcome(0, false)]);
  assertEquals(nextMove(s), "complete");
  s = when(s, { type: "CompleteValidation", data: { trail: "final" } });
  assertEquals(s.status, "unstable");
  assertStringIncludes(s.message ?? "", "Fell back to the NL step");
});

Deno.test("decide() and nextMove() under dev: one refinement earns one more replay, never a third", () => {
  let s = started("dev");
  s = iterate(s, [outcome(0, false, { refined: true })]);
  assertEquals(nextMove(s), "replay");
  s = iterate(s, [outcome(0, false, { refined: true })]);
  assertEquals(nextMove(s), "complete");
});

Deno.test("decide() and nextMove() under ci: one replay; a failure completes as failed and asks for a new blaze", () => {
  let s = started("ci", 3);
  assertEquals(s.maxIterations, 3);
  s = iterate(s, [outcome(0, true), outcome(1, false, { evidence: ["selector_not_found: x"] })]);
  assertEquals(nextMove(s), "complete");
  s = when(s, { type: "CompleteValidation", data: { trail: "t" } });
  assertEquals(s.status, "failed");
  assertStringIncludes(s.message ?? "", 'step 2 "step 1": selector_not_found: x');
  assertStringIncludes(s.message ?? "", "a new blaze");
});

Deno.test("decide() never completes stable without a proven step: a skipped step makes it unstable, nothing proven (skipped, not_recordable, empty) fails", () => {
  const skipped = (i: number) =>
    outcome(i, true, {
      missing: "password",
      evidence: ['action 1: not validated: memory "password" has no value'],
    });
  const agent = (i: number) => outcome(i, true, { notRecordable: true, evidence: ["agent"] });
  const empty = (i: number) => outcome(i, true, { empty: true, evidence: ["empty recording"] });
  const cases: [StepOutcome[], string, string[], string][] = [
    [[outcome(0, true), agent(1)], "stable", ["stable", "not_recordable"], ""],
    [
      [outcome(0, true), skipped(1)],
      "unstable",
      ["stable", "skipped"],
      'Not proven stable: step 2 "step 1" not validated: memory "password" has no value',
    ],
    [
      [skipped(0), agent(1)],
      "failed",
      ["skipped", "not_recordable"],
      'Nothing was validated: step 1 "step 0" not validated: memory "password" has no value; ' +
      'step 2 "step 1" is recordable: false (the agent handles it)',
    ],
    [[agent(0)], "failed", ["not_recordable"], "Nothing was validated: step 1"],
    // an empty recording passes, but replays nothing: it proves nothing either
    [
      [empty(0), empty(1)],
      "failed",
      ["stable", "stable"],
      'Nothing was validated: step 1 "step 0" has an empty recording (it replays no action); ' +
      'step 2 "step 1" has an empty recording (it replays no action)',
    ],
    [
      [empty(0), skipped(1)],
      "failed",
      ["stable", "skipped"],
      'Nothing was validated: step 1 "step 0" has an empty recording (it replays no action); ' +
      'step 2 "step 1" not validated',
    ],
    [[empty(0), agent(1)], "failed", ["stable", "not_recordable"], "Nothing was validated"],
    [[outcome(0, true), empty(1)], "stable", ["stable", "stable"], ""],
  ];
  for (const policy of ["authoring", "ci"] as const) {
    for (const [outcomes, status, steps, message] of cases) {
      let s = iterate(started(policy), outcomes);
      assertEquals(nextMove(s), "complete");
      s = when(s, { type: "CompleteValidation", data: { trail: "t" } });
      assertEquals([s.status, s.finalSteps!.map((x) => x.status)], [status, steps], policy);
      if (message) assertStringIncludes(s.message ?? "", message);
      else assertEquals(s.message, undefined);
    }
  }
});

Deno.test("evolve() rejects an event of another stream", () => {
  assertThrows(
    () => evolve(initialState, { type: "StepStarted", data: { index: 0, text: "x" } }),
    TypeError,
    "does not belong",
  );
});

Deno.test("decide() under ci quotes the line that explains the failure, not how the element was found", () => {
  let s = iterate(started("ci"), [
    outcome(0, false, {
      evidence: [
        "action 1 (tap): resolved with test_id add-x1",
        'action 1 (tap): a different element: name "Add Apple" → "Add Banana"',
      ],
    }),
  ]);
  s = when(s, { type: "CompleteValidation", data: { trail: "t" } });
  assertEquals(s.status, "failed");
  assertStringIncludes(
    s.message ?? "",
    'Replay failed at step 1 "step 0": action 1 (tap): a different element: name "Add Apple"',
  );
});

Deno.test("decide() counts one iteration in the singular; the table lists an empty recording as empty", () => {
  let s = iterate(started("authoring", 1), [outcome(0, false, { evidence: ["x"] })]);
  s = when(s, { type: "CompleteValidation", data: { trail: "t" } });
  assertStringIncludes(s.message ?? "", "after 1 iteration: marked recordable: false");
  let e = iterate(started("authoring"), [
    outcome(0, true, { empty: true, evidence: ["empty recording"] }),
  ]);
  e = when(e, { type: "CompleteValidation", data: { trail: "t" } });
  assertEquals(e.status, "failed");
  const table = renderStepTable(validationReport(e));
  assertStringIncludes(table, "empty     1. step 0");
  assertEquals(table.includes("stable"), false, table);
});

Deno.test("decide() holds a step failing only after an earlier failure neither against it nor as proven", () => {
  const dependent = (i: number) =>
    outcome(i, false, {
      dependent: true,
      evidence: ['not validated: it failed only after step 1 "step 0" failed'],
    });
  // the earlier step is refined, and both pass the next replay: both converge
  let s = iterate(started("authoring"), [outcome(0, false, { refined: true }), dependent(1)]);
  assertEquals(nextMove(s), "replay");
  s = iterate(s, [outcome(0, true), outcome(1, true)]);
  assertEquals(nextMove(s), "complete");
  s = when(s, { type: "CompleteValidation", data: { trail: "t" } });
  assertEquals([s.status, s.finalSteps!.map((x) => x.status)], ["stable", ["refined", "stable"]]);
  // after a step not replayed, nothing changes with another replay: it is not validated
  let m = iterate(started("authoring"), [
    outcome(0, true),
    outcome(1, true, { missing: "pw", evidence: ['not validated: memory "pw" has no value'] }),
    dependent(2),
  ]);
  assertEquals(nextMove(m), "complete");
  m = when(m, { type: "CompleteValidation", data: { trail: "t" } });
  assertEquals([m.status, m.finalSteps!.map((x) => x.status)], [
    "unstable",
    ["stable", "skipped", "skipped"],
  ]);
  assertStringIncludes(
    m.message ?? "",
    'step 3 "step 2" not validated: it failed only after step 1',
  );
});

Deno.test("decide() under ci: a step with an action the player did not play is skipped (not proven), never a re-blaze", () => {
  let s = started("ci");
  s = iterate(s, [
    outcome(0, true),
    outcome(1, true, {
      unplayed: "action 1 (back) was not played (Cairn does not play back)",
      evidence: ["not validated: action 1 (back) was not played (Cairn does not play back)"],
    }),
  ]);
  assertEquals(nextMove(s), "complete");
  s = when(s, { type: "CompleteValidation", data: { trail: "t" } });
  assertEquals(s.status, "unstable");
  assertEquals(s.finalSteps!.map((x) => x.status), ["stable", "skipped"]);
  assertStringIncludes(
    s.message ?? "",
    'step 2 "step 1" not validated: action 1 (back) was not played',
  );
  assertEquals(/new blaze|recordable: false/.test(s.message ?? ""), false);
});
