import { assertEquals } from "../../_fixtures/assert.ts";
import { parseTrail } from "../../../engine/trail/trail.ts";
import { projectTrail } from "../../../engine/optimizer/trail_projection.ts";
import { loadCaptureFile, loadEventsFile } from "../../_fixtures/optimizer_support.ts";

const DIR = new URL("../../testdata/optimizer/", import.meta.url);

/** Seed 000's "Raw recording (from blaze)" text, verbatim. */
const BEFORE_000_TRAIL = `trail:
  - step: Sign in with the test account
    recording:
      - inputText: "alice@example.com"
      - tap: "Next"
      - inputText: "password123"
      - tap: "Sign In"
  - step: Note the current inventory count
    recording:
      - readText: "5"
  - step: Add 2 items
    recording:
      - tap: "Add item"
      - tap: "Add item"
  - step: Verify inventory increased by 2
    recording:
      - assertVisible: "7"
`;

/** Seed 000's "After post-processing" text, verbatim (trail section and config.memory). */
const AFTER_000_TRAIL = trailSection(
  Deno.readTextFileSync(new URL("../../testdata/optimizer/seed_000_after.yaml", import.meta.url)),
);
const AFTER_000_MEMORY = { email: "alice@example.com", password: "password123" };

function trailSection(yaml: string): string {
  return yaml.slice(yaml.indexOf("\ntrail:\n") + 1);
}

Deno.test("projectTrail() turns 000's inventory capture into 000's after trail (strict)", async () => {
  const c = await loadEventsFile(new URL("inventory/events.jsonl", DIR).pathname);
  const p = projectTrail(c.events, { screens: c.screens, mode: "strict" });
  assertEquals(trailSection(p.yaml), AFTER_000_TRAIL);
  assertEquals(parseTrail(p.yaml).config.memory, AFTER_000_MEMORY);
});

Deno.test("projectTrail() in the default mode writes 000's after trail with fallbacks after each first selector", async () => {
  const c = await loadEventsFile(new URL("inventory/events.jsonl", DIR).pathname);
  const p = projectTrail(c.events, { screens: c.screens });
  const adaptive = parseTrail(p.yaml);
  const after = parseTrail(`config: {}\n${AFTER_000_TRAIL}`);
  assertEquals(adaptive.config.memory, AFTER_000_MEMORY);
  assertEquals(adaptive.trail.map((s) => s.step), after.trail.map((s) => s.step));
  let fallbacks = 0;
  adaptive.trail.forEach((s, i) => {
    const want = after.trail[i]!.recording!;
    assertEquals(s.recording!.length, want.length, s.step);
    s.recording!.forEach((a, j) => {
      const w = want[j]!;
      // the same action, slot and expression; the after trail's selector first
      const { selector: _s, selectors, ...rest } = a;
      const { selector: wanted, ...wantedRest } = w;
      assertEquals(rest, wantedRest, `${s.step} #${j + 1}`);
      const chain = selectors ?? (a.selector ? [a.selector] : []);
      assertEquals(chain[0], wanted, `${s.step} #${j + 1}`);
      assertEquals(new Set(chain.map((x) => JSON.stringify(x))).size, chain.length);
      fallbacks += chain.length - 1;
    });
  });
  // every tap and the read keep text, class + index and the point as fallbacks
  assertEquals(fallbacks >= 12, true, `${fallbacks} fallbacks`);
});

Deno.test("projectTrail() under heuristics v0 gives 000's raw recording of the same capture, exactly", async () => {
  const c = await loadEventsFile(new URL("inventory/events.jsonl", DIR).pathname);
  const before = projectTrail(c.events, { screens: c.screens, heuristics: "v0" });
  assertEquals(trailSection(before.yaml), BEFORE_000_TRAIL);
  for (const heuristics of ["v1", "v2"]) {
    const after = projectTrail(c.events, { screens: c.screens, heuristics });
    assertEquals(trailSection(after.yaml), AFTER_000_TRAIL, heuristics);
  }
});

Deno.test("projectTrail() gives the same trail from examples/inventory.capture.json as from its golden events", async () => {
  const file = await loadCaptureFile("examples/inventory.capture.json", "inventory");
  const golden = await loadEventsFile(new URL("inventory/events.jsonl", DIR).pathname);
  assertEquals(
    projectTrail(file.events, { screens: file.screens }).yaml,
    projectTrail(golden.events, { screens: golden.screens }).yaml,
  );
});

for await (const entry of Deno.readDir(DIR)) {
  if (!entry.isDirectory) continue;
  Deno.test(`projectTrail() matches the golden ${entry.name}/raw_v0.yaml`, async () => {
    const c = await loadEventsFile(new URL(`${entry.name}/events.jsonl`, DIR).pathname);
    const expected = await Deno.readTextFile(new URL(`${entry.name}/raw_v0.yaml`, DIR));
    assertEquals(projectTrail(c.events, { screens: c.screens, heuristics: "v0" }).yaml, expected);
  });
  // `MODE.yaml` is what v1 wrote (stored v1 trails re-project to it), `MODE.v2.yaml` v2's,
  // `MODE.v3.yaml` v3's (fallback chains)
  for (const mode of ["strict", "flexible", "adaptive"] as const) {
    for (const [heuristics, suffix] of [["v1", ""], ["v2", ".v2"], ["v3", ".v3"]] as const) {
      const golden = `${entry.name}/${mode}${suffix}.yaml`;
      Deno.test(`projectTrail() under ${heuristics} matches the golden ${golden}`, async () => {
        const c = await loadEventsFile(new URL(`${entry.name}/events.jsonl`, DIR).pathname);
        const expected = await Deno.readTextFile(new URL(golden, DIR));
        assertEquals(
          projectTrail(c.events, { screens: c.screens, mode, heuristics }).yaml,
          expected,
        );
      });
    }
  }
}
