/**
 * The run viewer in real Chromium: a blazed (Android capture) session and a playback with a healed
 * and a failed action, served by the real API on 127.0.0.1 from a SQLite file; clicking through
 * positions, the keyboard and the URL position; and the load of a 1,000-action session.
 */
import sharp from "sharp";
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { launchChrome } from "../../drivers/chrome/launch.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { createApp } from "../../api/app.ts";
import type { EventStore } from "../../events/event_store.ts";

const XML = await Deno.readTextFile("/work/shared/corpus/android/appium-source_theapp_login.xml");

async function shot(store: EventStore, r: number, w = 360, h = 598) {
  const png = await sharp({
    create: { width: w, height: h, channels: 3, background: { r, g: 120, b: 200 } },
  })
    .png().toBuffer();
  return await store.putBlob(new Uint8Array(png), "image/png");
}

async function seed(store: EventStore) {
  const tree = await store.putBlob(new TextEncoder().encode(XML), "application/xml");
  const s1 = await shot(store, 10), s2 = await shot(store, 200);
  await store.append("session-blz1", [
    {
      type: "SessionStarted",
      data: {
        sessionId: "blz1",
        mode: "agent",
        platform: "android",
        prompt: "Log in",
        viewport: { width: 1440, height: 2392 },
      },
    },
    { type: "StepStarted", data: { index: 0, text: "Type the user name" } },
    {
      type: "ScreenCaptured",
      data: {
        hierarchy: tree,
        screenshot: s1,
        format: "uiautomator2",
        viewport: { width: 1440, height: 2392 },
      },
    },
    {
      type: "ActionPerformed",
      data: {
        actionId: "a1",
        kind: "inputText",
        text: "alice",
        point: { x: 720, y: 693 },
        target: { ref: "h129" },
        toolName: "inputText",
        toolParams: { ref: "h129", text: "alice", reason: "the login form asks for it" },
        source: "agent",
        stepIndex: 0,
      },
    },
    { type: "ActionCompleted", data: { actionId: "a1", ok: true, durationMs: 41 } },
    { type: "MemorySnapshotted", data: { memory: { user: "alice" } } },
    {
      type: "ScreenCaptured",
      data: {
        hierarchy: tree,
        screenshot: s2,
        format: "uiautomator2",
        viewport: { width: 1440, height: 2392 },
      },
    },
    {
      type: "ActionPerformed",
      data: {
        actionId: "a2",
        kind: "tap",
        point: { x: 720, y: 965 },
        target: { ref: "p548" },
        source: "agent",
      },
    },
    {
      type: "ActionCompleted",
      data: { actionId: "a2", ok: false, error: "nothing changed", durationMs: 12 },
    },
  ]);
  const p1 = await shot(store, 60, 400, 300), p2 = await shot(store, 120, 400, 300);
  const p3 = await shot(store, 240, 400, 300);
  await store.append("playback-pb-77aa", [
    {
      type: "PlaybackStarted",
      data: {
        playbackId: "pb-77aa",
        source: { kind: "trail" },
        platform: "web",
        actionsTotal: 3,
        timing: "fast",
        onError: "continue",
        viewport: { width: 400, height: 300 },
      },
    },
    {
      type: "PlaybackActionResolved",
      data: {
        index: 0,
        strategy: "test_id",
        selector: "[data-testid=go]",
        healed: false,
        point: { x: 50, y: 40 },
        bounds: { x: 20, y: 20, w: 60, h: 40 },
      },
    },
    {
      type: "PlaybackActionCompleted",
      data: {
        index: 0,
        action: "click",
        status: "ok",
        durationMs: 30,
        screenshot: p1,
        description: "click [data-testid=go]",
      },
    },
    {
      type: "PlaybackActionResolved",
      data: {
        index: 1,
        strategy: "text",
        selector: "text=Next",
        healed: true,
        point: { x: 200, y: 150 },
        bounds: { x: 150, y: 130, w: 100, h: 40 },
        tried: [{ strategy: "test_id", selector: "[data-testid=next]", matches: 0 }],
      },
    },
    {
      type: "PlaybackActionCompleted",
      data: {
        index: 1,
        action: "click",
        status: "healed",
        durationMs: 55,
        screenshot: p2,
        healedSelector: "text=Next",
        description: "click text=Next",
      },
    },
    {
      type: "PlaybackActionCompleted",
      data: {
        index: 2,
        action: "click",
        status: "failed",
        errorCode: "selector_not_found",
        error: "No element matches [data-testid=pay]",
        likelyCause: "the button was renamed",
        durationMs: 900,
        screenshot: p3,
        description: "click [data-testid=pay]",
      },
    },
    { type: "PlaybackCompleted", data: { status: "failed", durationMs: 1000 } },
  ]);
}

