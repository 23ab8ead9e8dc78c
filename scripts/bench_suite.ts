/**
 * `cairn replay` suites: `--workers 1` against `--workers 2` on the same 10 trails, in one run of
 * this script, against test pages on 127.0.0.1 (BENCHMARKS.md). Each trail waits for the page as
 * a CI suite's trails do: it types a name, runs a report that the page shows ?delay=MS later
 * (`tests/testdata/web/slow_report.html`, 1200 ms) and asserts it, so a trail is at least that
 * long however fast the machine is, and two workers can overlap the waits even on 2 busy cores.
 * Prints each command's wall time (Deno start and browser launch included), the suite's own
 * total, the speed-up of both, and the load average before each command.
 *
 *   deno run -A scripts/bench_suite.ts [--runs N] [--delay MS]
 *
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { servePlaybackPages } from "../tests/_fixtures/playback_server.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "1" }, delay: { type: "string", default: "1200" } },
});
const RUNS = Math.max(1, Math.min(10, Number(values.runs) || 1));
const DELAY = Math.max(0, Math.min(10_000, Number(values.delay) || 0));
const TRAILS = 10;

const ROOT = new URL("../", import.meta.url).pathname;
const pages = await Deno.makeTempDir({ prefix: "cairn-bench-suite-pages-" });
const dir = await Deno.makeTempDir({ prefix: "cairn-bench-suite-" });
await Deno.copyFile(`${ROOT}tests/testdata/web/slow_report.html`, join(pages, "slow_report.html"));
const server = servePlaybackPages(pages);

/** Trail `i`: a name typed, the report run, its delayed line asserted. */
function trail(i: number): string {
  const name = `Ann ${i}`;
  return `config:
  id: slow-report-${i}
  title: Run a slow report
  platform: web
  url: http://localhost:8000/slow_report.html?delay=${DELAY}
trail:
  - step: Enter the name
    recording:
      - inputText:
          selector: { id: name }
          selectors: [{ ariaLabel: Name }]
          text: ${JSON.stringify(name)}
  - step: Run the report
    recording:
      - tap:
          selector: { id: run }
          selectors: [{ role: button, name: Run the report }]
  - step: The report is ready
    recording:
      - assertText:
          selector: { id: status }
          equals: ${JSON.stringify(`Report for ${name}: ready`)}
      - assertVisible:
          selector: { text: Run the report }
`;
}

const load = async () =>
  (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");

/** One `cairn replay` of the suite: wall ms, the suite's own ms, its summary line. */
async function replay(workers: number, suite: string, run: number) {
  const t0 = performance.now();
  const o = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `${ROOT}main.ts`,
      "replay",
      suite,
      "--url",
      server.url,
      "--workers",
      String(workers),
      "--db",
      join(dir, `cairn-${run}-${workers}.db`),
      "--screenshots",
      join(dir, "shots"),
    ],
    stdout: "piped",
    stderr: "piped",
    env: { CI: "1" },
  }).output();
  const wall = performance.now() - t0;
  const out = new TextDecoder().decode(o.stdout);
  const summary = out.split("\n").find((l) => /trails: /.test(l)) ?? "";
  const own = Number(summary.match(/\(([\d.]+) s,/)?.[1] ?? NaN) * 1000;
  if (o.code !== 0) {
    console.log(out, new TextDecoder().decode(o.stderr));
    throw new Error(`--workers ${workers}: exit ${o.code}`);
  }
  return { wall, own, summary };
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
try {
  const suite = join(dir, "e2e");
  await Deno.mkdir(suite);
  for (let i = 0; i < TRAILS; i++) {
    await Deno.writeTextFile(join(suite, `t${String(i).padStart(2, "0")}.trail.yaml`), trail(i));
  }
  console.log(
    `${TRAILS} trails, each waiting ${DELAY} ms for its report; ${navigator.hardwareConcurrency} cores`,
  );
  for (let run = 1; run <= RUNS; run++) {
    const load1 = await load();
    const one = await replay(1, suite, run);
    const load2 = await load();
    const two = await replay(2, suite, run);
    console.log(
      `run ${run}: --workers 1 ${s(one.wall)} (${s(one.own)}) [load ${load1}] | --workers 2 ${
        s(two.wall)
      } (${s(two.own)}) [load ${load2}] | speed-up ${(one.wall / two.wall).toFixed(2)}× wall, ${
        (one.own / two.own).toFixed(2)
      }× suite`,
    );
  }
} finally {
  await server.close();
  await Deno.remove(dir, { recursive: true });
  await Deno.remove(pages, { recursive: true });
}
