/**
 * The realistic optimizer benchmark: a 1,000-action capture, each action with its own real-size
 * screen made from the Google Tasks corpus dump (`tests/_fixtures/realistic_capture.ts`, ~86 MB), run as a
 * user runs it, each command a child process measured by `/usr/bin/time` (wall time, CPU time
 * (user + system: what the run itself cost, less sensitive to a shared machine), peak RSS):
 * `cairn ingest FILE` into a fresh store, `cairn optimize SESSION` of the stored session, and
 * `cairn optimize FILE` (ingest + optimize) into another fresh store.
 *
 * Run: `deno run -A scripts/bench_realistic.ts [ACTIONS]`.
 *
 * @module
 */
import { realisticCapture } from "../tests/_fixtures/realistic_capture.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const n = Number(Deno.args[0] ?? 1000);
const dir = await Deno.makeTempDir({ prefix: "cairn-bench-realistic-" });

async function timed(label: string, args: string[]): Promise<string> {
  const out = await new Deno.Command("/usr/bin/time", {
    args: ["-f", "%e %U %S %M", Deno.execPath(), "run", "-A", `${ROOT}main.ts`, ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const dec = new TextDecoder();
  const err = dec.decode(out.stderr).trim().split("\n");
  const [secs, user, sys, kb] = err.at(-1)!.split(" ").map(Number) as [
    number,
    number,
    number,
    number,
  ];
  if (!out.success) throw new Error(`${label} failed: ${err.join("\n")}`);
  console.log(
    `${label.padEnd(52)} wall ${secs.toFixed(2)} s   CPU ${(user + sys).toFixed(2)} s   ` +
      `peak RSS ${Math.round(kb / 1024)} MB`,
  );
  return dec.decode(out.stdout);
}

try {
  const file = `${dir}/realistic.capture.json`;
  await Deno.writeTextFile(file, realisticCapture({ actions: n }));
  const size = (await Deno.stat(file)).size;
  console.log(`capture: ${n} actions, ${(size / 1e6).toFixed(1)} MB (${file})`);
  const id = (await timed("cairn ingest FILE (fresh store)", [
    "ingest",
    file,
    "--db",
    `${dir}/a.db`,
  ])).trim();
  await timed("cairn optimize SESSION (stored session)", [
    "optimize",
    id,
    "--db",
    `${dir}/a.db`,
    "--out",
    `${dir}/a.yaml`,
  ]);
  await timed("cairn optimize SESSION --heuristics v0", [
    "optimize",
    id,
    "--db",
    `${dir}/a.db`,
    "--heuristics",
    "v0",
    "--out",
    `${dir}/v0.yaml`,
  ]);
  await timed("cairn optimize FILE (fresh store: ingest + optimize)", [
    "optimize",
    file,
    "--db",
    `${dir}/b.db`,
    "--out",
    `${dir}/b.yaml`,
  ]);
} finally {
  await Deno.remove(dir, { recursive: true });
}
