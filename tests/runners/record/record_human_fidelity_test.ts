/**
 * What the human recorder stores is what the person did, when and on what screen: the screen
 * before an action is never one from after it (and an inexact one says so), actions carry the
 * time they happened in the page, Back and Forward are recorded so a replay succeeds, a double
 * click is one double click, and typing into contenteditable content is recorded (redacted when
 * sensitive). Real Chromium on 127.0.0.1 pages.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { HumanRecorder } from "../../../drivers/chrome/human_recorder.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { readSession, sessionToRecording } from "../../../runners/record/session_export.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import type { EventData, StoredEvent } from "../../../events/schemas.ts";
import { parseChromeHierarchy } from "../../../engine/screens/chrome_hierarchy.ts";
import { walk } from "../../../engine/screens/ui_node.ts";
import { eventsToPlan } from "../../../engine/playback/from_events.ts";
import { recordingToEvents } from "../../../engine/formats/recording_v1.ts";
import { projectSessionTrail } from "../../../engine/optimizer/trail_projection.ts";
import { stringifyTrail } from "../../../engine/trail/trail.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { assertNoSecret } from "../../_fixtures/secret_forms.ts";

type Performed = EventData<"ActionPerformed">;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A person's pace between actions: the page settles and the recorder catches up. */
async function pause(d: ChromeDriver, r: HumanRecorder): Promise<void> {
  await d.waitForSettle({ quietMs: 150, timeoutMs: 3_000 });
  await sleep(150);
  await r.flush();
}

async function click(d: ChromeDriver, r: HumanRecorder, css: string): Promise<void> {
  await d.page.waitForSelector(css, { visible: true, timeout: 5_000 });
  await d.page.click(css, { delay: 40 });
  await pause(d, r);
}

interface Recorded {
  events: StoredEvent[];
  store: SqliteEventStore;
  id: string;
  url: string;
  cleanup: () => Promise<void>;
}

