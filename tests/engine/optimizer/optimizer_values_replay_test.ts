/**
 * Heuristics v2's value changes proven by replay in real Chromium: trails optimized from the
 * tester's captures (tests/testdata/optimizer_v2) replay against copies of their pages, served
 * on 127.0.0.1, whose values differ from the capture's — where v2 must pass and v1 fails.
 */
import { assertEquals } from "../../_fixtures/assert.ts";
import { cairn } from "../../_fixtures/cli_run.ts";
import type { PlaybackReport } from "../../../engine/playback/report.ts";
import { parseTrail, stringifyTrail, type Trail } from "../../../engine/trail/trail.ts";

const DIR = new URL("../../testdata/optimizer_v2/", import.meta.url).pathname;

interface Replayed {
  trail: Trail;
  /** Status of each step's actions by step text, in order. */
  steps: Map<string, string[]>;
}

/** Optimizes a capture under a heuristics version, edits the trail, replays it against `page`. */
async function replay(
  capture: string,
  heuristics: string,
  page: string,
  path: string,
  edit: (t: Trail) => Trail = (t) => t,
): Promise<Replayed> {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(page, { headers: { "content-type": "text/html" } }),
  );
  const dir = await Deno.makeTempDir({ prefix: "cairn-v2-replay-" });
  try {
    const db = `${dir}/cairn.db`;
    const opt = await cairn([
      "optimize",
      `${DIR}${capture}.capture.json`,
      "--heuristics",
      heuristics,
      "--out",
      `${dir}/t.yaml`,
      "--db",
      db,
    ]);
    assertEquals(opt.code, 0, opt.stderr);
    const trail = edit(parseTrail(await Deno.readTextFile(`${dir}/t.yaml`)));
    await Deno.writeTextFile(`${dir}/t.yaml`, stringifyTrail(trail));
    const url = `http://127.0.0.1:${server.addr.port}${path}`;
    const run = await cairn(["replay", `${dir}/t.yaml`, "--url", url, "--db", db, "--json"]);
    const report = JSON.parse(run.stdout) as PlaybackReport;
    // the plan: the opening navigate, then each step's actions in order
    const labels = trail.trail.flatMap((s) =>
      (s.recording ?? []).flatMap((a) => Array(a.repeat ?? 1).fill(s.step) as string[])
    );
    const steps = new Map<string, string[]>();
    report.results.slice(1).forEach((r, i) => {
      const label = labels[i]!;
      steps.set(label, [...(steps.get(label) ?? []), r.status]);
    });
    return { trail, steps };
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a v2 shop trail passes on a page with another order number and time, where v1 fails", async () => {
  const page = (await Deno.readTextFile(`${DIR}shop.html`))
    .replace("ORD-2026-004217", "ORD-2026-009981")
    .replace("2026-11-24 02:57", "2026-12-01 14:05");
  const order = "Verify an order number is shown";
  const time = "Verify the order time is displayed";
  const total = "Verify the cart total is the fern price plus the cactus price";
  const v2 = await replay("shop", "v2", page, "/shop.html");
  assertEquals(v2.steps.get(order), ["ok"]);
  assertEquals(v2.steps.get(time), ["ok"]);
  // the total is checked on the checkout button the agent named, and holds on replay
  assertEquals(v2.steps.get(total), ["ok"]);
  const v1 = await replay("shop", "v1", page, "/shop.html");
  assertEquals(v1.steps.get(order), ["failed"]);
  assertEquals(v1.steps.get(time), ["failed"]);
});

Deno.test("a v2 form trail checks the summary against the memory it typed and any version number, where v1 checks the capture's", async () => {
  const page = (await Deno.readTextFile(`${DIR}index.html`))
    .replace('<span id="version">1.0.0</span>', '<span id="version">2.4.1</span>');
  const path = "/trailblaze-playwright-native-sample-app/index.html";
  // another sender: the values a test author would seed in config.memory
  const sender = (t: Trail): Trail => ({
    ...t,
    config: {
      ...t.config,
      memory: {
        email: "ada@example.org",
        message: "Hello from Ada Lovelace, sent 2026-12-01 09:00",
        name: "Ada Lovelace",
      },
    },
  });
  const summary = "Verify the summary names the sender";
  const version = "Open About and verify a version number is shown";
  const v2 = await replay("form", "v2", page, path, sender);
  assertEquals(v2.steps.get(summary), ["ok"]);
  assertEquals(v2.steps.get(version), ["ok", "ok"]);
  assertEquals([...v2.steps.values()].flat().every((s) => s === "ok"), true);
  const v1 = await replay("form", "v1", page, path, sender);
  assertEquals(v1.steps.get(summary), ["failed"]);
  assertEquals(v1.steps.get(version), ["ok", "failed"]);
});
