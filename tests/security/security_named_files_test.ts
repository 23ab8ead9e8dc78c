/**
 * The file named on the command line of `cairn replay` (one file, and each file of a suite) is
 * read by a capture's file rules: a device (`/dev/zero`), a FIFO and a file over
 * `--max-file-size` are refused at once with exit 2 and one line naming the file, before a browser
 * starts; `cairn ingest` refuses a FIFO the same way. A regular trail still plays (a real Chromium
 * on a 127.0.0.1 page). Every run here is bounded: a child that has not answered in time, or whose
 * memory grows past 1 GiB, is killed and the test fails.
 */
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { ROOT } from "../_fixtures/cli_run.ts";

/** How long a refusal may take, Deno's start included. */
const ANSWER_MS = 20_000;
/** How much memory a refusal may take: a child past it is killed (it was reading a device). */
const MAX_RSS_KB = 1024 * 1024;

function rssKb(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    return Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  } catch {
    return 0; // it has ended
  }
}

/**
 * `cairn ARGS…`, killed when it has not ended within {@linkcode ANSWER_MS} or holds more than
 * {@linkcode MAX_RSS_KB} (checked every 50 ms): `killed` says which.
 */
async function bounded(args: string[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", `${ROOT}main.ts`, ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  let killed: string | undefined;
  let ended = false;
  const output = child.output().finally(() => ended = true);
  const deadline = performance.now() + ANSWER_MS;
  while (!ended && killed === undefined) {
    if (performance.now() > deadline) killed = `still running after ${ANSWER_MS} ms`;
    else if (rssKb(child.pid) > MAX_RSS_KB) killed = `grew past ${MAX_RSS_KB / 1024} MiB`;
    if (killed) child.kill("SIGKILL");
    else await new Promise((r) => setTimeout(r, 50));
  }
  const out = await output;
  return { code: out.code, killed, stderr: new TextDecoder().decode(out.stderr) };
}

const TRAIL = "config:\n  platform: web\n" +
  "trail:\n  - step: read the page\n    recording:\n" +
  "      - navigate: URL\n" +
  '      - assertText: { selector: { id: greeting }, equals: "hello from the page" }\n';

Deno.test("cairn replay: a device, a FIFO or a file over --max-file-size named on the command line is refused at once with exit 2, alone or in a suite", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-named-files-" });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response('<p id="greeting">hello from the page</p>', {
        headers: { "content-type": "text/html" },
      }),
  );
  const db = ["--db", `${dir}/cairn.db`];
  try {
    const fifo = `${dir}/pipe.trail.yaml`;
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    assertEquals(made.code, 0);
    const big = `${dir}/big.trail.yaml`;
    await Deno.writeFile(big, new Uint8Array(2 * 2 ** 20 + 1).fill(0x20));
    const ok = `${dir}/ok.trail.yaml`;
    await Deno.writeTextFile(ok, TRAIL.replace("URL", `http://127.0.0.1:${server.addr.port}/`));

    const cases: [string, string, string[]][] = [
      ["/dev/zero", "/dev/zero: is a device, not a file", []],
      [fifo, `${fifo}: is a FIFO, not a file`, []],
      [big, `${big}: 2097153 bytes, over the limit of 1 MiB per file`, ["--max-file-size", "1"]],
    ];
    for (const [file, line, flags] of cases) {
      for (const suite of [false, true]) {
        const what = `${file}${suite ? " (in a suite)" : ""}`;
        const out = await bounded(["replay", file, ...(suite ? [ok] : []), ...flags, ...db]);
        assertEquals(out.killed, undefined, `${what}: killed`);
        assertEquals(out.code, 2, `${what}: ${out.stderr}`);
        assertStringIncludes(out.stderr, line, what);
        assertEquals(out.stderr.trim().split("\n").length, 1, `one line: ${out.stderr}`);
        assert(!out.stderr.includes("    at "), `no stack: ${out.stderr}`);
      }
    }
    // ingest, which refused a device already, refuses a FIFO too rather than wait on it
    const ingested = await bounded(["ingest", fifo, ...db]);
    assertEquals(ingested.killed, undefined, `ingest ${fifo}: killed`);
    assertEquals(ingested.code, 2, ingested.stderr);
    assertStringIncludes(ingested.stderr, `${fifo}: is a FIFO, not a file`);

    // control: a regular trail file is read and played
    const played = await bounded(["replay", ok, ...db]);
    assertEquals(played.code, 0, played.stderr);
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
