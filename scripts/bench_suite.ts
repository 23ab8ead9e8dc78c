/**
 * `cairn replay` suites: one run of 10 trails with `--workers 1`, then `--workers 2`, against
 * the playback test pages on 127.0.0.1; prints both wall times and the ratio (BENCHMARKS.md).
 *
 *   deno run -A scripts/bench_suite.ts
 *
 * @module
 */
import { join } from "node:path";
import { servePlaybackPages } from "../tests/_fixtures/playback_server.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const pages = await Deno.makeTempDir({ prefix: "cairn-bench-suite-pages-" });
const dir = await Deno.makeTempDir({ prefix: "cairn-bench-suite-" });
await Deno.copyFile(`${ROOT}tests/testdata/playback/app.html`, join(pages, "app.html"));
await Deno.copyFile(`${ROOT}tests/testdata/web/fruit_rows.html`, join(pages, "fruit_rows.html"));
const server = servePlaybackPages(pages);
try {
  const suite = join(dir, "e2e");
  await Deno.mkdir(suite);
  const signin = await Deno.readTextFile(`${ROOT}tests/testdata/export/signin.trail.yaml`);
  const fruit = await Deno.readTextFile(`${ROOT}tests/testdata/export/fruit.trail.yaml`);
  for (let i = 0; i < 10; i++) {
    const text = i % 2 === 0 ? signin : fruit;
    await Deno.writeTextFile(join(suite, `t${String(i).padStart(2, "0")}.trail.yaml`), text);
  }
  const ms: Record<number, number> = {};
  for (const workers of [1, 2]) {
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
        "--memory",
        "password=hunter2",
        "--workers",
        String(workers),
        "--db",
        join(dir, "cairn.db"),
        "--screenshots",
        join(dir, "shots"),
      ],
      stdout: "piped",
      stderr: "piped",
      env: { CI: "1" },
    }).output();
    ms[workers] = performance.now() - t0;
    const out = new TextDecoder().decode(o.stdout);
    const summary = out.split("\n").find((l) => /trails: /.test(l));
    console.log(
      `--workers ${workers}: exit ${o.code}, ${
        (ms[workers]! / 1000).toFixed(1)
      } s wall  | ${summary}`,
    );
    if (o.code !== 0) console.log(out, new TextDecoder().decode(o.stderr));
  }
  console.log(
    `speed-up: ${(ms[1]! / ms[2]!).toFixed(2)}×  (cores: ${navigator.hardwareConcurrency}, load: ${
      Deno.loadavg().map((l) => l.toFixed(1)).join(" ")
    })`,
  );
} finally {
  await server.close();
  await Deno.remove(dir, { recursive: true });
  await Deno.remove(pages, { recursive: true });
}
