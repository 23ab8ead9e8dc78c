/**
 * A screen the log holds that its readers cannot parse: refused when a session append references
 * it (the media type it declares, the hierarchy it names), and a 422 `invalid_stream` naming the
 * event where one was stored before (the trail, a validation), not a 400 blaming the request.
 * Real SQLite files.
 */
import { createApp } from "../../api/app.ts";
import { validationRegistry } from "../../api/validations.ts";
import type { Driver } from "../../drivers/driver.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";

async function withApp(
  fn: (app: ReturnType<typeof createApp>, store: SqliteEventStore) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "cairn_http_screens_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  try {
    await fn(createApp({ store }), store);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function post(body: unknown): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  };
}

const enc = new TextEncoder();
const started = (sessionId: string) => ({
  type: "SessionStarted",
  data: { sessionId, mode: "agent", platform: "web" },
});
const screen = (hierarchy: unknown, format = "chrome") => ({
  type: "ScreenCaptured",
  data: { hierarchy, format },
});

async function failure(res: Response) {
  const body = await res.json();
  return {
    status: res.status,
    code: body.error?.code,
    message: body.error?.message ?? "",
    paths: (body.error?.issues ?? []).map((i: { path: string }) => i.path),
  };
}

Deno.test("POST /v1/streams/session-*/events refuses a ScreenCaptured whose blob is stored as another media type or does not parse (422 naming data.hierarchy, nothing appended)", async () => {
  await withApp(async (app, store) => {
    const text = await store.putBlob(enc.encode("plain words"), "text/plain");
    const notJson = await store.putBlob(enc.encode("{not json"), "application/json");
    const xml = await store.putBlob(
      enc.encode('<hierarchy><node bounds="[0,0][100,100]" text="Hi"/></hierarchy>'),
      "application/xml",
    );
    const cases: [unknown, string][] = [
      [
        screen({ ...text, mediaType: "application/json" }),
        'declares media type "application/json", but the blob is stored as "text/plain"',
      ],
      [screen({ ...text, size: text.size + 1 }), `declares size ${text.size + 1}`],
      [screen(notJson), "data.hierarchy"],
    ];
    for (const [event, says] of cases) {
      const r = await failure(
        await app.request(
          "/v1/streams/session-s/events",
          post({ events: [started("s"), event] }),
        ),
      );
      assertEquals([r.status, r.code, r.paths], [
        422,
        "invalid_session",
        ["body.events.1.data.hierarchy"],
      ], says);
      assertStringIncludes(r.message, says);
    }
    const notPng = await store.putBlob(enc.encode("not a png"), "image/png");
    const shot = await failure(
      await app.request(
        "/v1/streams/session-s/events",
        post({
          events: [started("s"), {
            type: "ScreenCaptured",
            data: { hierarchy: xml, screenshot: notPng, format: "uiautomator-dump" },
          }],
        }),
      ),
    );
    assertEquals([shot.status, shot.paths], [422, ["body.events.1.data.screenshot"]]);
    assertStringIncludes(shot.message, "not a PNG image");
    assertEquals(await store.streams("session-"), []);
    // a screen its readers can read is taken
    const ok = await app.request(
      "/v1/streams/session-s/events",
      post({ events: [started("s"), screen(xml, "uiautomator-dump")] }),
    );
    assertEquals(ok.status, 201, JSON.stringify(await ok.clone().json()));
  });
});

Deno.test("a stored screen that is not JSON makes the trail and a validation a 422 invalid_stream naming the event, not a 400", async () => {
  await withApp(async (app, store) => {
    // as a database written before the append checked screens, or by another writer
    const text = await store.putBlob(enc.encode("plain words"), "text/plain");
    await store.append("session-s", [
      started("s") as never,
      screen({ ...text, mediaType: "application/json" }) as never,
    ]);
    const trail = await failure(await app.request("/v1/sessions/s/trail"));
    assertEquals([trail.status, trail.code], [422, "invalid_stream"], trail.message);
    assertStringIncludes(trail.message, "ScreenCaptured at position 2 (session-s)");
    assertStringIncludes(trail.message, "does not parse as chrome");
    // a validation reads the trail before it replays anything: no browser is needed to fail it
    const registry = validationRegistry(store, {
      createDriver: () =>
        Promise.resolve({ platform: "web", close: () => Promise.resolve() } as unknown as Driver),
    });
    try {
      const v = await failure(await app.request("/v1/sessions/s/validations", post({})));
      assertEquals([v.status, v.code], [422, "invalid_stream"], v.message);
      assertStringIncludes(v.message, "ScreenCaptured at position 2");
    } finally {
      await registry.close();
    }
  });
});
