/**
 * `POST /v1/playbacks` and `GET /v1/playbacks/:id` through `createApp` (no network for the
 * API; a real headless Chromium and local pages for the playback; a real SQLite file).
 */
import { createApp } from "../api/app.ts";
import { playbackRegistry } from "../api/playbacks.ts";
import { ChromeDriver } from "../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import { ALREADY_RUNNING } from "../drivers/playback_runner.ts";
import type { PlaybackReport } from "../engine/playback/report.ts";
import { servePlaybackPages } from "./playback_server.ts";
import { assert, assertEquals, assertStringIncludes } from "./assert.ts";

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
    for (let i = 0; i < 200; i++) {
      const r = await (await app.request(`/v1/playbacks/${id}`)).json() as PlaybackReport;
      if (r.status !== "running") return r;
      await new Promise((res) => setTimeout(res, 50));
    }
    throw new Error("the playback did not finish");
  };
  try {
    const url = server.url + "app.html";
    const actions = [
      { action: "navigate", url, timestamp_ms: 0 },
      { action: "click", selectors: { testId: "add-btn", text: "Add item" }, timestamp_ms: 2_500 },
      { action: "hover", selector: "#add-item", timestamp_ms: 2_500 },
    ];
    const res = await post({
      actions,
      timing: "recorded",
      test_id: "api-run",
      auto_boundary: true,
    });
    assertEquals(res.status, 202);
    const started = await res.json() as { status: string; playback_id: string };
    assertEquals(started.status, "running");
    // The answer came before the playback could end (its second action waits 2.5 s).

    const busy = await post({ actions });
    assertEquals(busy.status, 409);
    assertEquals((await busy.json()).error, { code: "playback_running", message: ALREADY_RUNNING });

    const partial = await (await app.request(`/v1/playbacks/${started.playback_id}`))
      .json() as PlaybackReport;
    assertEquals(partial.status, "running");
    assertEquals(partial.actions_total, 3);

    const report = await poll(started.playback_id);
    assertEquals(report.status, "completed");
    assertEquals(report.results.map((r) => r.status), ["ok", "healed", "skipped"]);
    assertEquals(report.results[1]!.healed_selector, "text=Add item");
    assertEquals(report.results[2]!.error_code, "unsupported_action_type");
    assertEquals(report.actions_executed, 2);
    assertEquals(report.test_boundary?.test_id, "api-run");
    assert(report.test_boundary?.ended_at);

    const second = await (await post({ actions: actions.slice(0, 2) })).json() as {
      playback_id: string;
    };
    await poll(second.playback_id);
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
      playbacks: { playback_id: string; status: string; results?: unknown }[];
    };
    assertEquals(list.playbacks.map((p) => [p.playback_id, p.status]), [
      [started.playback_id, "completed"],
      [second.playback_id, "completed"],
    ]);
    assertEquals(list.playbacks[0]!.results, undefined);

    const missing = await app.request("/v1/playbacks/pb-nope");
    assertEquals(missing.status, 404);
    assertEquals((await missing.json()).status, "not_found");

    const both = await post({ actions, trail: "config: {}\ntrail: []\n" });
    assertEquals(both.status, 400);
    assertStringIncludes(
      (await both.json()).error.message,
      "exactly one of trail, recording_id or actions",
    );
    const badField = await post({ actions: [{ action: "navigate", url: 42 }] });
    assertEquals(badField.status, 400);
    assertEquals((await badField.json()).error.issues[0].path, "body.actions.0.url");
    const noTab = await post({ actions, tab: "tab-99" });
    assertEquals(noTab.status, 400);
    assertEquals((await noTab.json()).error.issues[0].path, "body.tab");
    const noRecording = await post({ recording_id: "nope" });
    assertEquals(noRecording.status, 404);
  } finally {
    await registry.close();
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("POST /v1/playbacks checks value_overrides on the final plan: 400 naming body.value_overrides.N, as --override", async () => {
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
    assertEquals(await issues(await post({ actions, url, value_overrides: { "2": "x" } })), [
      ["body.value_overrides.2", "the plan has actions 0–1"],
    ]);
    assertEquals(
      await issues(await post({ actions, url, value_overrides: { "0": "ada", "1": "x" } })),
      [["body.value_overrides.1", "action 1 is a click; only typing takes a value"]],
    );
    assertEquals(await issues(await post({ actions: [], value_overrides: { "0": "x" } })), [
      ["body.value_overrides.0", "the plan has no actions"],
    ]);
    const res = await post({ actions, url, value_overrides: { "0": "ada" } });
    assertEquals(res.status, 202);
    const { playback_id: id } = await res.json();
    let report = await (await app.request(`/v1/playbacks/${id}`)).json() as PlaybackReport;
    for (let i = 0; i < 200 && report.status === "running"; i++) {
      await new Promise((r) => setTimeout(r, 50));
      report = await (await app.request(`/v1/playbacks/${id}`)).json() as PlaybackReport;
    }
    assertEquals(report.results.map((r) => [r.source_index, r.status]), [
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
