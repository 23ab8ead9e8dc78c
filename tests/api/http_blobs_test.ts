/**
 * `GET /v1/blobs/:hash` and `POST /v1/blobs` through `createApp` (no network; real SQLite
 * files): a blob is served as data, never as a page of the API's origin; media types are
 * checked; `If-None-Match` answers 304; the same bytes under another type say what was kept.
 */
import { createApp } from "../../api/app.ts";
import { ingestOnce } from "../../cli/optimize.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";

async function withApp(
  fn: (app: ReturnType<typeof createApp>, store: SqliteEventStore, dir: string) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "cairn_http_blobs_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  try {
    await fn(createApp({ store }), store, dir);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function put(
  app: ReturnType<typeof createApp>,
  type: string,
  body: string | Uint8Array<ArrayBuffer>,
) {
  return app.request("/v1/blobs", { method: "POST", headers: { "content-type": type }, body });
}

const HTML = "<html><script>document.title='pwned'</script>x</html>";

async function sha256(text: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("GET /v1/blobs/:hash serves an ingested text/html blob nosniff, sandboxed, as an attachment", async () => {
  await withApp(async (app, store, dir) => {
    // an events file carrying an HTML blob no event references (the tester's ev_html.jsonl)
    const hash = await sha256(HTML);
    const file = `${dir}/ev.jsonl`;
    const blobLine = {
      blob: { hash, mediaType: "text/html", size: HTML.length },
      base64: btoa(HTML),
    };
    const ev = (type: string, data: unknown) =>
      JSON.stringify({
        type,
        schemaVersion: 1,
        data,
        meta: { recordedAt: "2026-01-01T00:00:00Z" },
      });
    await Deno.writeTextFile(
      file,
      [
        JSON.stringify(blobLine),
        ev("SessionStarted", { sessionId: "s", mode: "human", platform: "web" }),
        ev("SessionEnded", { reason: "completed" }),
      ].join("\n") + "\n",
    );
    await ingestOnce(store, file);

    const res = await app.request(`/v1/blobs/${hash}`);
    assertEquals(res.status, 200);
    assertEquals(res.headers.get("content-type"), "text/html");
    assertEquals(res.headers.get("x-content-type-options"), "nosniff");
    assertStringIncludes(res.headers.get("content-security-policy") ?? "", "sandbox");
    assertEquals(res.headers.get("content-disposition"), "attachment");
    assertEquals(await res.text(), HTML);

    // the same through POST /v1/blobs
    const svg = await put(app, "image/svg+xml", "<svg onload='alert(1)'/>");
    assertEquals(svg.status, 201);
    const served = await app.request(`/v1/blobs/${(await svg.json()).hash}`);
    assertEquals(served.headers.get("content-disposition"), "attachment");
    assertEquals(served.headers.get("x-content-type-options"), "nosniff");
    await served.body?.cancel();

    // images, JSON, XML and plain text show inline, still nosniff and sandboxed
    for (const type of ["image/png", "application/json", "text/plain; charset=utf-8"]) {
      const ref = await (await put(app, type, `${type} bytes`)).json();
      const r = await app.request(`/v1/blobs/${ref.hash}`);
      assertEquals(r.headers.get("content-type"), type);
      assertEquals(r.headers.get("content-disposition"), null, type);
      assertEquals(r.headers.get("x-content-type-options"), "nosniff");
      assertStringIncludes(r.headers.get("content-security-policy") ?? "", "sandbox");
      await r.body?.cancel();
    }
  });
});

Deno.test("POST /v1/blobs refuses a Content-Type that is not type/subtype; one stored before checks is served as octet-stream", async () => {
  await withApp(async (app, store) => {
    for (const type of ["../../x; evil", "text", "text/html; evil", "a/b/c"]) {
      const res = await put(app, type, "abc");
      assertEquals(res.status, 400, type);
      const err = (await res.json()).error;
      assertEquals(err.code, "invalid_request");
      assertEquals(err.issues[0].path, "header.Content-Type");
    }
    assertEquals((await put(app, 'text/plain; charset="utf-8"', "abc")).status, 201);

    // a blob stored with a bad type (a file ingested before the check) is not served as it
    const ref = await store.putBlob(new TextEncoder().encode("<b>x</b>"), "../../x; evil");
    const res = await app.request(`/v1/blobs/${ref.hash}`);
    assertEquals(res.headers.get("content-type"), "application/octet-stream");
    assertEquals(res.headers.get("content-disposition"), "attachment");
    await res.body?.cancel();
  });
});

Deno.test("GET /v1/blobs/:hash answers 304 to an If-None-Match naming its ETag, 404 for an unknown hash", async () => {
  await withApp(async (app) => {
    const ref = await (await put(app, "image/png", new Uint8Array([1, 2, 3]))).json();
    const first = await app.request(`/v1/blobs/${ref.hash}`);
    const etag = first.headers.get("etag")!;
    assertEquals(etag, `"${ref.hash}"`);
    await first.body?.cancel();
    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const res = await app.request(`/v1/blobs/${ref.hash}`, { headers: { "if-none-match": inm } });
      assertEquals(res.status, 304, inm);
      assertEquals(res.headers.get("etag"), etag);
      assertEquals(await res.text(), "");
    }
    const other = await app.request(`/v1/blobs/${ref.hash}`, {
      headers: { "if-none-match": '"nope"' },
    });
    assertEquals(other.status, 200);
    await other.body?.cancel();
    const missing = await app.request(`/v1/blobs/${"0".repeat(64)}`, {
      headers: { "if-none-match": "*" },
    });
    assertEquals(missing.status, 404);
    await missing.body?.cancel();
  });
});

Deno.test("POST /v1/blobs of bytes stored before under another type answers the kept type and says so", async () => {
  await withApp(async (app) => {
    const first = await put(app, "text/plain", "same bytes");
    assertEquals(first.status, 201);
    const ref = await first.json();
    assertEquals(ref.mediaType, "text/plain");
    assertEquals(ref.warnings, undefined);
    const again = await (await put(app, "text/plain", "same bytes")).json();
    assertEquals(again, ref);
    const other = await put(app, "text/html", "same bytes");
    assertEquals(other.status, 201);
    const body = await other.json();
    assertEquals([body.hash, body.mediaType], [ref.hash, "text/plain"]);
    assert(body.warnings.length === 1);
    assertStringIncludes(body.warnings[0], "stored before as text/plain");
    assertStringIncludes(body.warnings[0], "text/html was not recorded");
  });
});
