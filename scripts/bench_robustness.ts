/// <reference lib="dom" />
/**
 * Robustness benchmark of the playback engine (issue 5): a 37-step flow recorded once on a
 * fixture shop (`tests/testdata/robustness/shop.html`), replayed against 10 variants of the
 * app (ids renamed, classes churned, copy changed, a banner inserted, a list reordered, the
 * layout shifted, the viewport changed, test ids removed, and two combinations). The same
 * flow, exported as a Chrome DevTools Recorder flow, is replayed by `@puppeteer/replay` (the
 * runner behind the Recorder) in the same run as the peer.
 *
 * Every element a step acts on logs its own identity (`data-ident`, read by no selector), so
 * a step counts as located only when the element the recording named is the one acted on;
 * acting on any other element counts as a wrong-element action.
 *
 * Also measured: the engine's dispatch overhead per action beyond the time spent inside the
 * driver (the browser's own time), and the size of a playback's state.
 *
 * Run: `deno run -A scripts/bench_robustness.ts --shop [--json]`. Without `--shop` the command
 * runs the benchmark of optimized trails on three apps (`bench_robustness_apps.ts`).
 *
 * @module
 */
import type { Page } from "puppeteer-core";
import { createRunner, PuppeteerRunnerExtension } from "@puppeteer/replay";
import { ChromeDriver } from "../drivers/chrome/chrome_driver.ts";
import type { Driver } from "../drivers/driver.ts";
import { runPlayback } from "../runners/playback/runner.ts";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import type { PlaybackAction, PlaybackPlan, Target } from "../engine/playback/actions.ts";
import { servePlaybackPages } from "../tests/_fixtures/playback_server.ts";
import { recordTarget } from "../tests/_fixtures/playback_record_helper.ts";
import { recorderSelectorsInPage } from "./bench_robustness_shared.ts";

const ROOT = new URL("../tests/testdata/robustness/", import.meta.url).pathname;
const RECORDED_VIEWPORT = { width: 1280, height: 800 };
const WAIT_MS = 1_500; // both engines: how long a step may wait for its element
const DEBUG = Deno.args.includes("--debug");
const ONLY = Deno.args.find((a) => a.startsWith("--only="))?.slice(7);

/** One step of the flow: how to find the element while recording, and what to do. */
interface FlowStep {
  type: "navigate" | "click" | "type" | "select" | "check";
  /** `data-ident` of the target (recording only; expected identity at replay). */
  ident?: string;
  path?: string;
  value?: string;
}

const FLOW: FlowStep[] = [
  { type: "navigate", path: "/products" },
  { type: "type", ident: "search", value: "lamp" },
  { type: "click", ident: "search-btn" },
  { type: "select", ident: "category", value: "lighting" },
  { type: "click", ident: "link-desk-lamp" },
  { type: "select", ident: "color", value: "black" },
  { type: "type", ident: "qty", value: "2" },
  { type: "click", ident: "detail-add" },
  { type: "click", ident: "back" },
  { type: "select", ident: "category", value: "all" },
  { type: "click", ident: "add-notebook" },
  { type: "click", ident: "add-pen-set" },
  { type: "click", ident: "wish-mug" },
  { type: "click", ident: "add-planner" },
  { type: "click", ident: "nav-cart" },
  { type: "type", ident: "line-qty-notebook", value: "3" },
  { type: "click", ident: "update-cart" },
  { type: "click", ident: "remove-pen-set" },
  { type: "type", ident: "promo", value: "SAVE10" },
  { type: "click", ident: "apply" },
  { type: "check", ident: "gift" },
  { type: "click", ident: "checkout" },
  { type: "type", ident: "name", value: "Ann Example" },
  { type: "type", ident: "email", value: "ann@example.com" },
  { type: "type", ident: "address", value: "1 Main Street" },
  { type: "type", ident: "city", value: "Utrecht" },
  { type: "type", ident: "zip", value: "3511" },
  { type: "select", ident: "country", value: "nl" },
  { type: "check", ident: "ship-express" },
  { type: "check", ident: "newsletter" },
  { type: "check", ident: "terms" },
  { type: "click", ident: "place-order" },
  { type: "click", ident: "continue" },
  { type: "click", ident: "nav-account" },
  { type: "type", ident: "display-name", value: "ann" },
  { type: "click", ident: "notify" },
  { type: "click", ident: "save" },
];