async function record(
  page: string,
  fn: (d: ChromeDriver, r: HumanRecorder) => Promise<void>,
): Promise<Recorded> {
  const dir = await Deno.makeTempDir();
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const cleanup = async () => {
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  };
  try {
    const driver = await ChromeDriver.launch({ followTabs: "all" });
    let r: HumanRecorder;
    try {
      r = await HumanRecorder.start(driver, store, { url: server.url + page, prompt: "demo" });
      await pause(driver, r);
      await fn(driver, r);
      await r.stop();
    } finally {
      await driver.close();
    }
    const events: StoredEvent[] = [];
    for await (const e of store.readStream(r.streamId)) events.push(e);
    return { events, store, id: r.id, url: server.url, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

function actionsOf(events: StoredEvent[]): Performed[] {
  return events.flatMap((e) => e.type === "ActionPerformed" ? [e.data] : []);
}

/** The text of `#count` on the last screen stored before each action, with the action. */
async function countsBefore(
  r: Recorded,
): Promise<{ action: Performed; count: string | undefined; at: number }[]> {
  const out: { action: Performed; count: string | undefined; at: number }[] = [];
  let screen: StoredEvent | undefined;
  for (const e of r.events) {
    if (e.type === "ScreenCaptured") screen = e;
    if (e.type !== "ActionPerformed") continue;
    let count: string | undefined;
    if (screen?.type === "ScreenCaptured") {
      const bytes = (await r.store.getBlob(screen.data.hierarchy.hash)).bytes;
      const root = parseChromeHierarchy(new TextDecoder().decode(bytes)).root;
      const node = [...walk(root)].find(([n]) => n.resourceId === "count")?.[0];
      count = node ? [...walk(node)].map(([n]) => n.text).filter(Boolean).join("") : undefined;
    }
    out.push({ action: e.data, count, at: Date.parse(e.meta.recordedAt) });
  }
  return out;
}

/**
 * The k-th "+" (from 0) happened with the count at k: its screen shows k when exact or captured
 * from the press on (`changing`), and an earlier count (never a later one) when it says it is
 * older (`earlier`, `none`).
 */
function assertScreensBefore(
  taps: { action: Performed; count: string | undefined }[],
): number {
  let exact = 0;
  taps.forEach(({ action, count }, k) => {
    const flag = action.toolParams?.screenBefore;
    const shown = count === undefined ? -1 : Number(count);
    assert(shown <= k, `tap ${k}: its screen shows the count at ${count}, after the tap`);
    if (flag === undefined) {
      assertEquals(shown, k, `tap ${k}: an exact screen shows the count at ${k}`);
      exact++;
    } else {
      assert(["changing", "earlier", "none"].includes(String(flag)), `tap ${k}: ${flag}`);
      assert(typeof action.toolParams?.notes === "string", `tap ${k}: no note`);
      if (flag === "changing") assertEquals(shown, k, `tap ${k}: captured from its press`);
    }
  });
  return exact;
}

Deno.test("HumanRecorder: rapid clicks never get a screen from after them, and carry their own time", async () => {
  let t0 = 0;
  let t1 = 0;
  const r = await record("counter_rows.html", async (d, rec) => {
    t0 = Date.now();
    for (let i = 0; i < 3; i++) await d.page.click("#inc"); // no delay between them
    t1 = Date.now();
    assertEquals(await d.page.$eval("#count", (e) => e.textContent), "3");
    await pause(d, rec);
  });
  try {
    const taps = (await countsBefore(r)).filter((t) => t.action.kind === "tap");
    assertEquals(taps.length, 3);
    // the first "+" came after the page had settled: its screen is exact
    assertEquals(taps[0]!.action.toolParams, undefined);
    assertEquals(taps[0]!.count, "0");
    assert(assertScreensBefore(taps) >= 1);
    // stamped when they happened in the page, not when the recorder got to them
    for (const t of taps) {
      assert(t.at >= t0 - 5 && t.at <= t1 + 5, `a tap at ${t.at - t0} ms of ${t1 - t0} ms`);
    }
  } finally {
    await r.cleanup();
  }
});

Deno.test("HumanRecorder: on a page that never stops changing, no screen before claims to be exact and each says why", async () => {
  let t0 = 0;
  let t1 = 0;
  const r = await record("counter_rows.html?clock", async (d, rec) => {
    t0 = Date.now();
    for (let i = 0; i < 5; i++) {
      await d.page.click("#inc", { delay: 60 });
      await sleep(150);
    }
    t1 = Date.now();
    assertEquals(await d.page.$eval("#count", (e) => e.textContent), "5");
    await sleep(300);
    await rec.flush();
  });
  try {
    const taps = (await countsBefore(r)).filter((t) => t.action.kind === "tap");
    assertEquals(taps.length, 5);
    // the clock ticks every 10 ms, a capture of the page takes longer: none can be exact, and
    // every action says so
    assertEquals(assertScreensBefore(taps), 0);
    for (const [i, t] of taps.entries()) {
      assert(t.at >= t0 - 5 && t.at <= t1 + 5, `tap ${i} at ${t.at - t0} ms of ${t1 - t0} ms`);
      // 150 ms apart plus a 60 ms press: the recorded gaps are the real ones
      if (i > 0) assert(t.at - taps[i - 1]!.at >= 150, `tap ${i}: ${t.at - taps[i - 1]!.at} ms`);
    }
    // what the events say, recording_v1 says: a flagged action carries its note
    const rec = sessionToRecording(await readSession(r.store, r.id));
    const flagged = taps.filter((t) => t.action.toolParams?.screenBefore !== undefined);
    const notes = rec.timeline.flatMap((e) =>
      e.kind === "human_action" && typeof e.notes === "string" ? [e.notes] : []
    );
    assertEquals(notes.length, flagged.length);
  } finally {
    await r.cleanup();
  }
});

Deno.test("HumanRecorder: on a small page that never stops changing, a screen captured from the press on says so", async () => {
  const r = await record("counter_rows.html?clock&rows=5", async (d, rec) => {
    for (let i = 0; i < 5; i++) {
      await d.page.click("#inc", { delay: 250 }); // a capture of this page is quicker
      await sleep(300);
    }
    await rec.flush();
  });
  try {
    const taps = (await countsBefore(r)).filter((t) => t.action.kind === "tap");
    assertEquals(taps.length, 5);
    assertScreensBefore(taps);
    const flags = taps.map((t) => t.action.toolParams?.screenBefore ?? "exact");
    assert(flags.some((f) => f === "changing" || f === "exact"), flags.join());
  } finally {
    await r.cleanup();
  }
});

for (const bfcache of [true, false]) {
  Deno.test(`HumanRecorder records Back and Forward (${bfcache ? "from the back/forward cache" : "reloaded"}) so the recording replays`, async () => {
    const r = await record("history_a.html", async (d, rec) => {
      // an unload listener keeps a page out of the back/forward cache
      if (!bfcache) await d.page.evaluate(() => addEventListener("unload", () => {}));
      await d.page.evaluate(() => Object.assign(globalThis, { __kept: 1 }));
      await click(d, rec, "#to-b");
      await d.page.goBack();
      await pause(d, rec);
      const kept = await d.page.evaluate(() => (globalThis as { __kept?: number }).__kept);
      assertEquals(kept === 1, bfcache, "the page was (not) restored from the cache");
      await click(d, rec, "#inc");
      await d.page.goForward();
      await pause(d, rec);
      await click(d, rec, "#q");
      await d.page.keyboard.type("shoes", { delay: 5 });
      await click(d, rec, "#go");
      assertEquals(await d.page.$eval("#r", (e) => e.textContent), "Results for shoes");
      // the page's own back button: a click, and the navigation it caused, no Back of the person's
      await click(d, rec, "#app-back");
      assert(d.page.url().endsWith("history_a.html"), d.page.url());
    });
    try {
      const acts = actionsOf(r.events);
      assertEquals(
        acts.map((a) => [a.kind, a.toolName ?? "", a.url ?? a.text ?? a.target?.name ?? ""]),
        [
          ["tap", "", "Page two"],
          ["navigate", "back", r.url + "history_a.html"],
          ["tap", "", "Add one"],
          ["navigate", "forward", r.url + "history_b.html"],
          ["tap", "", "Search"],
          ["inputText", "", "shoes"],
          ["tap", "", "Go"],
          ["tap", "", "Back in the app"],
        ],
      );
      const navs = r.events.flatMap((e) => e.type === "NavigationOccurred" ? [e.data.reason] : []);
      assertEquals(navs, ["navigate", "load", "back", "load", "load"]);
      // the trail optimized from it opens the pages the person went back and forward to
      const trail = stringifyTrail((await projectSessionTrail(r.store, r.id, {})).trail);
      for (const page of ["history_a.html", "history_b.html"]) {
        assert(trail.includes(`navigate: "${r.url}${page}"`), trail);
      }

      // replayed from the event log: every action plays, and the page ends where it did
      const plan = eventsToPlan(r.events);
      const driver = await ChromeDriver.launch();
      try {
        const report = await runPlayback(driver, r.store, plan, { overlay: false });
        assertEquals(
          [report.status, report.actions_failed],
          ["completed", 0],
          JSON.stringify(report.results),
        );
        assert(driver.page.url().endsWith("history_a.html"), driver.page.url());
      } finally {
        await driver.close();
      }
    } finally {
      await r.cleanup();
    }
  });
}

Deno.test("HumanRecorder records a double click as one doubleClick, which recording_v1 keeps and replay plays", async () => {
  const r = await record("editing.html", async (d, rec) => {
    await d.page.click("#cell", { count: 2, delay: 40 });
    await pause(d, rec);
    assertEquals(await d.page.$eval("#out", (e) => e.textContent), "edited");
    await click(d, rec, "#other"); // a single click stays a single click
  });
  try {
    const acts = actionsOf(r.events);
    assertEquals(
      acts.map((a) => [a.kind, a.toolName ?? "", a.target?.name ?? ""]),
      [["tap", "doubleClick", "Double-click to edit"], ["tap", "", "Other"]],
    );
    const rec = sessionToRecording(await readSession(r.store, r.id));
    const types = rec.timeline.flatMap((e) =>
      e.kind === "human_action" ? [e.step.action_type] : []
    );
    assertEquals(types, ["doubleClick", "click"]);
    // the trail optimized from it double-clicks too
    const trail = stringifyTrail((await projectSessionTrail(r.store, r.id, {})).trail);
    assert(/doubleClick:/.test(trail), trail);
    // the file read back replays the double click: the page's dblclick listener fires
    const { events } = recordingToEvents(JSON.parse(JSON.stringify(rec)), { sessionId: "again" });
    const plan = eventsToPlan(events);
    assertEquals(plan.actions.map((a) => a.type), ["navigate", "double_click", "click"]);
    const driver = await ChromeDriver.launch();
    try {
      const outs: string[] = [];
      const report = await runPlayback(driver, r.store, plan, {
        overlay: false,
        afterAction: async () => {
          outs.push(await driver.page.$eval("#out", (e) => e.textContent ?? ""));
        },
      });
      assertEquals(report.status, "completed");
      assertEquals(outs, ["idle", "edited", "other"]);
    } finally {
      await driver.close();
    }
  } finally {
    await r.cleanup();
  }
});

Deno.test("HumanRecorder records typing into contenteditable content, redacted when sensitive", async () => {
  const SECRET = "diary-Quartz-4471";
  const r = await record("editing.html", async (d, rec) => {
    await click(d, rec, "#comment");
    await d.page.keyboard.type("hello world", { delay: 5 });
    await click(d, rec, "#note"); // focus moves on: the comment is committed
    await d.page.keyboard.type(SECRET, { delay: 5 });
    await click(d, rec, "#save");
    assertEquals(await d.page.$eval("#saved", (e) => e.textContent), "Saved: hello world");
  });
  try {
    const acts = actionsOf(r.events);
    assertEquals(
      acts.map((a) => [a.kind, a.text ?? "", a.target?.name ?? ""]),
      [
        ["tap", "", "Comment"],
        ["inputText", "hello world", "Comment"],
        ["tap", "", "Private note"],
        ["inputText", "[redacted]", "Private note"],
        ["tap", "", "Save"],
      ],
    );
    assertEquals(acts[1]?.target?.role, "textbox");
    assertEquals(acts[1]?.target?.selectors?.id, "comment");
    assertEquals(acts[1]?.target?.selectors?.text, undefined); // what was typed is no selector
    for (const e of r.events) {
      assertNoSecret(JSON.stringify(e), SECRET, e.type);
      if (e.type === "ScreenCaptured") {
        const raw = new TextDecoder().decode((await r.store.getBlob(e.data.hierarchy.hash)).bytes);
        assertNoSecret(raw, SECRET, `snapshot ${e.data.hierarchy.hash}`);
      }
    }
    // replayed, the comment is typed into the contenteditable element (the redacted note is skipped)
    const plan = eventsToPlan(r.events);
    const driver = await ChromeDriver.launch();
    try {
      const report = await runPlayback(driver, r.store, plan, { overlay: false });
      const typed = report.results.filter((x) => x.action === "type");
      assertEquals(typed.map((x) => x.status), ["ok", "skipped"]);
      assertEquals(await driver.page.$eval("#saved", (e) => e.textContent), "Saved: hello world");
    } finally {
      await driver.close();
    }
  } finally {
    await r.cleanup();
  }
});
