/**
 * The playback runner over the stand-in driver (named so: an in-memory page) and a real
 * SQLite store: cascade statuses, error modes, redaction, timing, boundaries, busy browser.
 * The same behaviours in real Chromium are in `playback_chrome_test.ts`.
 */
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import type { PlaybackAction, PlaybackPlan } from "../../../engine/playback/actions.ts";
import {
  ALREADY_RUNNING,
  PlaybackBusyError,
  runPlayback,
  startPlayback,
} from "../../../runners/playback/runner.ts";
import { StandInDriver, type StandInElement } from "../../_fixtures/playback_stand_in_driver.ts";
import {
  assert,
  assertEquals,
  assertLessOrEqual,
  assertRejects,
  assertStringIncludes,
} from "../../_fixtures/assert.ts";

async function withStore(fn: (store: SqliteEventStore, dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "cairn-playback-" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  try {
    await fn(store, dir);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const PAGE: StandInElement[] = [
  {
    ident: "email",
    role: "textbox",
    name: "Email",
    ariaLabel: "Email",
    id: "email",
    bounds: { x: 100, y: 100, w: 200, h: 30 },
  },
  {
    ident: "password",
    role: "textbox",
    name: "Password",
    id: "password",
    bounds: { x: 100, y: 150, w: 200, h: 30 },
  },
  {
    ident: "login",
    role: "button",
    name: "Log in",
    ariaLabel: "Log in",
    text: "Log in",
    bounds: { x: 100, y: 200, w: 100, h: 40 },
  },
  {
    ident: "count",
    role: "status",
    id: "count",
    text: "5",
    bounds: { x: 100, y: 300, w: 50, h: 20 },
  },
];

function plan(actions: PlaybackAction[], extra: Partial<PlaybackPlan> = {}): PlaybackPlan {
  return { source: { kind: "actions" }, platform: "web", actions, ...extra };
}

const clickLogin: PlaybackAction = {
  type: "click",
  target: { testId: "login-btn", ariaLabel: "Log in", text: "Log in" },
};

Deno.test("runPlayback() heals a removed data-testid to aria-label and reports healed_selector", async () => {
  await withStore(async (store) => {
    const driver = new StandInDriver(PAGE);
    const report = await runPlayback(driver, store, plan([clickLogin]));
    const r = report.results[0]!;
    assertEquals(r.status, "healed");
    assertEquals(r.selector_used, "aria_label");
    assertEquals(r.healed_selector, '[aria-label="Log in"]');
    assertEquals(report.actions_healed, 1);
    assertEquals(report.actions_executed, 1);
    assertEquals(driver.inputs.map((i) => i.ident), ["login"]);
    assert(r.screenshot_hash, "a healed action has a screenshot");
  });
});

Deno.test("runPlayback() passes over an ambiguous level instead of acting on either match", async () => {
  await withStore(async (store) => {
    const twins: StandInElement[] = [
      {
        ident: "a",
        role: "button",
        ariaLabel: "Save",
        text: "Save draft",
        bounds: { x: 0, y: 0, w: 50, h: 20 },
      },
      {
        ident: "b",
        role: "button",
        ariaLabel: "Save",
        text: "Save",
        bounds: { x: 0, y: 40, w: 50, h: 20 },
      },
    ];
    const driver = new StandInDriver(twins);
    const report = await runPlayback(
      driver,
      store,
      plan([{ type: "click", target: { ariaLabel: "Save", text: "Save" } }]),
    );
    assertEquals(report.results[0]!.selector_used, "text");
    assertEquals(report.results[0]!.tried?.[0]?.matches, 2);
    assertEquals(driver.inputs.map((i) => i.ident), ["b"]);
  });
});

Deno.test("runPlayback() matches text exactly or normalised, never as a substring", async () => {
  await withStore(async (store) => {
    const page: StandInElement[] = [
      {
        ident: "banner",
        role: "link",
        text: "Checkout now and save",
        bounds: { x: 0, y: 0, w: 90, h: 20 },
      },
    ];
    const driver = new StandInDriver(page);
    const report = await runPlayback(
      driver,
      store,
      plan([{ type: "click", target: { text: "Checkout" } }, {
        type: "click",
        target: { text: "  checkout NOW and save " },
      }]),
    );
    assertEquals(report.results[0]!.status, "failed");
    assertEquals(report.results[0]!.error_code, "selector_not_found");
    assertEquals(report.results[1]!.status, "ok");
    assertEquals(driver.inputs.length, 1);
  });
});

Deno.test("runPlayback() skips unsupported actions with unsupported_action_type", async () => {
  await withStore(async (store) => {
    const report = await runPlayback(new StandInDriver(PAGE), store, plan([{ type: "drag" }]));
    assertEquals(report.results[0]!.status, "skipped");
    assertEquals(report.results[0]!.error, "Cairn does not play drag");
    assertEquals(report.actions_skipped, 1);
  });
});

Deno.test("runPlayback() skips a hover on a driver without a mouse, naming why", async () => {
  await withStore(async (store) => {
    const hover: PlaybackAction = { type: "hover", target: { ariaLabel: "Log in" } };
    const report = await runPlayback(
      new StandInDriver(PAGE),
      store,
      plan([hover], { platform: "android" }),
    );
    assertEquals(report.results[0]!.status, "skipped");
    assertEquals(
      report.results[0]!.error,
      "hover: the android driver has no mouse",
    );
  });
});

Deno.test("runPlayback() never types [redacted]: skipped without an override, the override typed with one", async () => {
  await withStore(async (store) => {
    const typePw: PlaybackAction = { type: "type", target: { id: "password" }, text: "[redacted]" };
    const d1 = new StandInDriver(PAGE);
    const r1 = await runPlayback(d1, store, plan([typePw]));
    assertEquals(r1.results[0]!.status, "skipped");
    assertEquals(r1.results[0]!.error_code, "redacted_value");
    assertStringIncludes(r1.results[0]!.error!, "Provide value_overrides");
    assertEquals(d1.inputs.filter((i) => i.kind === "type"), []);
    const d2 = new StandInDriver(PAGE);
    const r2 = await runPlayback(d2, store, plan([typePw]), { valueOverrides: { "0": "s3cret" } });
    assertEquals(r2.results[0]!.status, "ok");
    assertEquals(d2.inputs.map((i) => [i.ident, i.text]), [["password", "s3cret"]]);
  });
});

Deno.test("runPlayback() with on_error stop halts at the first failure and ends failed", async () => {
  await withStore(async (store) => {
    const driver = new StandInDriver(PAGE);
    const report = await runPlayback(
      driver,
      store,
      plan([{ type: "click", target: { id: "gone" } }, clickLogin]),
      { onError: "stop" },
    );
    assertEquals(report.status, "failed");
    assertEquals(report.results.length, 1);
    assertEquals(report.actions_failed, 1);
    assertEquals(driver.inputs, []);
  });
});

Deno.test("runPlayback() with on_error skip_dependent skips typing until the next click succeeds", async () => {
  await withStore(async (store) => {
    const driver = new StandInDriver(PAGE);
    const report = await runPlayback(
      driver,
      store,
      plan([
        { type: "click", target: { id: "gone" } },
        { type: "type", target: { id: "email" }, text: "a@b.c" },
        clickLogin,
        { type: "type", target: { id: "email" }, text: "x@y.z" },
      ]),
      { onError: "skip_dependent" },
    );
    assertEquals(report.results.map((r) => r.status), ["failed", "skipped", "healed", "ok"]);
    assertEquals(report.results[1]!.error_code, "skipped_dependency");
    assertEquals(report.status, "failed"); // it ran to the end, and an action failed
    assertEquals(driver.inputs.filter((i) => i.kind === "type").map((i) => i.text), ["x@y.z"]);
  });
});

Deno.test("runPlayback() with on_error continue runs every action after a failure", async () => {
  await withStore(async (store) => {
    const report = await runPlayback(
      new StandInDriver(PAGE),
      store,
      plan([
        { type: "click", target: { id: "gone" } },
        { type: "type", target: { id: "email" }, text: "a@b.c" },
      ]),
    );
    assertEquals(report.results.map((r) => r.status), ["failed", "ok"]);
    assertEquals(report.status, "failed"); // every action ran; one failed
    assertEquals(report.actions_failed, 1);
  });
});

Deno.test("runPlayback() flags url_mismatch after a redirect and auth_redirect on the failures after it", async () => {
  await withStore(async (store) => {
    const driver = new StandInDriver([], {
      redirects: { "http://app.test/checkout": "http://app.test/login" },
      pages: { "http://app.test/login": PAGE },
    });
    const report = await runPlayback(
      driver,
      store,
      plan([
        { type: "navigate", url: "http://app.test/checkout" },
        { type: "click", target: { testId: "pay" } },
      ]),
    );
    const [nav, click] = report.results;
    assertEquals(nav!.status, "ok");
    assertEquals(nav!.error_code, "url_mismatch");
    assertEquals(nav!.page_url, "http://app.test/login");
    assertEquals(nav!.original_url, "http://app.test/checkout");
    assertEquals(
      nav!.error,
      "Expected http://app.test/checkout, landed on http://app.test/login. Browser may need authentication.",
    );
    assertEquals(click!.error_code, "selector_not_found");
    assertEquals(click!.likely_cause, "auth_redirect");
  });
});

Deno.test("runPlayback() with recorded timing sleeps the deltas, negative as 0, capped at 30 s", async () => {
  await withStore(async (store) => {
    const slept: number[] = [];
    const key = (t: number): PlaybackAction => ({ type: "key_press", key: "Tab", timestampMs: t });
    await runPlayback(
      new StandInDriver(PAGE),
      store,
      plan([key(1_000), key(2_500), key(2_000), key(200_000)]),
      { timing: "recorded", sleep: (ms) => (slept.push(ms), Promise.resolve()) },
    );
    assertEquals(slept, [1_500, 30_000]);
    const fast: number[] = [];
    await runPlayback(new StandInDriver(PAGE), store, plan([key(0), key(5_000)]), {
      sleep: (ms) => (fast.push(ms), Promise.resolve()),
    });
    assertEquals(fast, []);
  });
});

Deno.test("runPlayback() stopped by its signal ends a recorded-timing wait at once and ends failed", async () => {
  await withStore(async (store) => {
    const key = (t: number): PlaybackAction => ({ type: "key_press", key: "Tab", timestampMs: t });
    const driver = new StandInDriver(PAGE);
    const stop = new AbortController();
    const started = await startPlayback(driver, store, plan([key(0), key(30_000), key(60_000)]), {
      timing: "recorded",
      signal: stop.signal,
    });
    for (let i = 0; i < 50 && driver.inputs.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const t0 = performance.now();
    stop.abort();
    const report = await started.done;
    // the wait was 30 s: 5 s tells "ended when stopped" from it on a busy machine too
    assertLessOrEqual(performance.now() - t0, 5_000, "the 30 s wait ended when stopped");
    assertEquals(report.status, "failed");
    assertEquals(report.results.map((r) => r.status), ["ok"]);
    assertEquals(driver.inputs.map((i) => i.kind), ["press"]);
  });
});

Deno.test("runPlayback() warns when the viewport differs by more than 20 %", async () => {
  await withStore(async (store) => {
    const driver = new StandInDriver(PAGE, {
      viewport: { width: 1366, height: 768, devicePixelRatio: 1 },
    });
    const r1 = await runPlayback(
      driver,
      store,
      plan([], { viewport: { width: 1920, height: 1080 } }),
    );
    assertEquals(r1.warnings, [
      "viewport_mismatch: Recording was 1920x1080, current is 1366x768. Coordinate fallback may be inaccurate.",
    ]);
    const r2 = await runPlayback(
      driver,
      store,
      plan([], { viewport: { width: 1400, height: 800 } }),
    );
    assertEquals(r2.warnings, []);
  });
});

Deno.test("startPlayback() refuses a second playback on the same browser with 003's error", async () => {
  await withStore(async (store) => {
    const driver = new StandInDriver(PAGE, { latencyMs: 20 });
    const first = await startPlayback(driver, store, plan([clickLogin, clickLogin]));
    const err = await assertRejects(
      () => startPlayback(driver, store, plan([])),
      PlaybackBusyError,
    );
    assertEquals(err.message, ALREADY_RUNNING);
    const report = await first.done;
    assertEquals(report.status, "completed");
    const again = await startPlayback(driver, store, plan([]));
    assertEquals((await again.done).status, "completed");
  });
});

Deno.test("runPlayback() in strict mode fails instead of healing", async () => {
  await withStore(async (store) => {
    const driver = new StandInDriver(PAGE);
    const report = await runPlayback(
      driver,
      store,
      plan([{ ...clickLogin, selectorMode: "strict" }]),
    );
    assertEquals(report.results[0]!.status, "failed");
    assertEquals(report.results[0]!.tried?.length, 1);
    assertEquals(driver.inputs, []);
  });
});

Deno.test("runPlayback() falls back to scaled coordinates only onto an element of the recorded role", async () => {
  await withStore(async (store) => {
    const driver = new StandInDriver(PAGE, {
      viewport: { width: 640, height: 400, devicePixelRatio: 1 },
    });
    // Recorded at 1280x800 at (300, 440): half-size viewport → (150, 220), the Log in button.
    const moved: PlaybackAction = {
      type: "click",
      target: { testId: "nope", role: "button", point: { x: 300, y: 440 } },
    };
    const report = await runPlayback(
      driver,
      store,
      plan([moved, { ...moved, target: { ...moved.target, role: "checkbox" } }], {
        viewport: { width: 1280, height: 800 },
      }),
    );
    assertEquals(report.results[0]!.status, "healed");
    assertEquals(report.results[0]!.selector_used, "coordinates");
    assertEquals(report.results[0]!.healed_selector, "xy=150,220");
    assertEquals(report.results[1]!.status, "failed");
    assertStringIncludes(report.results[1]!.error!, "the recording targeted a checkbox");
    assertEquals(driver.inputs.map((i) => i.ident), ["login"]);
  });
});

Deno.test("runPlayback() scales device-pixel coordinates by the recorded pixel ratio", async () => {
  await withStore(async (store) => {
    const driver = new StandInDriver(PAGE);
    const report = await runPlayback(
      driver,
      store,
      plan([{ type: "click", target: { role: "button", point: { x: 300, y: 440 } } }], {
        viewport: { width: 1280, height: 800 },
        devicePixelRatio: 2,
        coordinateSpace: "device",
      }),
    );
    assertEquals(report.results[0]!.selector_used, "coordinates");
    assertEquals(driver.inputs[0]!.point, { x: 150, y: 220 });
  });
});

Deno.test("runPlayback() reads text into memory and asserts an expression over it", async () => {
  await withStore(async (store) => {
    const driver = new StandInDriver(PAGE);
    const report = await runPlayback(
      driver,
      store,
      plan([
        { type: "read_text", target: { id: "count" }, storeAs: "n" },
        { type: "assert_text", target: { id: "count" }, expected: "{{n}}" },
        { type: "assert_text", target: { id: "count" }, expected: "{{n + 2}}" },
        { type: "type", target: { id: "email" }, text: "{{user}}@example.com" },
      ], { memory: { user: "alice" } }),
    );
    assertEquals(report.results.map((r) => r.status), ["ok", "ok", "failed", "ok"]);
    assertEquals(report.results[0]!.value, "5");
    assertEquals(report.results[2]!.error_code, "assertion_failed");
    assertStringIncludes(report.results[2]!.error!, '"7"');
    assertEquals(driver.inputs.at(-1)!.text, "alice@example.com");
  });
});

Deno.test("runPlayback() fails an action that outlives the per-action timeout", async () => {
  await withStore(async (store) => {
    const driver = new StandInDriver(PAGE, { latencyMs: 60 });
    const report = await runPlayback(driver, store, plan([clickLogin]), {
      actionTimeoutMs: 50,
      overlay: false,
    });
    assertEquals(report.results[0]!.error_code, "timeout");
    await new Promise((r) => setTimeout(r, 400)); // let the abandoned lookups finish
  });
});

Deno.test("runPlayback() records the test boundary and tags every event with the test id", async () => {
  await withStore(async (store, dir) => {
    const report = await runPlayback(new StandInDriver(PAGE), store, plan([clickLogin]), {
      testId: "checkout-regression",
      autoBoundary: true,
      screenshotDir: `${dir}/shots`,
      playbackId: "pb-boundary",
    });
    assertEquals(report.test_id, "checkout-regression");
    assert(report.test_boundary?.started_at && report.test_boundary.ended_at);
    const events = await Array.fromAsync(store.readStream("playback-pb-boundary"));
    assert(events.every((e) => e.meta.correlationId === "checkout-regression"));
    assertEquals(events.map((e) => e.type), [
      "PlaybackStarted",
      "PlaybackActionResolved",
      "PlaybackActionCompleted",
      "PlaybackCompleted",
    ]);
    const path = report.results[0]!.screenshot_path!;
    assertEquals(path, `${dir}/shots/pb-boundary/healed-0.png`);
    assertEquals(report.screenshots, [path]);
    assertEquals((await Deno.readFile(path))[1], 0x50);
  });
});

Deno.test("runPlayback() refuses a CSS path whose one match is not the recorded element", async () => {
  await withStore(async (store) => {
    const page: StandInElement[] = [
      {
        ident: "mug",
        role: "button",
        name: "Mug",
        text: "Mug",
        cssPath: "ul > li:nth-child(1) > button",
        bounds: { x: 0, y: 0, w: 80, h: 20 },
      },
      {
        ident: "nb1",
        role: "button",
        name: "Notebook",
        text: "Notebook",
        bounds: { x: 0, y: 40, w: 80, h: 20 },
      },
      {
        ident: "nb2",
        role: "button",
        name: "Notebook",
        text: "Notebook",
        bounds: { x: 0, y: 80, w: 80, h: 20 },
      },
    ];
    const driver = new StandInDriver(page);
    const target = {
      role: "button",
      name: "Notebook",
      text: "Notebook",
      cssPath: "ul > li:nth-child(1) > button",
    };
    const report = await runPlayback(driver, store, plan([{ type: "click", target }]), {
      locateWaitMs: 50,
    });
    assertEquals(report.results[0]!.status, "failed");
    assertEquals(report.results[0]!.tried!.map((t) => [t.strategy, t.matches]), [
      ["role_name", 2],
      ["text", 2],
      ["css_path", 0],
    ]);
    assertEquals(driver.inputs, []);
    // A path that lands on one of the two "Notebook" buttons disambiguates them.
    const withPath = page.map((e) =>
      e.ident === "nb2" ? { ...e, cssPath: "ul > li:nth-child(3) > button" } : e
    );
    const d2 = new StandInDriver(withPath);
    const ok = await runPlayback(
      d2,
      store,
      plan([{ type: "click", target: { ...target, cssPath: "ul > li:nth-child(3) > button" } }]),
      { locateWaitMs: 50 },
    );
    assertEquals(ok.results[0]!.status, "healed");
    assertEquals(ok.results[0]!.selector_used, "css_path");
    assertEquals(d2.inputs.map((i) => i.ident), ["nb2"]);
  });
});

Deno.test("runPlayback() reports element_hidden and element_disabled", async () => {
  await withStore(async (store) => {
    const page: StandInElement[] = [
      {
        ident: "h",
        role: "button",
        testId: "hidden",
        bounds: { x: 0, y: 0, w: 10, h: 10 },
        visible: false,
      },
      {
        ident: "d",
        role: "button",
        testId: "off",
        bounds: { x: 0, y: 20, w: 10, h: 10 },
        enabled: false,
      },
    ];
    const driver = new StandInDriver(page);
    const report = await runPlayback(
      driver,
      store,
      plan([{ type: "click", target: { testId: "hidden" } }, {
        type: "click",
        target: { testId: "off" },
      }]),
      { locateWaitMs: 50 },
    );
    assertEquals(report.results.map((r) => r.error_code), ["element_hidden", "element_disabled"]);
    assertEquals(driver.inputs, []);
  });
});

Deno.test("runPlayback() calls afterAction once per action, in order, with each result", async () => {
  await withStore(async (store) => {
    const seen: [number, string][] = [];
    await runPlayback(new StandInDriver(PAGE), store, plan([clickLogin, { type: "drag" }]), {
      afterAction: (i, _a, r) => void seen.push([i, r.status]),
    });
    assertEquals(seen, [[0, "healed"], [1, "skipped"]]);
  });
});

Deno.test("runPlayback() memory_set writes memory that later templates read", async () => {
  await withStore(async (store) => {
    const driver = new StandInDriver(PAGE);
    const report = await runPlayback(
      driver,
      store,
      plan([
        { type: "memory_set", storeAs: "total", value: "{{price * 2}}" },
        { type: "type", target: { id: "email" }, text: "{{total}}" },
      ], { memory: { price: "$25.00" } }),
    );
    assertEquals(report.results.map((r) => [r.status, r.value]), [["ok", "$50.00"], [
      "ok",
      undefined,
    ]]);
    assertEquals(driver.inputs.at(-1)!.text, "$50.00");
  });
});

Deno.test("runPlayback() leaves the page it opened first out of the counts, and stops after it fails to open", async () => {
  await withStore(async (store) => {
    const open: PlaybackAction = { type: "navigate", url: "http://app.test/", added: true };
    const ok = await runPlayback(new StandInDriver(PAGE), store, plan([open, clickLogin]));
    assertEquals(ok.results.map((r) => [r.status, r.added ?? false]), [["ok", true], [
      "healed",
      false,
    ]]);
    assertEquals([ok.status, ok.actions_total, ok.actions_executed, ok.actions_skipped], [
      "completed",
      1,
      1,
      0,
    ]);

    class Unreachable extends StandInDriver {
      override navigate(url: string): Promise<never> {
        return Promise.reject(new Error(`Cannot navigate to ${url}: net::ERR_CONNECTION_REFUSED`));
      }
    }
    const driver = new Unreachable(PAGE);
    const t0 = performance.now();
    const down = await runPlayback(
      driver,
      store,
      plan([open, clickLogin, {
        type: "assert_visible",
        target: { id: "count" },
      }]),
    );
    assertEquals(down.results.map((r) => [r.status, r.error_code]), [
      ["failed", "page_error"],
      ["skipped", "skipped_dependency"],
      ["skipped", "skipped_dependency"],
    ]);
    assertEquals(
      down.results[1]!.error,
      "Skipped: the opening navigate to http://app.test/ failed (page_error): no page to act on",
    );
    assertEquals([down.status, down.actions_total, down.actions_failed, down.actions_skipped], [
      "failed",
      2,
      0,
      2,
    ]);
    assertEquals(driver.inputs, []); // nothing was clicked or looked at
    assertLessOrEqual(performance.now() - t0, 3_000);
  });
});

Deno.test("runPlayback() lets an assertion wait up to the action timeout, or expectWaitMs, and still say why it failed", async () => {
  await withStore(async (store) => {
    const missing: PlaybackAction = { type: "assert_visible", target: { id: "nowhere" } };
    let t0 = performance.now();
    const full = await runPlayback(new StandInDriver(PAGE), store, plan([missing]), {
      actionTimeoutMs: 2_000,
      locateWaitMs: 0,
    });
    const waited = performance.now() - t0;
    assertEquals(full.results[0]!.error_code, "selector_not_found"); // not cut off as a timeout
    assert(waited >= 1_200, `waited ${waited} ms`);
    t0 = performance.now();
    const quick = await runPlayback(new StandInDriver(PAGE), store, plan([missing]), {
      actionTimeoutMs: 2_000,
      expectWaitMs: 100,
    });
    assertEquals(quick.results[0]!.error_code, "selector_not_found");
    assertLessOrEqual(performance.now() - t0, 1_000);
  });
});