/** The variants: server flags and the replay viewport. */
const VARIANTS: { name: string; flags: string; viewport?: { width: number; height: number } }[] = [
  { name: "unchanged", flags: "" },
  { name: "ids renamed", flags: "ids" },
  { name: "classes churned", flags: "classes" },
  { name: "copy changed", flags: "copy" },
  { name: "banner inserted", flags: "banner" },
  { name: "list reordered", flags: "reorder" },
  { name: "layout shifted", flags: "layout" },
  { name: "viewport 1024x640", flags: "", viewport: { width: 1024, height: 640 } },
  { name: "test ids removed", flags: "notestid" },
  { name: "test ids removed + ids renamed + classes churned", flags: "notestid,ids,classes" },
  { name: "test ids removed + copy changed + list reordered", flags: "notestid,copy,reorder" },
];

/** A recorded step: the engine's target and the Recorder's selector alternatives. */
interface Recorded {
  step: FlowStep;
  target?: Target;
  recorder?: string[][];
}

/** Drains the page's acted-on log. */
async function drain(page: Page): Promise<string[]> {
  return await page.evaluate(() => {
    const w = globalThis as unknown as { __acted?: string[] };
    return w.__acted ? w.__acted.splice(0) : [];
  }).catch(() => []);
}

async function record(url: string): Promise<Recorded[]> {
  const driver = await ChromeDriver.launch({ viewport: RECORDED_VIEWPORT });
  try {
    const out: Recorded[] = [];
    for (const step of FLOW) {
      if (step.type === "navigate") {
        await driver.navigate(url + step.path!.slice(1));
        out.push({ step });
        continue;
      }
      const sel = `[data-ident="${step.ident}"]`;
      await driver.page.waitForSelector(sel, { visible: true, timeout: 5_000 });
      const target = await recordTarget(driver.page, sel);
      const { css, xpath } = await driver.page.$eval(sel, recorderSelectorsInPage);
      const recorder: string[][] = [];
      if (target.name) recorder.push([`aria/${target.name}[role="${target.role}"]`]);
      recorder.push([css], [`xpath/${xpath}`], [`pierce/${css}`]);
      if (target.text && target.text.length <= 64) recorder.push([`text/${target.text}`]);
      out.push({ step, target, recorder });
      const p = target.point!;
      if (step.type === "click") await driver.tap(p);
      else if (step.type === "type") await driver.type(step.value!, { point: p, clear: true });
      else if (step.type === "select") await driver.select(p, step.value!);
      else await driver.check(p, true);
      await driver.waitForSettle({ quietMs: 100, timeoutMs: 2_000 });
    }
    return out;
  } finally {
    await driver.close();
  }
}

function toPlan(recorded: Recorded[], url: string): PlaybackPlan {
  const actions: PlaybackAction[] = recorded.map(({ step, target }) => {
    if (step.type === "navigate") return { type: "navigate", url: url + step.path!.slice(1) };
    const a: PlaybackAction = { type: step.type, target: target! };
    if (step.type === "type") a.text = step.value!;
    if (step.type === "select") a.value = step.value!;
    if (step.type === "check") a.checked = true;
    return a;
  });
  return {
    source: { kind: "recording", recordingId: "robustness-shop" },
    platform: "web",
    viewport: RECORDED_VIEWPORT,
    actions,
  };
}

function toRecorderFlow(
  recorded: Recorded[],
  url: string,
  viewport: { width: number; height: number },
) {
  const steps: Record<string, unknown>[] = [{
    type: "setViewport",
    width: viewport.width,
    height: viewport.height,
    deviceScaleFactor: 1,
    isMobile: false,
    hasTouch: false,
    isLandscape: false,
  }];
  for (const { step, recorder } of recorded) {
    if (step.type === "navigate") steps.push({ type: "navigate", url: url + step.path!.slice(1) });
    else if (step.type === "type" || step.type === "select") {
      steps.push({ type: "change", selectors: recorder, value: step.value, target: "main" });
    } else {steps.push({
        type: "click",
        selectors: recorder,
        offsetX: 5,
        offsetY: 5,
        target: "main",
      });}
  }
  return { title: "Robustness shop", steps };
}

