/**
 * The event store's four targets over several runs of its benches
 * (`deno run -A scripts/store_bench_runs.ts [runs]`, default 5, at most 20), each beside the
 * floor under it. In a run every row is its own `deno bench --json --filter` process, started
 * after a 3 s pause, so no row runs beside the background copy and writeback of what an earlier
 * row wrote (on this VM that alone moved a row by 1.2×). Prints every run's averages as events/s
 * (ms for `stateAt`), the load average when the run started, and the median of the runs.
 *
 * One run's average moves by ±25 % on this shared VM from one minute to the next (see
 * BENCHMARKS.md, "Event store"), so a single run says little about a target; the median of
 * several runs is the figure BENCHMARKS.md gives.
 *
 * @module
 */
import { escapeRegex } from "../engine/trail/regex.ts";

interface Target {
  file: string;
  bench: string;
  label: string;
  /** Events per iteration (events/s = this ÷ the average); 0: report milliseconds. */
  events: number;
  /** Met when events/s ≥ this, or ms ≤ this for a milliseconds row; none: a floor, shown beside. */
  goal?: number;
}

const TARGETS: Target[] = [
  {
    file: "scripts/store_bench.ts",
    bench: "append: batch of 1000 events, one transaction",
    label: "batched append (ev/s)",
    events: 1000,
    goal: 80_000,
  },
  {
    file: "scripts/store_bench.ts",
    bench: "append: 1 event per transaction (×1000)",
    label: "per-event append (ev/s)",
    events: 1000,
    goal: 25_000,
  },
  {
    file: "scripts/store_bench.ts",
    bench: "floor: bare node:sqlite BEGIN/INSERT/COMMIT per event (×1000), same checkpointer",
    label: "  its floor, bare SQLite",
    events: 1000,
  },
  {
    file: "scripts/store_read_bench.ts",
    bench: "readAll: 50,000 events (async iterator, pages of 1000)",
    label: "full read (ev/s)",
    events: 50_000,
    goal: 300_000,
  },
  {
    file: "scripts/store_read_bench.ts",
    bench: "floor: bare node:sqlite pages + JSON.parse of each row's data (50,000 rows)",
    label: "  its floor, bare SQLite + JSON.parse",
    events: 50_000,
  },
  {
    file: "scripts/store_read_bench.ts",
    bench: "stateAt: 10,000-event session, from the nearest checkpoint",
    label: "stateAt (ms)",
    events: 0,
    goal: 5,
  },
];

interface BenchJson {
  benches: { name: string; results: { ok?: { avg: number } }[] }[];
}

/** How long to let the machine settle before each row's process. */
const SETTLE_MS = 3_000;

/** Runs one bench of a file, alone in its process, with `--json`; returns its average in ns. */
async function runOne(file: string, bench: string): Promise<number> {
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["bench", "-A", "--json", "--filter", `/^${escapeRegex(bench)}$/`, file],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    // with --json a bench's own error is in the JSON on stdout, not on stderr
    const said = [out.stderr, out.stdout].map((b) => new TextDecoder().decode(b).trim());
    throw new Error(`${file}: deno bench failed: ${said.filter(Boolean).join("\n")}`);
  }
  const json = JSON.parse(new TextDecoder().decode(out.stdout)) as BenchJson;
  const found = json.benches.filter((b) => b.name === bench);
  const avg = found[0]?.results[0]?.ok?.avg;
  if (found.length !== 1 || avg === undefined) {
    throw new Error(`${file}: no bench named "${bench}"`);
  }
  return avg;
}

function figure(t: Target, avgNs: number): number {
  return t.events === 0 ? avgNs / 1e6 : t.events / (avgNs / 1e9);
}

function met(events: number, goal: number, value: number): boolean {
  return events === 0 ? value <= goal : value >= goal;
}

function show(t: Target, value: number): string {
  return t.events === 0 ? value.toFixed(2) : Math.round(value).toLocaleString("en-US");
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

if (import.meta.main) {
  const runs = Number(Deno.args[0] ?? 5);
  if (!Number.isInteger(runs) || runs < 1 || runs > 20) {
    console.error("store_bench_runs: runs must be an integer from 1 to 20");
    Deno.exit(2);
  }
  const values: number[][] = TARGETS.map(() => []);
  for (let r = 1; r <= runs; r++) {
    const load = Deno.loadavg()[0]!.toFixed(2);
    const cells: string[] = [];
    for (const [i, t] of TARGETS.entries()) {
      const v = figure(t, await runOne(t.file, t.bench));
      values[i]!.push(v);
      cells.push(`${t.label.trim()} ${show(t, v)}`);
    }
    console.log(`run ${r}/${runs} (load ${load} at start): ${cells.join(", ")}`);
  }
  console.log(`\nmedian of ${runs} runs:`);
  TARGETS.forEach((t, i) => {
    const m = median(values[i]!);
    let verdict = "";
    if (t.goal !== undefined) {
      const goal = `${t.events === 0 ? "≤" : "≥"} ${show(t, t.goal)}`;
      verdict = `  target ${goal}: ${met(t.events, t.goal, m) ? "met" : "MISSED"}`;
    }
    console.log(`  ${t.label.padEnd(38)} ${show(t, m).padStart(9)}${verdict}`);
  });
}
