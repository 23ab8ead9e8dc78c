/**
 * The event store's four targets over several whole runs of its benches
 * (`deno run -A scripts/store_bench_runs.ts [runs]`, default 5, at most 20): each run is one
 * `deno bench --json` of `scripts/store_bench.ts` and one of `scripts/store_read_bench.ts`, in
 * their own processes, one after the other. Prints every run's averages as events/s (ms for
 * `stateAt`), the load average when the run started, and the median of the runs.
 *
 * One run's average moves by ±25 % on this shared VM from one minute to the next (see
 * BENCHMARKS.md, "Event store"), so a single run says little about a target; the median of
 * several runs is the figure BENCHMARKS.md gives.
 *
 * @module
 */

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

/** Runs one bench file with `--json` and returns each bench's average in nanoseconds. */
async function runFile(file: string): Promise<Map<string, number>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["bench", "-A", "--json", file],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`${file}: deno bench failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  const json = JSON.parse(new TextDecoder().decode(out.stdout)) as BenchJson;
  const avg = new Map<string, number>();
  for (const b of json.benches) {
    const ok = b.results[0]?.ok;
    if (ok) avg.set(b.name, ok.avg);
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
  const files = [...new Set(TARGETS.map((t) => t.file))];
  const values: number[][] = TARGETS.map(() => []);
  for (let r = 1; r <= runs; r++) {
    const load = Deno.loadavg()[0]!.toFixed(2);
    const avgs = new Map<string, number>();
    for (const f of files) for (const [k, v] of await runFile(f)) avgs.set(`${f}\0${k}`, v);
    const cells = TARGETS.map((t, i) => {
      const avg = avgs.get(`${t.file}\0${t.bench}`);
      if (avg === undefined) throw new Error(`${t.file}: no bench named "${t.bench}"`);
      const v = figure(t, avg);
      values[i]!.push(v);
      return `${t.label.trim()} ${show(t, v)}`;
    });
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