/** A driver that times every call and drains the page's log after each input. */
class MeasuredDriver implements Driver {
  readonly platform = "web" as const;
  inner: ChromeDriver;
  driverMs = 0;
  inputs: string[][] = [];
  constructor(inner: ChromeDriver) {
    this.inner = inner;
  }
  /** The page, with `evaluate` timed: the overlay runs in the browser too. */
  get page(): Page {
    const page = this.inner.page;
    const timed = (...args: unknown[]) =>
      this.#t(() => (page.evaluate as (...a: unknown[]) => Promise<unknown>).apply(page, args));
    return new Proxy(page, {
      get: (target, key, receiver) =>
        key === "evaluate" ? timed : Reflect.get(target, key, receiver),
    });
  }
  get browser() {
    return this.inner.browser;
  }
  async #t<T>(work: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      return await work();
    } finally {
      this.driverMs += performance.now() - t0;
    }
  }
  async #input(work: () => Promise<void>): Promise<void> {
    await this.#t(work);
    // The benchmark's own instrumentation (reading the page's log) is not the engine's time.
    this.inputs.push(await this.#t(() => drain(this.inner.page)));
  }
  snapshot = () => this.#t(() => this.inner.snapshot());
  screenshot = () => this.#t(() => this.inner.screenshot());
  tap: Driver["tap"] = (p) => this.#input(() => this.inner.tap(p));
  type: Driver["type"] = (t, o) => this.#input(() => this.inner.type(t, o));
  press: Driver["press"] = (k) => this.#t(() => this.inner.press(k));
  scroll: Driver["scroll"] = (d, o) => this.#t(() => this.inner.scroll(d, o));
  scrollTo: Driver["scrollTo"] = (p) => this.#t(() => this.inner.scrollTo(p));
  select: Driver["select"] = (p, v) => this.#input(() => this.inner.select(p, v));
  check: Driver["check"] = (p, c) => this.#input(() => this.inner.check(p, c));
  navigate: Driver["navigate"] = (u) => this.#t(() => this.inner.navigate(u));
  waitForSettle: Driver["waitForSettle"] = (o) => this.#t(() => this.inner.waitForSettle(o));
  viewport = () => this.#t(() => this.inner.viewport());
  url = () => this.#t(() => this.inner.url());
  tabs = () => this.#t(() => this.inner.tabs());
  switchTab: Driver["switchTab"] = (id) => this.#t(() => this.inner.switchTab(id));
  find: Driver["find"] = (q) => this.#t(() => this.inner.find(q));
  close = () => this.inner.close();
}

/** Per-variant tallies of one engine. */
interface Tally {
  steps: number;
  located: number;
  healed: number;
  failed: number;
  wrong: number;
  ms: number;
}

function score(
  expected: string,
  ok: boolean,
  entries: string[] | undefined,
  t: Tally,
  healed = false,
) {
  t.steps++;
  const acted = entries ?? [];
  if (ok && acted.includes(expected)) {
    t.located++;
    if (healed) t.healed++;
  } else if (acted.some((i) => i !== expected)) t.wrong++;
  else t.failed++;
}

async function runCairn(
  driver: MeasuredDriver,
  store: SqliteEventStore,
  plan: PlaybackPlan,
  recorded: Recorded[],
): Promise<
  { tally: Tally; overheadMs: number; strategies: Record<string, number>; stateBytes: number }
