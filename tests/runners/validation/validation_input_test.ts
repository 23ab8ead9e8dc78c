/**
 * `cairn validate` on input that cannot prove anything: a page that cannot be opened, a trail of
 * another session, a trail step the capture does not have. Real Chromium, SQLite and HTTP, on
 * the web checkout example capture (no blaze needed).
 */
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { cairn } from "../../_fixtures/cli_run.ts";
import { createApp } from "../../../api/app.ts";
import { validationRegistry } from "../../../api/validations.ts";
import { ingestOnce } from "../../../cli/optimize.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { parseTrail, stringifyTrail } from "../../../engine/trail/trail.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { waitUntil } from "../../_fixtures/wait.ts";

const CAPTURE = new URL("../../../examples/web_checkout.capture.json", import.meta.url).pathname;

/** A url on 127.0.0.1 where nothing listens. */
function closedUrl(): string {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return `http://127.0.0.1:${port}/checkout`;
}

/** Every selector a playback of the store tried. */
async function triedSelectors(db: string): Promise<string[]> {
  const store = SqliteEventStore.open(db);
  try {
    const out: string[] = [];
    for (const s of await store.streams("playback-")) {
      for await (const e of store.readStream(s.streamId)) {
        if (e.type !== "PlaybackActionResolved") continue;
        for (const t of e.data.tried ?? []) if (t.selector) out.push(t.selector);
      }
    }
    return out;
  } finally {
    store.close();
  }
}

