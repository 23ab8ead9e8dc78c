/**
 * Validation compares a trail with the capture projected at the trail's own heuristics version
 * (`config.heuristics`), and projects at the version `--heuristics` / the HTTP body names when
 * no trail is given. Real Chromium, SQLite and HTTP, on the tester's shop capture
 * (tests/testdata/optimizer_v2), whose total check v2 writes on the checkout button and v1 as the
 * visibility of the "2 items" span.
 */
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { cairn } from "../../_fixtures/cli_run.ts";
import { createApp } from "../../../api/app.ts";
import { validationRegistry } from "../../../api/validations.ts";
import { ingestOnce } from "../../../cli/optimize.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { parseTrail } from "../../../engine/trail/trail.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";

const DIR = new URL("../../testdata/optimizer_v2/", import.meta.url).pathname;
const CAPTURE = `${DIR}shop.capture.json`;
const TOTAL = "Verify the cart total is the fern price plus the cactus price";
const SAME = "same element (role, name and size agree)";

interface StepReport {
  step: string;
  evidence: string[];
}

function serveShop(): Deno.HttpServer<Deno.NetAddr> {
  const page = Deno.readTextFileSync(`${DIR}shop.html`);
  return Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(page, { headers: { "content-type": "text/html" } }),
  );
}

function totalStep(steps: StepReport[]): StepReport {
  const s = steps.find((x) => x.step === TOTAL);
  assert(s, `no step ${TOTAL}`);
  return s;
}

Deno.test("cairn validate --trail compares a v2 trail with the capture projected at v2; --heuristics projects at it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-heuristics-" });
  const server = serveShop();
  try {
    const db = `${dir}/cairn.db`;
    const v2 = `${dir}/v2.yaml`;
    const made = await cairn(["optimize", CAPTURE, "--heuristics", "v2", "--out", v2, "--db", db]);
    assertEquals(made.code, 0, made.stderr);
    const url = `http://127.0.0.1:${server.addr.port}/shop.html`;
    const base = ["validate", CAPTURE, "--db", db, "--url", url, "--policy", "ci", "--json"];

    // The trail's assertText on the checkout button is compared with the capture's same target
    // (v1's projection has an assertVisible of the span there: nothing to compare with).
    const withTrail = await cairn([...base, "--trail", v2]);
    const report = JSON.parse(withTrail.stdout);
    assertEquals(report.trail.includes("heuristics: v2"), true, report.trail);
    assertEquals(
      totalStep(report.steps).evidence,
      [
        "action 1 (assertText): resolved with css_path body > header > button",
        `action 1 (assertText): ${SAME}`,
      ],
    );

    // Without a trail: the projection of the version asked for, else the current one.
    const projected = JSON.parse((await cairn([...base, "--heuristics", "v2"])).stdout);
    const trail = parseTrail(projected.trail);
    assertEquals(trail.config.heuristics, "v2");
    assertEquals(trail.trail.find((s) => s.step === TOTAL)?.recording?.[0]?.kind, "assertText");
    assertStringIncludes(totalStep(projected.steps).evidence.join("\n"), SAME);
    const current = JSON.parse((await cairn(base)).stdout);
    assertEquals(parseTrail(current.trail).config.heuristics, "v3");
    const older = JSON.parse((await cairn([...base, "--heuristics", "v1"])).stdout);
    assertEquals(parseTrail(older.trail).config.heuristics, "v1");

    // Another version than the trail's own is refused before anything runs.
    const clash = await cairn([...base, "--trail", v2, "--heuristics", "v1"]);
    assertEquals(clash.code, 2, clash.stderr);
    assertStringIncludes(
      clash.stderr,
      `--heuristics: ${v2} was projected with heuristics v2 (config.heuristics), not v1`,
    );
    const unknown = await cairn([...base, "--heuristics", "v9"]);
    assertEquals(unknown.code, 2, unknown.stderr);
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("POST /v1/sessions/:id/validations with heuristics projects the capture at that version", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-heuristics-" });
  const server = serveShop();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const registry = validationRegistry(store, { createDriver: () => ChromeDriver.launch() });
  try {
    const sessionId = await ingestOnce(store, CAPTURE);
    const app = createApp({ store });
    const post = (body: unknown) =>
      app.request(`/v1/sessions/${sessionId}/validations`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const bad = await post({ heuristics: "v9" });
    assertEquals(bad.status, 400);
    assertStringIncludes(JSON.stringify(await bad.json()), "heuristics");
    const url = `http://127.0.0.1:${server.addr.port}/shop.html`;
    const res = await post({ url, policy: "ci", heuristics: "v2" });
    assertEquals(res.status, 202);
    const { validationId: id } = await res.json();
    let report = await (await app.request(`/v1/validations/${id}`)).json();
    for (let i = 0; i < 600 && report.status === "running"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      report = await (await app.request(`/v1/validations/${id}`)).json();
    }
    assertEquals(parseTrail(report.trail).config.heuristics, "v2");
    assertStringIncludes(totalStep(report.steps).evidence.join("\n"), SAME);
  } finally {
    await registry.close();
    store.close();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
