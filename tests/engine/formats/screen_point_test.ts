import { assert, assertEquals, assertRejects } from "../../_fixtures/assert.ts";
import { EVENT_SCHEMAS } from "../../../events/schemas.ts";
import { FormatError } from "../../../engine/input/format_error.ts";
import { prepareImport } from "../../../engine/formats/import_file.ts";
import { geometryOutOfRange, MAX_COORDINATE } from "../../../engine/formats/screen_point.ts";
import { planFromText } from "../../../engine/playback/load_plan.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
const RECORDING = JSON.parse(
  Deno.readTextFileSync(`${ROOT}tests/testdata/playback/signin.recording_v1.json`),
);
const RECORDER = JSON.parse(
  Deno.readTextFileSync(`${ROOT}tests/testdata/playback/signin.recorder.json`),
);
const START = { type: "SessionStarted", data: { sessionId: "x", mode: "agent", platform: "web" } };

/** Each way a point comes in from a file: the text with `v` as one coordinate, and its field. */
const FILES: [string, (v: number) => string, string][] = [
  [
    "capture coordinates",
    (v) =>
      JSON.stringify({
        format: "cairn.capture/v1",
        platform: "web",
        actions: [{ action: "tap", coordinates: { x: v, y: 10 } }],
      }),
    "actions.0.coordinates.x",
  ],
  [
    "capture swipe end",
    (v) =>
      JSON.stringify({
        format: "cairn.capture/v1",
        platform: "android",
        actions: [{ action: "swipe", coordinates: { x: 1, y: 1 }, to: { x: 1, y: v } }],
      }),
    "actions.0.to.y",
  ],
  [
    "recording_v1 step x",
    (v) => {
      const r = structuredClone(RECORDING);
      r.timeline[1].step.x = v;
      r.timeline[1].step.y = 5;
      return JSON.stringify(r);
    },
    "timeline.1.step.x",
  ],
  [
    "recording_v1 target y",
    (v) => {
      const r = structuredClone(RECORDING);
      r.timeline[1].step.target.x = 5;
      r.timeline[1].step.target.y = v;
      return JSON.stringify(r);
    },
    "timeline.1.step.target.y",
  ],
  [
    "Recorder click offsetX",
    (v) => {
      const r = structuredClone(RECORDER);
      r.steps[2].offsetX = v;
      return JSON.stringify(r);
    },
    "steps.2.offsetX",
  ],
  [
    "Recorder scroll y",
    (v) => {
      const r = structuredClone(RECORDER);
      r.steps.push({ type: "scroll", x: 0, y: v });
      return JSON.stringify(r);
    },
    `steps.${RECORDER.steps.length}.y`,
  ],
  [
    "events file ActionPerformed.point",
    (v) =>
      [
        START,
        {
          type: "ActionPerformed",
          data: { actionId: "a1", kind: "tap", point: { x: v, y: 0 }, source: "agent" },
        },
      ].map((e) => JSON.stringify(e)).join("\n"),
    "line 2: data.point.x",
  ],
  [
    "events file ScreenCaptured.scroll",
    (v) =>
      [
        START,
        { type: "ActionPerformed", data: { actionId: "a1", kind: "swipe", source: "agent" } },
        {
          type: "ActionPerformed",
          data: { actionId: "a2", kind: "swipe", to: { x: 0, y: v }, source: "agent" },
        },
      ].map((e) => JSON.stringify(e)).join("\n"),
    "line 3: data.to.y",
  ],
];

const readFile = () => Promise.reject(new Error("no files here"));

Deno.test("prepareImport() takes a point up to Chromium's layout size and refuses one beyond, naming the field", async (t) => {
  for (const [name, text, field] of FILES) {
    await t.step(name, async () => {
      for (const v of [0, -12.5, MAX_COORDINATE, -MAX_COORDINATE]) {
        const ok = await prepareImport(text(v), { newSessionId: () => "s", readFile });
        assert(ok.sessions[0]!.events.length > 0, `${name}: ${v}`);
      }
      for (const v of [MAX_COORDINATE + 1, -MAX_COORDINATE - 1, 1e300, -1e20]) {
        const err = await assertRejects(
          () => prepareImport(text(v), { newSessionId: () => "s", readFile }),
          FormatError,
        );
        assert(
          err.message.startsWith(`${field}: expected a coordinate from -33554431 to 33554431`),
          `${name} = ${v}: ${err.message}`,
        );
      }
    });
  }
});

Deno.test("planFromText() refuses a synthetic action's point beyond Chromium's layout size", async () => {
  const cases: [unknown, string][] = [
    [[{ action: "click", x: 1e300, y: 4 }], "0.x"],
    [[{ action: "scroll", scroll_to: { x: 0, y: -1e20 } }], "0.scroll_to.y"],
  ];
  for (const [actions, field] of cases) {
    const err = await assertRejects(
      () => planFromText(JSON.stringify(actions), { file: "a.json", readFile }),
      FormatError,
    );
    assert(err.message.startsWith(`a.json: ${field}: expected a coordinate from`), err.message);
  }
  const ok = await planFromText(JSON.stringify([{ action: "click", x: MAX_COORDINATE, y: 4 }]), {
    file: "a.json",
    readFile,
  });
  assertEquals(ok.actions[0]!.target?.point, { x: MAX_COORDINATE, y: 4 });
});

Deno.test("geometryOutOfRange() checks incoming points only; the stored schema still reads a far one", () => {
  const far = { actionId: "a1", kind: "tap", point: { x: 1e300, y: 0 }, source: "agent" };
  assertEquals(geometryOutOfRange("ActionPerformed", far)?.path, "point.x");
  assertEquals(
    geometryOutOfRange("ScreenCaptured", { scroll: { x: 0, y: 4e7 } })?.path,
    "scroll.y",
  );
  assertEquals(geometryOutOfRange("StepStarted", { index: 0, text: "x" }), undefined);
  const size = (width: number, height: number) => ({ viewport: { width, height } });
  assertEquals(geometryOutOfRange("SessionStarted", size(0, 720))?.path, "viewport.width");
  assertEquals(geometryOutOfRange("ScreenCaptured", size(1280, -1))?.path, "viewport.height");
  assertEquals(geometryOutOfRange("PlaybackStarted", size(1280, 4e7))?.path, "viewport.height");
  assertEquals(geometryOutOfRange("SessionStarted", size(1280, 720)), undefined);
  assertEquals(
    geometryOutOfRange("SessionStarted", { devicePixelRatio: 0 })?.message,
    "expected a device pixel ratio above 0",
  );
  const box = (w: number) => ({ bounds: { x: 0, y: 0, w, h: 1 } });
  assertEquals(geometryOutOfRange("PlaybackActionResolved", box(-1))?.path, "bounds.w");
  assertEquals(geometryOutOfRange("PlaybackActionResolved", box(0)), undefined);
  // an event stored before the bound stays readable as it was
  assertEquals(EVENT_SCHEMAS.ActionPerformed.parse(far).point, { x: 1e300, y: 0 });
});