Deno.test("cairn validate: a page that cannot be opened fails the validation naming the error, rewrites nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-input-" });
  try {
    const db = `${dir}/cairn.db`;
    const out = `${dir}/x.yaml`;
    const url = closedUrl();
    const authoring = await cairn(["validate", CAPTURE, "--db", db, "--url", url, "--out", out]);
    assertEquals(authoring.code, 1, authoring.stderr);
    assertStringIncludes(authoring.stderr, "ERR_CONNECTION_REFUSED");
    assertStringIncludes(authoring.stderr, "Nothing was validated");
    assert(!authoring.stderr.includes("iteration 2/"), authoring.stderr);
    assert(!(await Deno.stat(out).catch(() => undefined)), "no trail written");

    const ci = await cairn(["validate", CAPTURE, "--db", db, "--url", url, "--policy", "ci"]);
    assertEquals(ci.code, 1, ci.stderr);
    assertStringIncludes(ci.stderr, "ERR_CONNECTION_REFUSED");
    assert(!ci.stderr.includes("a new blaze"), ci.stderr);
    assertEquals(await triedSelectors(db), [], "no selector was tried, so none counts as fragile");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn validate --trail: another session's trail exits 2; a step the capture lacks is reported not compared", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-input-" });
  const page = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response("<title>x</title><p>checkout</p>", { headers: { "content-type": "text/html" } }),
  );
  try {
    const db = `${dir}/cairn.db`;
    const other = `${dir}/other.capture.json`;
    const json = JSON.parse(await Deno.readTextFile(CAPTURE));
    json.prompt = "Another flow";
    await Deno.writeTextFile(other, JSON.stringify(json));
    await Deno.mkdir(`${dir}/web_checkout`);
    for await (const f of Deno.readDir(CAPTURE.replace(/\.capture\.json$/, ""))) {
      await Deno.copyFile(
        CAPTURE.replace(/\.capture\.json$/, `/${f.name}`),
        `${dir}/web_checkout/${f.name}`,
      );
    }
    const otherTrail = `${dir}/other.yaml`;
    const made = await cairn(["optimize", other, "--db", db, "--out", otherTrail]);
    assertEquals(made.code, 0, made.stderr);
    const mine = await cairn(["optimize", CAPTURE, "--db", db]);
    assertEquals(mine.code, 0, mine.stderr);

    const wrong = await cairn(["validate", CAPTURE, "--db", db, "--trail", otherTrail]);
    assertEquals(wrong.code, 2, wrong.stderr);
    assertStringIncludes(wrong.stderr, `--trail: ${otherTrail} is the trail of session`);

    // Step 1 renamed: the replay navigates fine, but there is no captured step to compare with.
    const trail = parseTrail(mine.stdout);
    trail.trail = [{ ...trail.trail[0]!, step: "Open the shop" }];
    const renamed = `${dir}/renamed.yaml`;
    await Deno.writeTextFile(renamed, stringifyTrail(trail));
    const url = `http://127.0.0.1:${page.addr.port}/checkout`;
    const res = await cairn([
      "validate",
      CAPTURE,
      "--db",
      db,
      "--url",
      url,
      "--trail",
      renamed,
      "--policy",
      "ci",
      "--json",
    ]);
    assertEquals(res.code, 1, res.stderr);
    const report = JSON.parse(res.stdout);
    assertEquals(report.status, "failed");
    assertStringIncludes(
      report.steps[0].evidence.join("\n"),
      `not compared with the capture: the capture's step 1 is "Open the checkout page"`,
    );
  } finally {
    await page.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn validate --trail: a trail of empty recordings only is not stable: nothing was validated, exit 1, no trail", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-input-" });
  const page = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response("<title>x</title><p>checkout</p>", { headers: { "content-type": "text/html" } }),
  );
  try {
    const db = `${dir}/cairn.db`;
    const made = await cairn(["optimize", CAPTURE, "--db", db]);
    assertEquals(made.code, 0, made.stderr);
    const trail = parseTrail(made.stdout);
    trail.trail = trail.trail.map((s) => ({ step: s.step, recording: [] }));
    const empty = `${dir}/empty.yaml`;
    await Deno.writeTextFile(empty, stringifyTrail(trail));
    const url = `http://127.0.0.1:${page.addr.port}/checkout`;
    for (const policy of ["authoring", "ci"]) {
      const out = `${dir}/${policy}.yaml`;
      const res = await cairn([
        "validate",
        CAPTURE,
        ...["--db", db, "--url", url, "--trail", empty, "--policy", policy, "--out", out],
        "--json",
      ]);
      assertEquals(res.code, 1, res.stderr);
      const report = JSON.parse(res.stdout);
      assertEquals(report.status, "failed", policy);
      assertStringIncludes(
        report.message,
        `Nothing was validated: step 1 "${trail.trail[0]!.step}" has an empty recording`,
      );
      assertEquals(report.steps.length, trail.trail.length);
      assert(report.steps.every((s: { empty?: boolean }) => s.empty === true), policy);
      assert(!(await Deno.stat(out).catch(() => undefined)), "no trail written");
    }
  } finally {
    await page.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("POST /v1/sessions/:id/validations: a page that cannot be opened ends the validation failed naming the error", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-input-" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const registry = validationRegistry(store, { createDriver: () => ChromeDriver.launch() });
  try {
    const sessionId = await ingestOnce(store, CAPTURE);
    const app = createApp({ store });
    const res = await app.request(`/v1/sessions/${sessionId}/validations`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: closedUrl() }),
    });
    assertEquals(res.status, 202);
    const { validationId: id } = await res.json();
    let report = await (await app.request(`/v1/validations/${id}`)).json();
    // bounded (120 s): each iteration launches Chromium, seconds apiece on a busy machine
    report = await waitUntil("the validation to end", async () => {
      const r = await (await app.request(`/v1/validations/${id}`)).json();
      return r.status !== "running" && r;
    }, { timeoutMs: 120_000, everyMs: 100 });
    assertEquals(report.status, "failed");
    assertStringIncludes(report.message, "ERR_CONNECTION_REFUSED");
    assertEquals(report.steps, []);
    const fragile = await (await app.request("/v1/selectors/fragile")).json();
    assertEquals(fragile.selectors, []);
  } finally {
    await registry.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
