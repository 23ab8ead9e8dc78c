/**
 * Writes the optimizer's golden inputs, `tests/testdata/optimizer/<case>/events.jsonl`, from
 * the example captures (Cairn's event export with the hierarchies embedded), and — with
 * `--expected` — the expected trail YAML of each case (`strict`, `flexible`, `adaptive` under
 * heuristics v1, `strict.v2`, … under v2, `strict.v3`, … under v3, `raw_v0` under v0), to be read by eye before committing.
 * Run: `deno run -A scripts/make_optimizer_goldens.ts [--expected]`.
 *
 * @module
 */
import { blobRefOf } from "../engine/formats/blob_ref.ts";
import { formatEventsJsonl } from "../engine/formats/events_jsonl.ts";
import { projectTrail } from "../engine/optimizer/trail_projection.ts";
import { loadCaptureFile, loadEventsFile } from "../tests/_fixtures/optimizer_support.ts";

/** Golden cases: name → example capture file. */
export const GOLDEN_CASES: Record<string, string> = {
  inventory: "examples/inventory.capture.json",
  merchant_email: "examples/merchant.capture.json",
  web_checkout: "examples/web_checkout.capture.json",
  // A Chrome DevTools Recorder flow: no screens, selectors from the recorder.
  chrome_recorder_coffee: "../shared/corpus/chrome-recorder/nightwatch_order-a-coffee.json",
  // An agent's recording_v1 trace: AX snapshots, targets by role + name, no points.
  recording_v1_agent: "tests/testdata/formats/vw-ax-agent-trace-7f3c-20251219-120000.json",
};

if (import.meta.main) {
  const expected = Deno.args.includes("--expected");
  for (const [name, file] of Object.entries(GOLDEN_CASES)) {
    try {
      await Deno.stat(file);
    } catch {
      console.log(`skip ${name}: ${file} missing`);
      continue;
    }
    const dir = `tests/testdata/optimizer/${name}`;
    await Deno.mkdir(dir, { recursive: true });
    const c = await loadCaptureFile(file, name);
    const blobs = new Map(c.blobs.map((b) => [blobRefOf(b).hash, b.bytes]));
    await Deno.writeTextFile(`${dir}/events.jsonl`, formatEventsJsonl(c.events, blobs));
    if (expected) {
      const g = await loadEventsFile(`${dir}/events.jsonl`);
      for (const mode of ["strict", "flexible", "adaptive"] as const) {
        for (const [heuristics, suffix] of [["v1", ""], ["v2", ".v2"], ["v3", ".v3"]] as const) {
          const p = projectTrail(g.events, { screens: g.screens, mode, heuristics });
          await Deno.writeTextFile(`${dir}/${mode}${suffix}.yaml`, p.yaml);
        }
      }
      const raw = projectTrail(g.events, { screens: g.screens, heuristics: "v0" });
      await Deno.writeTextFile(`${dir}/raw_v0.yaml`, raw.yaml);
    }
    console.log(`wrote ${dir}`);
  }
}
