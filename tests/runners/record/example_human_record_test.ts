/**
 * The recorded example (`examples/human_record/`: a person signing in, adding a note, opening the
 * help page in a new tab by its address and coming back, recorded under Xvfb with real OS input)
 * replays on its site served from 127.0.0.1: the recording as recorded and its optimized trail,
 * each re-pointed at the test's port with `--url`, the redacted password supplied. No password is
 * in either file.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { cairn, ROOT } from "../../_fixtures/cli_run.ts";
import type { PlaybackReport } from "../../../engine/playback/report.ts";

const EXAMPLE = `${ROOT}examples/human_record/`;

Deno.test("the recorded human example and its optimized trail replay green on the example site", async () => {
  const pages: Record<string, string> = {};
  for await (const f of Deno.readDir(`${EXAMPLE}site`)) {
    pages[`/${f.name}`] = await Deno.readTextFile(`${EXAMPLE}site/${f.name}`);
  }
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (r) => {
    const page = pages[new URL(r.url).pathname];
    return page === undefined
      ? new Response("no", { status: 404 })
      : new Response(page, { headers: { "content-type": "text/html" } });
  });
  const dir = await Deno.makeTempDir({ prefix: "cairn-example-replay-" });
  try {
    const base = `http://127.0.0.1:${server.addr.port}/`;
    const recording = [...Deno.readDirSync(EXAMPLE)].find((f) => f.name.startsWith("vw-ax-human-"));
    assert(recording, "no recording in examples/human_record");
    const files = [EXAMPLE + recording.name, `${EXAMPLE}notes.trail.yaml`];
    for (const file of files) {
      assert(!(await Deno.readTextFile(file)).includes("hunter2"), `${file} holds the password`);
    }
    const replay = async (args: string[]) => {
      const run = await cairn(["replay", ...args, "--url", base, "--db", `${dir}/c.db`, "--json"]);
      const report = JSON.parse(run.stdout || "null") as PlaybackReport | null;
      assert(report !== null, run.stderr);
      return report.results.map((r) => [r.action, r.status, r.error ?? ""]);
    };
    // the recording: its password action (number 3) typed with --override, as the table numbers it
    const asRecorded = await replay([files[0]!, "--override", "3=s3cret"]);
    assertEquals(asRecorded.filter((r) => r[1] !== "ok"), [], JSON.stringify(asRecorded));
    assert(asRecorded.some((r) => r[0] === "switch_tab"), JSON.stringify(asRecorded));
    const trail = await replay([files[1]!, "--memory", "password=s3cret"]);
    assertEquals(trail.filter((r) => r[1] !== "ok"), [], JSON.stringify(trail));
    assertEquals(trail.map((r) => r[0]), [
      "navigate",
      "type",
      "type",
      "key_press",
      "type",
      "click",
      "switch_tab",
      "navigate",
      "click",
      "switch_tab",
      "click",
    ]);
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
