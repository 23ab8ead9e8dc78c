/**
 * Heuristics v3 on the web: a control whose name is a time (a showtime "18:05", a slot "10:00")
 * that the NL step names as it is ("Pick the 18:05 show") is found by that name, not by its
 * position among the other times: a name holding a number is taken for data that changes only
 * when the step does not name it. Real Chromium on a 127.0.0.1 page (`showtimes.html`), a real
 * blaze session in a real SQLite log, and the trail replayed on the page with its lists reversed.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { projectSessionTrail } from "../../../engine/optimizer/trail_projection.ts";
import { namedInStep } from "../../../engine/optimizer/rank_web.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import type { Selector, Trail } from "../../../engine/trail/trail.ts";
import { buttonRef } from "../../_fixtures/blaze_refs.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

const VIEWPORT = { width: 1280, height: 800 };

/** The selectors of the trail's taps, in order (the lead first). */
function taps(trail: Trail): Selector[][] {
  return trail.trail.flatMap((s) => s.recording ?? []).filter((a) => a.kind === "tap").map((a) => [
    ...(a.selector ? [a.selector] : []),
    ...(a.selectors ?? []),
  ]);
}

/** Blazes "pick a time, then a ticket count" with the given step; returns the session id. */
async function blaze(db: string, url: string, step: string, time: string): Promise<string> {
  const store = SqliteEventStore.open(db);
  const driver = await ChromeDriver.launch({ viewport: VIEWPORT });
  try {
    const s = await BlazeSession.start(driver, store, { url, prompt: "Buy cinema tickets" });
    const snap = (await s.call("snapshot", {})).output;
    assert((await s.call("step", { text: step } as never)).ok);
    for (const name of [time, "2"]) {
      const r = await s.call("tap", { ref: buttonRef(snap, name) });
      assert(r.ok, r.error);
    }
    await s.call("end", {});
    return s.id;
  } finally {
    await driver.close();
    store.close();
  }
}

/** Replays a trail on `url`; what the page's #out says after it. */
async function replay(store: SqliteEventStore, trail: Trail, url: string): Promise<string> {
  const driver = await ChromeDriver.launch({ viewport: VIEWPORT });
  try {
    const plan = trailToPlan({ ...trail, config: { ...trail.config, url } });
    const report = await runPlayback(driver, store, plan, { locateWaitMs: 1_000 });
    assertEquals(report.results.map((r) => r.status).filter((s) => s === "failed"), []);
    return await driver.page.$eval("#out", (e) => e.textContent ?? "");
  } finally {
    await driver.close();
  }
}

Deno.test("namedInStep() finds a copy the step names as a whole, never inside a longer number or word", () => {
  assert(namedInStep("18:05", "Pick the 18:05 show for 2 people"));
  assert(namedInStep("10:00", "Pick July 14 at 10:00"));
  assert(namedInStep("Checkout (2 items)", "Press checkout (2 items) now"));
  assert(!namedInStep("18:05", "Pick the 18:055 show"));
  assert(!namedInStep("8:05", "Pick the 18:05 show"));
  assert(!namedInStep("18:05", "Pick the evening show"));
  assert(!namedInStep("18:05", undefined));
});

Deno.test("optimize() v3 finds a time the step names by its name, and the trail picks it on the page with its times reordered", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-named-time-" });
  const server = serveFolder();
  const db = `${dir}/cairn.db`;
  try {
    const id = await blaze(
      db,
      `${server.url}showtimes.html`,
      "Pick the 18:05 show for 2 people",
      "18:05",
    );
    const store = SqliteEventStore.open(db);
    try {
      for (const mode of ["adaptive", "flexible"] as const) {
        const { trail } = await projectSessionTrail(store, id, { mode });
        const [time] = taps(trail);
        assert(time, JSON.stringify(trail));
        // the lead names the time; no lead picks it by its place among the times
        assert(
          time[0]!.name === "18:05" || time[0]!.text === "18:05",
          `${mode}: ${JSON.stringify(time)}`,
        );
        const out = await replay(store, trail, `${server.url}showtimes.html?reorder=1`);
        assertEquals(out, "18:05 x2", mode);
      }
      // v2 writes what it always wrote: the time is data, the position picks it
      const { trail: v2 } = await projectSessionTrail(store, id, { heuristics: "v2" });
      const [time2] = taps(v2);
      assert(time2!.every((s) => s.name !== "18:05" && s.text !== "18:05"), JSON.stringify(time2));
    } finally {
      store.close();
    }
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("optimize() v3 keeps a time the step does not name a pattern, as before: the step asks for no particular one", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-named-time-" });
  const server = serveFolder();
  const db = `${dir}/cairn.db`;
  try {
    const id = await blaze(db, `${server.url}showtimes.html`, "Pick an evening show", "20:30");
    const store = SqliteEventStore.open(db);
    try {
      const { trail } = await projectSessionTrail(store, id, { mode: "adaptive" });
      const [time] = taps(trail);
      assert(time!.every((s) => s.name !== "20:30" && s.text !== "20:30"), JSON.stringify(time));
    } finally {
      store.close();
    }
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
