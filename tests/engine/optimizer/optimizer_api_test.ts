import { assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { createApp } from "../../../api/app.ts";
import { ingestFile } from "../../../cli/ingest.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";

const GOLDEN = new URL("../../testdata/optimizer/", import.meta.url);

function trailSection(yaml: string): string {
  return yaml.slice(yaml.indexOf("\ntrail:\n") + 1);
}

Deno.test("GET /v1/sessions/:id/trail returns the trail YAML of a stored capture", async () => {
  const dir = await Deno.makeTempDir();
  const store = SqliteEventStore.open(`${dir}/c.db`);
  try {
    const { sessionId } = await ingestFile(store, "examples/merchant.capture.json");
    const app = createApp({ store });
    for (const mode of ["strict", "flexible", "adaptive"]) {
      const res = await app.request(`/v1/sessions/${sessionId}/trail?mode=${mode}&heuristics=v1`);
      assertEquals(res.status, 200);
      assertStringIncludes(res.headers.get("content-type")!, "application/yaml");
      assertEquals(res.headers.get("x-cairn-heuristics"), "v1");
      const golden = await Deno.readTextFile(new URL(`merchant_email/${mode}.yaml`, GOLDEN));
      assertEquals(trailSection(await res.text()), trailSection(golden));
    }
    const json = await app.request(`/v1/sessions/${sessionId}/trail?format=json`);
    const body = await json.json() as {
      explain: { lines: string[] }[];
      trail: { config: { selectorMode: string } };
    };
    assertEquals(body.trail.config.selectorMode, "adaptive");
    assertStringIncludes(JSON.stringify(body.explain), "memory reverse substitution");
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("GET /v1/sessions/:id/trail answers 400 for a bad mode and 404 for an unknown session", async () => {
  const dir = await Deno.makeTempDir();
  const store = SqliteEventStore.open(`${dir}/c.db`);
  try {
    const app = createApp({ store });
    const bad = await app.request("/v1/sessions/x/trail?mode=loose");
    assertEquals(bad.status, 400);
    const err = await bad.json() as { error: { code: string; issues: { path: string }[] } };
    assertEquals(err.error.code, "invalid_request");
    assertEquals(err.error.issues[0]!.path, "query.mode");
    const badVersion = await app.request("/v1/sessions/x/trail?heuristics=v9");
    assertEquals(badVersion.status, 400);
    const missing = await app.request("/v1/sessions/nope/trail");
    assertEquals(missing.status, 404);
    assertEquals((await missing.json() as { error: { code: string } }).error.code, "not_found");
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
