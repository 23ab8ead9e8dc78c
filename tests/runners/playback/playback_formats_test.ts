/**
 * Every playable source through `cairn replay` in Chromium: a `recording_v1` file (with a
 * redacted password, with and without `--override`, and with recorded timing), the same
 * recording ingested into the event log and replayed by session id, and a Chrome DevTools
 * Recorder flow. Recorded at `localhost:8000`; `--url` re-points them at the test server.
 */
import { servePlaybackPages } from "../../_fixtures/playback_server.ts";
import { assertEquals, assertGreaterOrEqual } from "../../_fixtures/assert.ts";
import type { PlaybackReport } from "../../../engine/playback/report.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;
const DATA = new URL("../../testdata/playback/", import.meta.url).pathname;

async function cairn(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", MAIN, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("cairn replay plays a recording_v1 file, the same recording stored as a session, and a Chrome Recorder flow", async () => {
  const server = servePlaybackPages();
  const dir = await Deno.makeTempDir({ prefix: "cairn-replay-formats-" });
  const db = `${dir}/cairn.db`;
  const url = server.url + "app.html";
  const replay = async (file: string, ...extra: string[]) => {
    const res = await cairn(["replay", file, "--url", url, "--db", db, "--json", ...extra]);
    return {
      code: res.code,
      report: JSON.parse(res.stdout || "null") as PlaybackReport,
      stderr: res.stderr,
    };
  };
  try {
    const recording = DATA + "signin.recording_v1.json";
    const plain = await replay(recording);
    assertEquals(plain.code, 0, plain.stderr);
    assertEquals(plain.report.recording_id, "signin-0001");
    assertEquals(plain.report.results.map((r) => [r.action, r.status]), [
      ["navigate", "ok"],
      ["click", "ok"],
      ["type", "ok"],
      ["type", "skipped"],
      ["select", "ok"],
      ["check", "ok"],
      ["click", "ok"],
    ]);
    assertEquals(plain.report.results[3]!.error_code, "redacted_value");
    assertEquals(plain.report.results[6]!.selector_used, "test_id");

    const t0 = performance.now();
    const overridden = await replay(recording, "--override", "3=hunter2", "--timing", "recorded");
    assertEquals(overridden.report.results[3]!.status, "ok");
    // Recorded 2 s apart: 6 gaps of 2 s.
    assertGreaterOrEqual(performance.now() - t0, 12_000);

    const ingest = await cairn(["ingest", recording, "--db", db, "--json"]);
    assertEquals(ingest.code, 0, ingest.stderr);
    const ingested = JSON.parse(ingest.stdout) as { sessionId: string } | { sessionId: string }[];
    const id = Array.isArray(ingested) ? ingested[0]!.sessionId : ingested.sessionId;
    const stored = await replay(id);
    assertEquals(stored.code, 0, stored.stderr);
    assertEquals(stored.report.recording_id, id);
    assertEquals(stored.report.results.length, 7);

    const flow = await replay(DATA + "signin.recorder.json");
    assertEquals(flow.code, 0, flow.stderr);
    assertEquals(flow.report.source, "flow");
    assertEquals(flow.report.results.map((r) => [r.action, r.status]), [
      ["navigate", "ok"],
      ["click", "ok"],
      ["type", "ok"],
      ["type", "ok"],
      ["key_press", "ok"],
      ["click", "ok"],
      ["hover", "ok"],
    ]);
    // `[data-testid='email-input']` of the Recorder's CSS alternative is read as the test id.
    assertEquals(flow.report.results[1]!.selector_used, "test_id");
    // The Recorder's `change` on the <select> picked the option: the aria/Plan name found it.
    assertEquals(flow.report.results[3]!.selector_used, "role_name");
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
