/**
 * `video: true` on `POST /v1/playbacks`: the server records the playback (real Chromium, local
 * page, SQLite file), the report names `videoUrl`, `GET /v1/playbacks/:id/video` serves the WebM
 * whole and by byte range, and the run viewer (real Chromium on the real API) shows it beside the
 * timeline. Without ffmpeg the start is refused with 501 before anything runs.
 */
import { createApp } from "../../api/app.ts";
import { playbackRegistry } from "../../api/playbacks.ts";
import { ChromeDriver } from "../../drivers/chrome/chrome_driver.ts";
import { launchChrome } from "../../drivers/chrome/launch.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import type { PlaybackReportAnswer as PlaybackReport } from "../../api/playbacks.ts";
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { waitUntil } from "../_fixtures/wait.ts";

const PAGE = `<!doctype html><body style="margin:0;height:100vh;background:#fff">
<button id="go" onclick="document.body.style.background='#0a0'">go</button></body>`;

Deno.test("video: true records the playback; /v1/playbacks/:id/video serves it (ranges too); the viewer shows it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-playback-video-" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const web = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(PAGE, { headers: { "content-type": "text/html" } }),
  );
  playbackRegistry(store, {
    createDriver: () => ChromeDriver.launch({ viewport: { width: 480, height: 320 } }),
    screenshotDir: `${dir}/shots`,
    locateWaitMs: 300,
  });
  const app = createApp({ store });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const base = `http://127.0.0.1:${server.addr.port}`;
  const chrome = await launchChrome();
  try {
    const actions = [
      { action: "navigate", url: `http://127.0.0.1:${web.addr.port}/`, timestamp_ms: 0 },
      { action: "click", selector: "#go", timestamp_ms: 1000 },
    ];
    const res = await fetch(`${base}/v1/playbacks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ actions, timing: "recorded", video: true }),
    });
    assertEquals(res.status, 202);
    const { playbackId: id } = await res.json() as { playbackId: string };
    // while it runs, there is no video yet
    const early = await fetch(`${base}/v1/playbacks/${id}/video`);
    assertEquals(early.status, 404);
    assertStringIncludes((await early.json()).error.message, "still running");
    // bounded (60 s): a browser launch and a recorded video take seconds on a busy machine
    const report: PlaybackReport | undefined = await waitUntil("the playback to end", async () => {
      const r = await (await fetch(`${base}/v1/playbacks/${id}`)).json() as PlaybackReport;
      return r.status !== "running" && r;
    }, { timeoutMs: 60_000 });
    assertEquals(report!.status, "completed", JSON.stringify(report));
    assertEquals(report!.video?.path, `${dir}/shots/${id}/replay.webm`);
    assertEquals(report!.videoUrl, `/v1/playbacks/${id}/video`);
    assert(report!.video!.durationMs! >= 1000, JSON.stringify(report!.video));

    const whole = await fetch(`${base}${report!.videoUrl}`);
    assertEquals(whole.status, 200);
    assertEquals(whole.headers.get("content-type"), "video/webm");
    const bytes = new Uint8Array(await whole.arrayBuffer());
    // EBML magic: a Matroska/WebM file
    assertEquals([...bytes.subarray(0, 4)], [0x1a, 0x45, 0xdf, 0xa3]);
    assertEquals(bytes.length, (await Deno.stat(report!.video!.path)).size);
    const part = await fetch(`${base}${report!.videoUrl}`, { headers: { range: "bytes=4-13" } });
    assertEquals(part.status, 206);
    assertEquals(part.headers.get("content-range"), `bytes 4-13/${bytes.length}`);
    assertEquals([...new Uint8Array(await part.arrayBuffer())], [...bytes.subarray(4, 14)]);
    const past = await fetch(`${base}${report!.videoUrl}`, {
      headers: { range: `bytes=${bytes.length + 5}-` },
    });
    assertEquals(past.status, 416);
    await past.body?.cancel();

    // the viewer plays it beside the timeline, and selecting an action seeks to it
    const page = await chrome.browser.newPage();
    await page.setViewport({ width: 1300, height: 800 });
    await page.goto(`${base}/view/${id}`);
    await page.waitForSelector("body[data-ready]");
    await page.waitForFunction(() => {
      const v = document.querySelector("#video") as HTMLVideoElement;
      return !v.hidden && v.readyState >= 1;
    }, { timeout: 10_000 });
    const shown = await page.evaluate(() => {
      const v = document.querySelector("#video") as HTMLVideoElement;
      return {
        src: v.src,
        width: v.getBoundingClientRect().width,
        left: v.closest("#left") !== null,
      };
    });
    assertEquals(shown.src, `${base}/v1/playbacks/${id}/video`);
    assert(shown.width > 100 && shown.left, JSON.stringify(shown));
    await page.click("#timeline li:last-child");
    const seeked = await page.$eval("#video", (v) => (v as HTMLVideoElement).currentTime);
    assert(seeked >= 0.8, `the click (1 s into the run) is ${seeked} s into the video`);
    await page.close();

    // a playback recorded without video: 404 naming why
    const plain = await fetch(`${base}/v1/playbacks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ actions: actions.slice(0, 1) }),
    });
    const plainId = (await plain.json()).playbackId as string;
    await waitUntil("the playback without video to end", async () => {
      const r = await (await fetch(`${base}/v1/playbacks/${plainId}`)).json();
      return r.status !== "running";
    }, { timeoutMs: 60_000 });
    const none = await fetch(`${base}/v1/playbacks/${plainId}/video`);
    assertEquals(none.status, 404);
    const err = (await none.json()).error;
    assertEquals(err.code, "no_video");
    assertStringIncludes(err.message, "none was asked for");

    // no ffmpeg on the server: refused before a playback starts
    const saved = Deno.env.get("CAIRN_FFMPEG");
    Deno.env.set("CAIRN_FFMPEG", `${dir}/no-ffmpeg`);
    try {
      const refused = await fetch(`${base}/v1/playbacks`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ actions, video: true }),
      });
      assertEquals(refused.status, 501);
      const e = (await refused.json()).error;
      assertEquals(e.code, "video_unavailable");
      assertStringIncludes(e.message, "Video needs ffmpeg");
    } finally {
      if (saved === undefined) Deno.env.delete("CAIRN_FFMPEG");
      else Deno.env.set("CAIRN_FFMPEG", saved);
    }
  } finally {
    await chrome.close();
    await playbackRegistry(store).close();
    await server.shutdown();
    await web.shutdown();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
