/**
 * The run viewer against a server that wants a bearer token (real Chromium, real API on
 * 127.0.0.1, a SQLite file): the page and its assets load without it, the data only with it
 * (from the URL fragment, or a prompt after a 401), the screenshots and the live stream too; and
 * the Diff tab shows what changed between the screen an action acted on and the one after it.
 */
import sharp from "sharp";
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { launchChrome } from "../../drivers/chrome/launch.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { createApp } from "../../api/app.ts";
import type { EventStore } from "../../events/event_store.ts";

const XML = await Deno.readTextFile("/work/shared/corpus/android/appium-source_theapp_login.xml");
const TOKEN = "s3cret-viewer-token";

async function shot(store: EventStore, r: number) {
  const png = await sharp({
    create: { width: 360, height: 598, channels: 3, background: { r, g: 120, b: 200 } },
  }).png().toBuffer();
  return await store.putBlob(new Uint8Array(png), "image/png");
}

async function seed(store: EventStore) {
  const enc = new TextEncoder();
  const t1 = await store.putBlob(enc.encode(XML), "application/xml");
  // after the tap: the field's text changed
  const t2 = await store.putBlob(
    enc.encode(XML.replace('text="Username"', 'text="alice typed here"')),
    "application/xml",
  );
  const vp = { width: 1440, height: 2392 };
  const capture = async (tree: typeof t1, r: number) => ({
    type: "ScreenCaptured" as const,
    data: {
      hierarchy: tree,
      screenshot: await shot(store, r),
      format: "uiautomator2" as const,
      viewport: vp,
    },
  });
  await store.append("session-tok1", [
    {
      type: "SessionStarted",
      data: {
        sessionId: "tok1",
        mode: "agent",
        platform: "android",
        prompt: "Log in",
        viewport: vp,
      },
    },
    await capture(t1, 10),
    {
      type: "ActionPerformed",
      data: {
        actionId: "a1",
        kind: "inputText",
        text: "alice typed here",
        point: { x: 720, y: 693 },
        source: "agent",
      },
    },
    { type: "ActionCompleted", data: { actionId: "a1", ok: true, durationMs: 30 } },
    await capture(t2, 200),
  ]);
}

Deno.test("the viewer with CAIRN_TOKEN: the token from the fragment or a prompt is sent on every fetch, image and live update; the Diff tab shows the change", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_viewer_token_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  await seed(store);
  const app = createApp({ store, token: TOKEN });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const base = `http://127.0.0.1:${server.addr.port}`;
  const chrome = await launchChrome();
  try {
    // the page and its assets hold no data: served without the token; the data is not
    for (const path of ["/view/tok1", "/view-assets/viewer.js", "/view-assets/viewer.css"]) {
      const res = await fetch(base + path);
      assertEquals(res.status, 200, path);
      await res.body?.cancel();
    }
    for (const path of ["/v1/view/tok1", "/v1/view/tok1/diff?at=5", "/v1/sessions"]) {
      const res = await fetch(base + path);
      assertEquals(res.status, 401, path);
      await res.body?.cancel();
    }
    // the diff over HTTP: the last screen against the one before it (the default)
    const auth = { headers: { Authorization: `Bearer ${TOKEN}` } };
    const last = (await (await fetch(`${base}/v1/view/tok1`, auth)).json()).lastPosition;
    const diff = await (await fetch(`${base}/v1/view/tok1/diff?at=${last}`, auth)).json();
    assertStringIncludes(diff.text, "alice typed here");
    assert(diff.changed + diff.added >= 1, JSON.stringify(diff));
    assert(diff.fromPosition < diff.screenPosition, JSON.stringify(diff));

    // the token in the fragment: used, and taken out of the address bar
    const page = await chrome.browser.newPage();
    await page.setViewport({ width: 1400, height: 860 });
    const requests: { url: string; auth: string | undefined }[] = [];
    page.on("request", (r) => requests.push({ url: r.url(), auth: r.headers()["authorization"] }));
    await page.goto(`${base}/view/tok1#token=${TOKEN}`);
    await page.waitForSelector("body[data-ready]", { timeout: 10_000 });
    assertEquals(new URL(page.url()).hash, "");
    await page.waitForFunction(() => {
      const img = document.querySelector("#before") as HTMLImageElement;
      return img.complete && img.naturalWidth === 360;
    }, { timeout: 10_000 });
    const data = requests.filter((r) => new URL(r.url).pathname.startsWith("/v1/"));
    assert(data.some((r) => r.url.includes("/v1/blobs/")), JSON.stringify(data));
    for (const r of data) assertEquals(r.auth, `Bearer ${TOKEN}`, r.url);

    // the Diff tab: the field's new text, marked as a change
    await page.click('#tabs button[data-tab="diff"]');
    await page.waitForFunction(() =>
      document.querySelector("#diff")?.getAttribute("data-state") === "shown"
    );
    const shown = await page.evaluate(() => ({
      head: document.querySelector("#diff-head")?.textContent ?? "",
      lines: [...document.querySelectorAll("#diff span")].map((s) => [s.className, s.textContent]),
      visible: (document.querySelector("#tab-diff") as HTMLElement).offsetHeight > 0,
    }));
    assert(shown.visible);
    assertStringIncludes(shown.head, "added");
    assert(
      shown.lines.some(([cls, text]) =>
        (cls === "chg" || cls === "add") && text!.includes("alice typed here")
      ),
      JSON.stringify(shown.lines),
    );

    // live through the token-protected event stream
    await store.append("session-tok1", [
      {
        type: "ActionPerformed",
        data: { actionId: "a2", kind: "tap", point: { x: 700, y: 900 }, source: "agent" },
      },
      { type: "ActionCompleted", data: { actionId: "a2", ok: true, durationMs: 5 } },
    ]);
    await page.waitForFunction(() => document.querySelectorAll("#timeline li").length === 2, {
      timeout: 8000,
    });
    await page.close();

    // no token anywhere (a new tab): the first 401 prompts for it
    const context = await chrome.browser.createBrowserContext();
    const asked = await context.newPage();
    const prompts: string[] = [];
    asked.on("dialog", async (d) => {
      prompts.push(d.message());
      await d.accept(TOKEN);
    });
    await asked.goto(`${base}/view/tok1`);
    await asked.waitForSelector("body[data-ready]", { timeout: 10_000 });
    assertEquals(prompts.length, 1, JSON.stringify(prompts));
    assertStringIncludes(prompts[0]!, "CAIRN_TOKEN");
    assertEquals(await asked.$$eval("#timeline li", (l) => l.length), 2);
    await context.close();
  } finally {
    await chrome.close();
    await server.shutdown();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