> {
  const t0 = performance.now();
  const report = await runPlayback(driver, store, plan, {
    locateWaitMs: WAIT_MS,
    settleAfterMs: 50,
  });
  const wall = performance.now() - t0;
  const tally: Tally = {
    steps: 0,
    located: 0,
    healed: 0,
    failed: 0,
    wrong: 0,
    ms: Math.round(wall),
  };
  const strategies: Record<string, number> = {};
  let next = 0;
  report.results.forEach((r, i) => {
    const step = recorded[i]!.step;
    if (step.type === "navigate") return;
    const acted = r.status === "ok" || r.status === "healed";
    const entries = acted ? driver.inputs[next++] : undefined;
    if (DEBUG && !(acted && entries?.includes(step.ident!))) {
      console.error(
        `  cairn step ${i} ${step.ident}: ${r.status} ${r.selector_used ?? ""} ${
          r.error ?? ""
        } acted=${JSON.stringify(entries)}`,
      );
    }
    if (acted && r.selector_used) {
      strategies[r.selector_used] = (strategies[r.selector_used] ?? 0) + 1;
    }
    score(step.ident!, acted, entries, tally, r.status === "healed");
  });
  const actions = report.results.length;
  return {
    tally,
    overheadMs: (wall - driver.driverMs) / actions,
    strategies,
    stateBytes: new TextEncoder().encode(JSON.stringify(report)).length,
  };
}

async function runPeer(
  driver: ChromeDriver,
  flow: ReturnType<typeof toRecorderFlow>,
  recorded: Recorded[],
): Promise<Tally> {
  const t0 = performance.now();
  const extension = new PuppeteerRunnerExtension(
    driver.browser as never,
    driver.page as never,
    { timeout: WAIT_MS },
  );
  const runner = await createRunner(flow as never, extension);
  const tally: Tally = { steps: 0, located: 0, healed: 0, failed: 0, wrong: 0, ms: 0 };
  await runner.runBeforeAllSteps();
  // Steps run one by one, each failure recorded and the flow continued (as Cairn's
  // on_error: continue), so the two engines are scored on the same steps.
  for (const [i, step] of flow.steps.entries()) {
    const rec = recorded[i - 1];
    await drain(driver.page);
    let ok = true;
    try {
      await runner.runStep(step as never);
    } catch {
      ok = false;
    }
    await new Promise((r) => setTimeout(r, 50)); // the same settle Cairn gives
    const entries = await drain(driver.page);
    if (!rec || rec.step.type === "navigate") continue;
    if (DEBUG && !(ok && entries.includes(rec.step.ident!))) {
      console.error(
        `  peer step ${i - 1} ${rec.step.ident}: ok=${ok} acted=${JSON.stringify(entries)}`,
      );
    }
    score(rec.step.ident!, ok, entries, tally);
  }
  await runner.runAfterAllSteps();
  tally.ms = Math.round(performance.now() - t0);
  return tally;
}

const pct = (a: number, b: number) => (b === 0 ? "—" : `${((100 * a) / b).toFixed(1)} %`);

