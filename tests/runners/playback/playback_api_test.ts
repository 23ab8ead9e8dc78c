/**
 * `POST /v1/playbacks` and `GET /v1/playbacks/:id` through `createApp` (no network for the
 * API; a real headless Chromium and local pages for the playback; a real SQLite file).
 */
import { createApp } from "../../../api/app.ts";
import { playbackRegistry } from "../../../api/playbacks.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { ALREADY_RUNNING } from "../../../runners/playback/runner.ts";
import type { PlaybackReportAnswer as PlaybackReport } from "../../../api/playbacks.ts";
import { servePlaybackPages } from "../../_fixtures/playback_server.ts";
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { waitUntil } from "../../_fixtures/wait.ts";

Deno.test("POST /v1/playbacks answers at once, GET reports progress, a second start gets 409, fragile selectors add up", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-playback-api-" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const server = servePlaybackPages();
  const registry = playbackRegistry(store, {
    createDriver: () => ChromeDriver.launch(),
    screenshotDir: `${dir}/shots`,
    locateWaitMs: 300,
  });
  const app = createApp({ store });
  const post = (body: unknown) =>
    app.request("/v1/playbacks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const poll = async (id: string): Promise<PlaybackReport> => {
    return await waitUntil("the playback to finish", async () => {
      const r = await (await app.request(`/v1/playbacks/${id}`)).json() as PlaybackReport;
      return r.status !== "running" && r;
    });
  };
  try {
    const url = server.url + "app.html";
    const actions = [
      { action: "navigate", url, timestamp_ms: 0 },
      { action: "click", selectors: { testId: "add-btn", text: "Add item" }, timestamp_ms: 2_500 },
      { action: "drag", selector: "#add-item", timestamp_ms: 2_500 },
    ];
    const res = await post({
      actions,
      timing: "recorded",
      testId: "api-run",
      autoBoundary: true,
    });
    assertEquals(res.status, 202);
    const started = await res.json() as { status: string; playbackId: string };
    assertEquals(started.status, "running");
    // The answer came before the playback could end (its second action waits 2.5 s).

    const busy = await post({ actions });
    assertEquals(busy.status, 409);
    assertEquals((await busy.json()).error, { code: "playback_running", message: ALREADY_RUNNING });

    const partial = await (await app.request(`/v1/playbacks/${started.playbackId}`))
      .json() as PlaybackReport;
    assertEquals(partial.status, "running");
    assertEquals(partial.actionsTotal, 3);

    const report = await poll(started.playbackId);
    assertEquals(report.status, "completed");
    assertEquals(report.results.map((r) => r.status), ["ok", "healed", "skipped"]);
    assertEquals(report.results[1]!.healedSelector, "text=Add item");
    // the healed action's screenshot: a path on the server, and its blob, which a client can GET
    const shot = report.results[1] as typeof report.results[1] & { screenshotUrl?: string };
    assert(shot.screenshotHash, "a healed action has a screenshot");
    assertEquals(shot.screenshotUrl, `/v1/blobs/${shot.screenshotHash}`);
    const blobs = (report as unknown as { screenshotBlobs: Record<string, unknown>[] })
      .screenshotBlobs;
    assertEquals(blobs.length, report.screenshots.length);
    assertEquals(blobs.find((b) => b.index === 1), {
      index: 1,
      hash: shot.screenshotHash,
      url: shot.screenshotUrl,
      path: shot.screenshotPath,
    });
    const png = await app.request(`/v1/blobs/${shot.screenshotHash}`);
    assertEquals(png.status, 200);
    assertEquals(png.headers.get("content-type"), "image/png");
    await png.body?.cancel();
    assertEquals(report.results[2]!.errorCode, "unsupported_action_type");
    assertEquals(report.actionsExecuted, 2);
    assertEquals(report.testBoundary?.testId, "api-run");
    assert(report.testBoundary?.endedAt);

    const second = await (await post({ actions: actions.slice(0, 2) })).json() as {
      playbackId: string;
    };
    await poll(second.playbackId);
    const fragile = await (await app.request("/v1/selectors/fragile")).json() as {
      selectors: {
        selector: string;
        failures: number;
        total: number;
        runs: number;
        fragile: boolean;
      }[];
      fragile: string[];
    };
    assertEquals(fragile.fragile, ['[data-testid="add-btn"]']);
    const text = fragile.selectors.find((s) => s.selector === "text=Add item");
    assertEquals([text?.failures, text?.total, text?.fragile], [0, 2, false]);

    const list = await (await app.request("/v1/playbacks")).json() as {
      playbacks: { playbackId: string; status: string; results?: unknown }[];
    };
    assertEquals(list.playbacks.map((p) => [p.playbackId, p.status]), [
      [started.playbackId, "completed"],
      [second.playbackId, "completed"],
    ]);
    assertEquals(list.playbacks[0]!.results, undefined);
    assertEquals((list.playbacks[0] as Record<string, unknown>)["screenshotBlobs"], undefined);

    const missing = await app.request("/v1/playbacks/pb-nope");
    assertEquals(missing.status, 404);
    assertEquals((await missing.json()).status, "not_found");

    const both = await post({ actions, trail: "config: {}\ntrail: []\n" });
    assertEquals(both.status, 400);
    assertStringIncludes(
      (await both.json()).error.message,
      "exactly one of trail, recordingId or actions",
    );
    const badField = await post({ actions: [{ action: "navigate", url: 42 }] });
    assertEquals(badField.status, 400);
    assertEquals((await badField.json()).error.issues[0].path, "body.actions.0.url");
    const noTab = await post({ actions, tab: "tab-99" });
    assertEquals(noTab.status, 400);
    assertEquals((await noTab.json()).error.issues[0].path, "body.tab");
    const noRecording = await post({ recordingId: "nope" });
    assertEquals(noRecording.status, 404);
  } finally {
    await registry.close();
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("POST /v1/playbacks/:id/stop ends a running playback failed 'stopped by request' and frees the browser; 409 once ended, 404 unknown", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-playback-api-" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const server = servePlaybackPages();
  // a page that never answers: a navigation to it runs until its timeout (or its browser closes)
  const hung = Promise.withResolvers<Response>();
  let hangingAsked = false;
  const hanging = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    hangingAsked = true;
    return hung.promise;
  });
  const registry = playbackRegistry(store, {
    createDriver: () => ChromeDriver.launch(),
    screenshotDir: `${dir}/shots`,
    locateWaitMs: 300,
  });
  const app = createApp({ store });
  const post = (path: string, body?: unknown) =>
    app.request(path, {
      method: "POST",
      ...(body === undefined
        ? {}
        : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
  try {
    const url = server.url + "app.html";
    // recorded timing: 30 s between the two navigations, so it is waiting when the stop comes
    const res = await post("/v1/playbacks", {
      actions: [
        { action: "navigate", url, timestamp_ms: 0 },
        { action: "navigate", url, timestamp_ms: 30_000 },
      ],
      timing: "recorded",
    });
    assertEquals(res.status, 202);
    const { playbackId } = await res.json();
    // the first navigation is done (a browser is launched first: seconds on a busy machine)
    await waitUntil("the first navigation to be done", async () => {
      const r = await (await app.request(`/v1/playbacks/${playbackId}`)).json();
      return r.actionsExecuted === 1;
    });
    const t0 = performance.now();
    const stopped = await post(`/v1/playbacks/${playbackId}/stop`);
    assertEquals(stopped.status, 200);
    assert(performance.now() - t0 < 3_000, "the wait between actions ended at once");
    const report = await stopped.json() as PlaybackReport;
    assertEquals(report.status, "failed");
    assertEquals(report.error, "Stopped before action 1: stopped by request");
    assertEquals(report.actionsExecuted, 1);
    const again = await post(`/v1/playbacks/playback-${playbackId}/stop`);
    assertEquals(again.status, 409);
    assertEquals((await again.json()).error.code, "playback_ended");
    const unknown = await post("/v1/playbacks/pb-nope/stop");
    assertEquals(unknown.status, 404);
    assertEquals((await unknown.json()).error.message, "No playback pb-nope");

    // an action that hangs (a page that never loads, a 60 s timeout) is ended by closing the
    // browser under it after the grace; the next playback starts at once in a new browser
    const slow = await post("/v1/playbacks", {
      actions: [
        { action: "navigate", url: `http://127.0.0.1:${hanging.addr.port}/` },
        { action: "navigate", url },
      ],
      timeoutMs: 60_000,
    });
    assertEquals(slow.status, 202);
    const slowId = (await slow.json()).playbackId;
    // the stop must come during action 0: once its navigation has reached the page that hangs
    // (the playback launches a new browser first, which a fixed pause could outlast)
    await waitUntil("the navigation to the page that hangs", () => hangingAsked);
    const t1 = performance.now();
    const ended = await post(`/v1/playbacks/${slowId}/stop`);
    assertEquals(ended.status, 200);
    assert(performance.now() - t1 < 10_000, `stopped in ${performance.now() - t1} ms`);
    const slowReport = await ended.json() as PlaybackReport;
    assertEquals(slowReport.status, "failed");
    // the stop interrupted action 0, which the report lists failed: the error names it
    assertEquals(slowReport.error, "Stopped during action 0: stopped by request");
    assertEquals(slowReport.results.map((r) => [r.index, r.status]), [[0, "failed"]]);
    const next = await post("/v1/playbacks", { actions: [{ action: "navigate", url }] });
    assertEquals(next.status, 202, "the stopped playback no longer holds the browser");
    const nextId = (await next.json()).playbackId;
    const done = await waitUntil("the next playback to end", async () => {
      const r = await (await app.request(`/v1/playbacks/${nextId}`)).json() as PlaybackReport;
      return r.status !== "running" && r;
    });
    assertEquals(done.status, "completed");
  } finally {
    await registry.close();
    hung.resolve(new Response("late"));
    await hanging.shutdown();
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("POST /v1/playbacks checks valueOverrides on the final plan: 400 naming body.valueOverrides.N, as --override", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-playback-api-" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const server = servePlaybackPages();
  const registry = playbackRegistry(store, {
    createDriver: () => ChromeDriver.launch(),
    screenshotDir: `${dir}/shots`,
    locateWaitMs: 300,
  });
  const app = createApp({ store });
  const post = (body: unknown) =>
    app.request("/v1/playbacks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const issues = async (res: Response) => {
    assertEquals(res.status, 400);
    const { error } = await res.json();
    return (error.issues as { path: string; message: string }[]).map((i) => [i.path, i.message]);
  };
  try {
    // the source's actions 0 (type) and 1 (click); --url opens the page first, unnumbered
    const actions = [
      { action: "type", selector: "#username", text: "placeholder" },
      { action: "click", selector: "#login" },
    ];
    const url = server.url + "login.html";
    assertEquals(await issues(await post({ actions, url, valueOverrides: { "2": "x" } })), [
      ["body.valueOverrides.2", "the plan has actions 0–1"],
    ]);
    assertEquals(
      await issues(await post({ actions, url, valueOverrides: { "0": "ada", "1": "x" } })),
      [["body.valueOverrides.1", "action 1 is a click; only typing takes a value"]],
    );
    assertEquals(await issues(await post({ actions: [], valueOverrides: { "0": "x" } })), [
      ["body.valueOverrides.0", "the plan has no actions"],
    ]);
    const res = await post({ actions, url, valueOverrides: { "0": "ada" } });
    assertEquals(res.status, 202);
    const { playbackId: id } = await res.json();
    // bounded, with room for a browser launch on a busy machine
    const report = await waitUntil("the playback to finish", async () => {
      const r = await (await app.request(`/v1/playbacks/${id}`)).json() as PlaybackReport;
      return r.status !== "running" && r;
    });
    assertEquals(report.results.map((r) => [r.sourceIndex, r.status]), [
      [undefined, "ok"],
      [0, "ok"],
      [1, "ok"],
    ]);
  } finally {
    await registry.close();
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("POST /v1/playbacks refuses a web plan that opens no page or navigates to a placeholder without url: 400 naming body.url, as replay's exit 2", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-playback-api-" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const server = servePlaybackPages();
  const registry = playbackRegistry(store, {
    createDriver: () => ChromeDriver.launch(),
    screenshotDir: `${dir}/shots`,
    locateWaitMs: 300,
  });
  const app = createApp({ store });
  const post = (body: unknown) =>
    app.request("/v1/playbacks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const finish = async (res: Response): Promise<PlaybackReport> => {
    assertEquals(res.status, 202);
    const { playbackId: id } = await res.json();
    // bounded, with room for a browser launch on a busy machine
    const report = await waitUntil("the playback to finish", async () => {
      const r = await (await app.request(`/v1/playbacks/${id}`)).json() as PlaybackReport;
      return r.status !== "running" && r;
    });
    return report;
  };
  const refused = async (res: Response) => {
    assertEquals(res.status, 400);
    const { error } = await res.json();
    return error as { code: string; message: string; issues: { path: string }[] };
  };
  try {
    const url = server.url + "app.html";
    const click = { action: "click", selector: "#add-item" };
    // the first playback leaves app.html open in the shared browser
    const first = await finish(await post({ actions: [{ action: "navigate", url }, click] }));
    assertEquals(first.status, "completed");

    // a click alone would play on that left-over page
    const noPage = await refused(await post({ actions: [click] }));
    assertEquals(noPage.code, "invalid_request");
    assertEquals(noPage.issues.map((i) => i.path), ["body.url"]);
    assertStringIncludes(
      noPage.message,
      "url: the plan opens no page (its first action is a click, not a navigate): give url",
    );
    const trail = await refused(
      await post({
        trail: "trail:\n  - step: Add\n    recording:\n      - click: { id: add-item }\n",
      }),
    );
    assertStringIncludes(trail.message, "the plan opens no page");

    // a DevTools Recorder placeholder: the browser could only fail on it
    const placeholder = "https://localhost:<test-port>/app.html";
    const flow = await refused(
      await post({ actions: [{ action: "navigate", url: placeholder }, click] }),
    );
    assertEquals(flow.issues.map((i) => i.path), ["body.url"]);
    assertStringIncludes(
      flow.message,
      `url: action 0 navigates to "${placeholder}", which is not a url (a placeholder host or port?): give url`,
    );

    // with url both play: the page is opened first, the placeholder re-pointed at it
    const opened = await finish(await post({ actions: [click], url }));
    assertEquals(opened.status, "completed");
    const rebased = await finish(
      await post({ actions: [{ action: "navigate", url: placeholder }, click], url }),
    );
    assertEquals(rebased.status, "completed");
    assertEquals(rebased.results.map((r) => r.status), ["ok", "ok"]);
  } finally {
    await registry.close();
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
