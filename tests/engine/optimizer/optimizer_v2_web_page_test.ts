/**
 * Heuristics v2 on the web, for targets a blaze session names by what the page shows rather than
 * by what identifies them: a tap on the page's background (Chrome's root, `RootWebArea "Shop"`),
 * a contenteditable and a scroll container labelled by aria-label ("Editor", "Scroller") whose
 * content ("hi", "inner") changes. Real Chromium on a 127.0.0.1 page, real blaze sessions in a
 * real SQLite log, and the trails replayed in Chromium.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { projectSessionTrail } from "../../../engine/optimizer/trail_projection.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import type { Selector, SelectorMode, Trail } from "../../../engine/trail/trail.ts";
import type { PlaybackReport } from "../../../engine/playback/report.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

const PAGE = "shop_form.html";
const VIEWPORT = { width: 1280, height: 800 };
const MODES: readonly SelectorMode[] = ["adaptive", "flexible", "strict"];

function selectorsOf(trail: Trail, kind: string): Selector[] {
  const a = trail.trail.flatMap((s) => s.recording ?? []).find((x) => x.kind === kind);
  assert(a !== undefined, JSON.stringify(trail));
  return [...(a.selector ? [a.selector] : []), ...(a.selectors ?? [])];
}

/** Replays a trail on `url`; the report and what the page's #out says after it. */
async function replay(
  store: SqliteEventStore,
  trail: Trail,
  url: string,
): Promise<{ report: PlaybackReport; out: string }> {
  const driver = await ChromeDriver.launch({ viewport: VIEWPORT });
  try {
    const plan = trailToPlan({ ...trail, config: { ...trail.config, url } });
    const report = await runPlayback(driver, store, plan);
    return { report, out: await driver.page.$eval("#out", (e) => e.textContent ?? "") };
  } finally {
    await driver.close();
  }
}

/** Runs a blaze session on the page; `act` makes its calls. Returns the session id. */
async function blaze(
  db: string,
  url: string,
  act: (s: BlazeSession, snapshot: string) => Promise<void>,
): Promise<string> {
  const store = SqliteEventStore.open(db);
  const driver = await ChromeDriver.launch({ viewport: VIEWPORT });
  try {
    const s = await BlazeSession.start(driver, store, { url, prompt: "Use the shop form" });
    await act(s, (await s.call("snapshot", {})).output);
    await s.call("end", {});
    return s.id;
  } finally {
    await driver.close();
    store.close();
  }
}

Deno.test("optimize() v2 writes a tap on the page's background as the body at the point, never the root's role, and it replays in Chromium in every mode", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-v2-page-" });
  const server = serveFolder();
  const db = `${dir}/cairn.db`;
  const url = `${server.url}${PAGE}`;
  try {
    const id = await blaze(db, url, async (s) => {
      const tap = await s.call("tap", { x: 5, y: 6, step: "Click the page's background" });
      assert(tap.ok, tap.error);
      assertEquals(tap.output, 'Tapped RootWebArea "Shop" at (5, 6)');
    });
    const store = SqliteEventStore.open(db);
    try {
      for (const mode of MODES) {
        const { trail } = await projectSessionTrail(store, id, { heuristics: "v2", mode });
        const sels = selectorsOf(trail, "tap");
        assert(
          sels.every((s) => s.role !== "RootWebArea" && s.role !== "document"),
          `${mode}: ${JSON.stringify(sels)}`,
        );
        assertEquals(sels[0], { cssPath: "body" }, mode);
        if (mode === "adaptive") {
          assertEquals(sels[1], { xy: [5, 6], viewport: VIEWPORT });
        }
        const { report, out } = await replay(store, trail, url);
        assertEquals(
          report.results.filter((r) => r.status !== "ok"),
          [],
          `${mode}: ${JSON.stringify(report.results, null, 1)}`,
        );
        assertEquals(out, "background clicks: 1", mode);
      }
      // adaptive acts at the recorded point, and refuses it when a control is there now
      const { trail } = await projectSessionTrail(store, id, { heuristics: "v2" });
      const covered = await replay(store, trail, `${url}?covered`);
      const tap = covered.report.results.find((r) => r.action === "click")!;
      assertEquals(tap.status, "failed", JSON.stringify(covered.report.results, null, 1));
      assert(/button/.test(tap.error ?? ""), tap.error);
      assertEquals(covered.out, "");
      // v1 is unchanged: the root's role + name, then the point
      const v1 = (await projectSessionTrail(store, id, { heuristics: "v1" })).trail;
      assertEquals(selectorsOf(v1, "tap"), [
        { role: "RootWebArea", name: "Shop" },
        { xy: [5, 6], viewport: VIEWPORT },
      ]);
    } finally {
      store.close();
    }
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("optimize() v2 names a contenteditable and a scroll container by their aria-label, not their content, and the flexible trail replays on other content", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-v2-labels-" });
  const server = serveFolder();
  const db = `${dir}/cairn.db`;
  const url = `${server.url}${PAGE}`;
  try {
    const id = await blaze(db, url, async (s, snap) => {
      const editor = refIn(snap, "Editor");
      assert((await s.call("tap", { ref: editor, step: "Open the editor" })).ok);
      const typed = await s.call("type", { ref: editor, text: " there", clear: false });
      assert(typed.ok, typed.error);
      const scroller = refIn(snap, "Scroller");
      assert((await s.call("tap", { ref: scroller, step: "Scroll the list" })).ok);
      const scrolled = await s.call("scroll", { ref: scroller, direction: "down" });
      assert(scrolled.ok, scrolled.error);
    });
    const store = SqliteEventStore.open(db);
    try {
      const { trail } = await projectSessionTrail(store, id, {
        heuristics: "v2",
        mode: "flexible",
      });
      const actions = trail.trail.flatMap((s) => s.recording ?? []);
      assertEquals(
        actions.map((a) => [a.kind, a.selector]),
        [
          // the tap that focused the editor moved into the typing
          ["inputText", { ariaLabel: "Editor" }],
          ["tap", { ariaLabel: "Scroller" }],
          ["scroll", { ariaLabel: "Scroller" }],
        ],
      );
      // adaptive keeps no content text in its fallbacks either
      const adaptive = (await projectSessionTrail(store, id, { heuristics: "v2" })).trail;
      for (
        const [kind, label] of [
          ["inputText", "Editor"],
          ["tap", "Scroller"],
          ["scroll", "Scroller"],
        ] as const
      ) {
        const sels = selectorsOf(adaptive, kind);
        assertEquals(sels[0], { ariaLabel: label });
        assert(sels.every((s) => s.text !== "hi" && s.text !== "inner"), JSON.stringify(sels));
      }
      for (const page of [url, `${url}?changed`]) {
        const { report, out } = await replay(store, trail, page);
        assertEquals(
          report.results.filter((r) => r.status !== "ok"),
          [],
          `${page}: ${JSON.stringify(report.results, null, 1)}`,
        );
        assertEquals(out, "scrolled true", page);
      }
    } finally {
      store.close();
    }
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