if (import.meta.main && !Deno.args.includes("--shop")) {
  // the default: the optimized trails of three apps on their variants (bench_robustness_apps.ts)
  const { main } = await import("./bench_robustness_apps.ts");
  await main(Deno.args);
} else if (import.meta.main) {
  const json = Deno.args.includes("--json");
  const server = servePlaybackPages(ROOT, { index: "shop.html" });
  const dir = await Deno.makeTempDir({ prefix: "cairn-bench-robustness-" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  try {
    const recorded = await record(server.url);
    const plan = toPlan(recorded, server.url);
    const rows: {
      variant: string;
      cairn: Tally;
      peer: Tally;
      strategies: Record<string, number>;
    }[] = [];
    const overheads: number[] = [];
    let stateBytes = 0;
    for (const v of VARIANTS) {
      if (ONLY && !v.name.includes(ONLY)) continue;
      server.setVariant(v.flags);
      const viewport = v.viewport ?? RECORDED_VIEWPORT;
      const chrome = await ChromeDriver.launch({ viewport });
      try {
        const measured = new MeasuredDriver(chrome);
        const ours = await runCairn(measured, store, plan, recorded);
        overheads.push(ours.overheadMs);
        stateBytes = Math.max(stateBytes, ours.stateBytes);
        const peer = await runPeer(
          chrome,
          toRecorderFlow(recorded, server.url, viewport),
          recorded,
        );
        rows.push({ variant: v.name, cairn: ours.tally, peer, strategies: ours.strategies });
        if (!json) {
          console.error(
            `${v.name}: cairn ${ours.tally.located}/${ours.tally.steps} (wrong ${ours.tally.wrong}), peer ${peer.located}/${peer.steps} (wrong ${peer.wrong})`,
          );
        }
      } finally {
        await chrome.close();
      }
    }
    // A 100-action playback on the unchanged app: dispatch overhead and the size of its state.
    server.setVariant("");
    const hundred: PlaybackPlan = {
      ...plan,
      actions: [...plan.actions, ...plan.actions, ...plan.actions].slice(0, 100),
    };
    const big = await ChromeDriver.launch({ viewport: RECORDED_VIEWPORT });
    let state100 = { overheadMs: 0, reportBytes: 0, eventBytes: 0, located: 0 };
    try {
      const measured = new MeasuredDriver(big);
      const t0 = performance.now();
      const report = await runPlayback(measured, store, hundred, { playbackId: "pb-hundred" });
      const wall = performance.now() - t0;
      let eventBytes = 0;
      for await (const e of store.readStream("playback-pb-hundred")) {
        eventBytes += new TextEncoder().encode(JSON.stringify(e)).length;
      }
      state100 = {
        overheadMs: Math.round(((wall - measured.driverMs) / 100) * 100) / 100,
        reportBytes: new TextEncoder().encode(JSON.stringify(report)).length,
        eventBytes,
        located: report.actions_executed,
      };
    } finally {
      await big.close();
    }
    const sum = (pick: (r: typeof rows[number]) => number) => rows.reduce((a, r) => a + pick(r), 0);
    const total = sum((r) => r.cairn.steps);
    const summary = {
      flowSteps: FLOW.length,
      targetedSteps: FLOW.filter((s) => s.type !== "navigate").length,
      variants: VARIANTS.length,
      cairn: {
        located: sum((r) => r.cairn.located),
        healed: sum((r) => r.cairn.healed),
        failed: sum((r) => r.cairn.failed),
        wrong: sum((r) => r.cairn.wrong),
      },
      peer: {
        located: sum((r) => r.peer.located),
        failed: sum((r) => r.peer.failed),
        wrong: sum((r) => r.peer.wrong),
      },
      total,
      overheadMsPerAction: Math.round(
        (overheads.reduce((a, b) => a + b, 0) / overheads.length) * 100,
      ) / 100,
      reportBytes: stateBytes,
      hundredActions: state100,
    };
    if (json) console.log(JSON.stringify({ rows, summary }, null, 2));
    else {
      console.log(
        "| variant | Cairn located | healed | failed | wrong element | @puppeteer/replay located | failed | wrong element |",
      );
      console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
      for (const r of rows) {
        console.log(
          `| ${r.variant} | ${r.cairn.located}/${r.cairn.steps} | ${r.cairn.healed} | ${r.cairn.failed} | ${r.cairn.wrong} | ${r.peer.located}/${r.peer.steps} | ${r.peer.failed} | ${r.peer.wrong} |`,
        );
      }
      const c = summary.cairn;
      const p = summary.peer;
      console.log(
        `| **all ${VARIANTS.length} variants** | **${c.located}/${total} (${
          pct(c.located, total)
        })** | ${c.healed} | ${c.failed} | **${c.wrong}** | **${p.located}/${total} (${
          pct(p.located, total)
        })** | ${p.failed} | **${p.wrong}** |`,
      );
      console.log(
        `\nCairn dispatch overhead beyond the driver's time: ${summary.overheadMsPerAction} ms/action (mean over variants); report of a ${FLOW.length}-action playback: ${stateBytes} bytes`,
      );
      console.log(
        `100-action playback: ${state100.located}/100 executed, overhead ${state100.overheadMs} ms/action beyond the driver, report ${state100.reportBytes} bytes, stored events ${state100.eventBytes} bytes`,
      );
      console.log("Cairn strategies used per variant:");
      for (const r of rows) console.log(`  ${r.variant}: ${JSON.stringify(r.strategies)}`);
    }
  } finally {
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}