Deno.test("the viewer shows a blazed session and a playback position by position, with keys and the URL", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_viewer_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  await seed(store);
  const app = createApp({ store });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const base = `http://127.0.0.1:${server.addr.port}`;
  const chrome = await launchChrome();
  try {
    const page = await chrome.browser.newPage();
    await page.setViewport({ width: 1400, height: 860 });
    // a session, by a short id
    await page.goto(`${base}/view/blz`);
    await page.waitForSelector("body[data-ready]");
    await page.waitForFunction(() =>
      document.querySelector("#snapshot")?.getAttribute("data-state") === "shown"
    );
    // the marks are placed once the screenshot has loaded (its load event redraws them); the
    // snapshot's answer may come first
    await page.waitForFunction(() => {
      const img = document.querySelector("#before") as HTMLImageElement;
      return img.complete && img.naturalWidth > 0;
    });
    await page.waitForFunction(
      () => getComputedStyle(document.querySelector("#box")!).display === "block",
      { timeout: 10_000 },
    ).catch(() => {}); // if it never shows, the assertion below says so
    const first = await page.evaluate(() => ({
      items: document.querySelectorAll("#timeline li").length,
      status: document.querySelector("#timeline li.sel .st")?.textContent,
      before: (document.querySelector("#before") as HTMLImageElement).src,
      snapshot: document.querySelector("#snapshot")?.textContent ?? "",
      box: getComputedStyle(document.querySelector("#box")!).display,
      boxWidth: (document.querySelector("#box") as HTMLElement).style.width,
      memory: document.querySelector("#memory tr.changed")?.textContent,
      call: document.querySelector("#call")?.textContent ?? "",
      url: location.search,
    }));
    assertEquals([first.items, first.status], [2, "ok"]);
    assertStringIncludes(first.before, "/v1/blobs/");
    assertStringIncludes(first.snapshot, 'EditText "username"');
    assertEquals(first.box, "block"); // the target ref's box, found in the snapshot
    assert(parseFloat(first.boxWidth) > 50, first.boxWidth);
    assertEquals(first.memory, "useralice");
    assertStringIncludes(first.call, "the login form asks for it");
    assertStringIncludes(first.url, "at=");
    // the README's picture: the session with its snapshot and the target's box, written to
    // docs/viewer.png only when asked (CAIRN_UPDATE_PICTURES=1): a test run leaves the tree alone
    await page.waitForFunction(() =>
      (document.querySelector("#before") as HTMLImageElement).complete
    );
    const picture = Deno.env.get("CAIRN_UPDATE_PICTURES") === "1"
      ? new URL("../../docs/viewer.png", import.meta.url).pathname
      : `${await Deno.makeTempDir()}/viewer.png`;
    await page.screenshot({ path: picture as `${string}.png` });
    assert((await Deno.stat(picture)).size > 10_000, "the viewer's picture is nearly empty");
    if (!picture.endsWith("docs/viewer.png")) {
      await Deno.remove(picture.replace(/\/[^/]*$/, ""), { recursive: true });
    }
    // → steps to the failed tap; the URL follows
    await page.keyboard.press("ArrowRight");
    await page.waitForFunction(() =>
      document.querySelector("#timeline li.sel .st")?.textContent === "failed"
    );
    assertStringIncludes(
      await page.$eval("#status-line", (e) => e.textContent ?? ""),
      "nothing changed",
    );
    const at = new URL(page.url()).searchParams.get("at");
    // clicking a snapshot line draws its box (on this position's screenshot, once it has loaded)
    await page.waitForFunction(() => {
      const img = document.querySelector("#before") as HTMLImageElement;
      return document.querySelector("#snapshot")?.getAttribute("data-state") === "shown" &&
        img.src.includes(img.dataset.want ?? "") && img.complete && img.naturalWidth > 0;
    });
    await page.click("#snapshot span:nth-child(2)");
    assertEquals(await page.$eval("#pick", (e) => getComputedStyle(e).display), "block");

    // live: an action appended while the page is open shows up, and the selection follows it
    await store.append("session-blz1", [
      {
        type: "ActionPerformed",
        data: { actionId: "a3", kind: "tap", point: { x: 700, y: 500 }, source: "agent" },
      },
      { type: "ActionCompleted", data: { actionId: "a3", ok: true, durationMs: 7 } },
    ]);
    await page.waitForFunction(() => document.querySelectorAll("#timeline li").length === 3, {
      timeout: 5000,
    });
    assertEquals(await page.$eval("#timeline li.sel .st", (e) => e.textContent), "ok");
    await page.keyboard.press("ArrowLeft");
    await page.waitForFunction(() =>
      document.querySelector("#timeline li.sel .st")?.textContent === "failed"
    );

    // a link with ?at opens the same moment
    await page.goto(`${base}/view/blz1?at=${at}`);
    await page.waitForSelector("body[data-ready]");
    assertEquals(await page.$eval("#timeline li.sel .st", (e) => e.textContent), "failed");

    // a playback by its printed id: healed and failed actions with their report rows
    await page.goto(`${base}/view/pb-77aa`);
    await page.waitForSelector("body[data-ready]");
    const statuses = await page.$$eval("#timeline li .st", (es) => es.map((e) => e.textContent));
    assertEquals(statuses, ["ok", "healed", "failed"]);
    await page.click('#timeline li[data-index="1"]');
    await page.click('#tabs button[data-tab="report"]');
    const healed = await page.evaluate(() => ({
      report: document.querySelector("#report")?.textContent ?? "",
      box: (document.querySelector("#box") as HTMLElement).className,
      after: (document.querySelector("#after") as HTMLImageElement).src,
      before: (document.querySelector("#before") as HTMLImageElement).src,
    }));
    assertStringIncludes(healed.report, "[data-testid=next]"); // the selector tried first
    assertStringIncludes(healed.box, "healed");
    assert(healed.after !== healed.before && healed.before.includes("/v1/blobs/"));
    await page.keyboard.press("ArrowRight");
    await page.waitForFunction(() =>
      document.querySelector("#timeline li.sel .st")?.textContent === "failed"
    );
    const failed = await page.$eval("#report", (e) => e.textContent ?? "");
    assertStringIncludes(failed, "the button was renamed");
    // a validation: one row an iteration, its steps in the report
    await store.append("validation-val-9", [
      {
        type: "ValidationStarted",
        data: { validationId: "val-9", sessionId: "blz1", policy: "dev", maxIterations: 2 },
      },
      {
        type: "ValidationIterationCompleted",
        data: {
          iteration: 1,
          playbackId: "pb-77aa",
          passed: false,
          trail: "",
          steps: [{ index: 0, step: "Type the user name", status: "unstable", evidence: ["x"] }],
        },
      },
    ]);
    await page.goto(`${base}/view/val-9`);
    await page.waitForSelector("body[data-ready]");
    assertEquals(await page.$$eval("#timeline li .st", (es) => es.map((e) => e.textContent)), [
      "failed",
    ]);
    assertStringIncludes(await page.$eval("#report", (e) => e.textContent ?? ""), "unstable");
  } finally {
    await chrome.browser.close();
    await server.shutdown();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the viewer paints a 1,000-action session within a second", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_viewer_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  // the same session twice: 1,000 actions, and 10 as a baseline of this machine's speed
  for (const [name, count] of [["big", 1000], ["small", 10]] as const) {
    await store.append(`session-${name}`, sessionEvents(name, count));
  }
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    createApp({ store }).fetch,
  );
  const chrome = await launchChrome();
  try {
    const page = await chrome.browser.newPage();
    const ready = async (id: string) => {
      await page.goto("about:blank");
      const t0 = performance.now();
      await page.goto(`http://127.0.0.1:${server.addr.port}/view/${id}`);
      await page.waitForSelector("body[data-ready]");
      return performance.now() - t0;
    };
    const ms = await ready("big"); // first, as a user opens it: the viewer's script is new
    const paint = await page.evaluate(() =>
      performance.getEntriesByType("paint").map((p) => [p.name, Math.round(p.startTime)])
    );
    assertEquals(await page.$$eval("#timeline li", (l) => l.length), 1000);
    const small = await ready("small");
    assertEquals(await page.$$eval("#timeline li", (l) => l.length), 10);
    console.log(
      `viewer: 1,000 actions ready in ${Math.round(ms)} ms (10 in ${Math.round(small)} ms); ` +
        `paint ${JSON.stringify(paint)}`,
    );
    // A second on a quiet machine, where 10 actions are ready in well under 200 ms. On a busy
    // one (CI shares 2 cores) both loads slow down alike, so the bound grows with the 10-action
    // load measured in this run: 1,000 actions within 5× of it (they take 2–3× of it) still
    // catches a viewer whose cost grows with the actions, without failing on a slow machine.
    assert(ms <= Math.max(1000, 5 * small), `${ms} ms (10 actions: ${small} ms)`);
  } finally {
    await chrome.browser.close();
    await server.shutdown();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** A viewer session `id` of `count` taps (every 50th failed). */
function sessionEvents(id: string, count: number) {
  const events = [];
  events.push({
    type: "SessionStarted" as const,
    data: { sessionId: id, mode: "agent" as const, platform: "web" as const },
  });
  for (let i = 0; i < count; i++) {
    events.push({
      type: "ActionPerformed" as const,
      data: {
        actionId: `a${i}`,
        kind: "tap" as const,
        point: { x: i % 300, y: 10 },
        source: "agent" as const,
      },
    });
    events.push({
      type: "ActionCompleted" as const,
      data: { actionId: `a${i}`, ok: i % 50 !== 0, durationMs: 5 },
    });
  }
  return events;
}
