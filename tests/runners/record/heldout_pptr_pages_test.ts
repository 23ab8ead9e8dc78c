/**
 * Held-out pages: @puppeteer/replay's own test pages (the corpus's `web/puppeteer-replay/`,
 * served as they are from 127.0.0.1), which no other test uses. On each, what a person does there
 * (check a box, pick an option, click an SVG shape, click inside a shadow root that appears later,
 * scroll, click below the fold, follow links, open a popup and act in it, click a button whose
 * parent has no size) is recorded in real Chromium, optimized (v3, adaptive, the defaults) and
 * replayed on a fresh load; the replay must act on the element the person meant. A listener the
 * test adds to the replaying tab (the page is not edited) notes each click's target.
 *
 * Fixes shown here on two real pages each: the recorder reports from the top document only (a
 * frame's own load made a link into a page with frames look typed in the address bar:
 * puppeteer's main.html, DevTools' recorder.html); a screenshot of a page with a same-origin
 * frame (the agent's blaze) no longer fails; a click on an element the accessibility tree leaves
 * out (an SVG shape, a plain card `div`) is written as that element, not the wrapper around it
 * (svg.html, Trailblaze's sample app).
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { HumanRecorder } from "../../../drivers/chrome/human_recorder.ts";
import { launchChrome, type LaunchedBrowser } from "../../../drivers/chrome/launch.ts";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import type { EventData } from "../../../events/schemas.ts";
import { projectSessionTrail } from "../../../engine/optimizer/trail_projection.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import type { PlaybackReport } from "../../../engine/playback/report.ts";
import type { Selector, Trail, TrailAction } from "../../../engine/trail/trail.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";

const WEB = new URL("../../../../shared/corpus/web/", import.meta.url).pathname;
const PPTR = "puppeteer-replay/";

type Action = EventData<"ActionPerformed">;

interface World {
  chrome: LaunchedBrowser;
  store: SqliteEventStore;
  /** The corpus's web folder, served as it is. */
  url: string;
}

/** One browser, one server and one event log for a test; closed after it. */
async function withWorld(fn: (w: World) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-heldout-pptr-" });
  const server = serveFolder(WEB);
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const chrome = await launchChrome();
  try {
    await fn({ chrome, store, url: server.url });
  } finally {
    await chrome.close();
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** The person's pace: the page settles and the recorder catches up. */
async function pause(d: ChromeDriver, r: HumanRecorder): Promise<void> {
  await d.waitForSettle({ quietMs: 150, timeoutMs: 3_000 });
  await new Promise((res) => setTimeout(res, 150));
  await r.flush();
}

/** Clicks an element's middle with the mouse, as a person does (puppeteer's `>>>` pierces). */
async function click(d: ChromeDriver, r: HumanRecorder, css: string): Promise<void> {
  const el = await d.page.waitForSelector(css, { visible: true, timeout: 5_000 });
  const box = await el!.boundingBox();
  assert(box, css);
  await d.page.mouse.click(box.x + box.width / 2, box.y + box.height / 2, { delay: 30 });
  await pause(d, r);
}

/** A wheel gesture at a point, long enough to end as one scroll. */
async function wheel(d: ChromeDriver, r: HumanRecorder, x: number, y: number, dy: number) {
  await d.page.mouse.move(x, y);
  await d.page.mouse.wheel({ deltaY: dy });
  await new Promise((res) => setTimeout(res, 500));
  await pause(d, r);
}

/** Records a person on `path`; the session id and its actions. */
async function record(
  w: World,
  path: string,
  flow: (d: ChromeDriver, r: HumanRecorder) => Promise<void>,
): Promise<{ id: string; actions: Action[] }> {
  const d = await ChromeDriver.inContext(w.chrome, { followTabs: "all" });
  let r: HumanRecorder | undefined;
  try {
    r = await HumanRecorder.start(d, w.store, { url: w.url + path, prompt: path });
    await pause(d, r);
    await flow(d, r);
    await r.stop();
    assertEquals(r.errors, []);
  } finally {
    await d.close();
  }
  const actions: Action[] = [];
  for await (const e of w.store.readStream(r.streamId)) {
    if (e.type === "ActionPerformed") actions.push(e.data);
  }
  return { id: r.id, actions };
}

/** The trail's actions, as optimized with the defaults (v3, adaptive). */
async function optimized(w: World, id: string): Promise<{ trail: Trail; actions: TrailAction[] }> {
  const { trail, heuristics } = await projectSessionTrail(w.store, id, {});
  assertEquals([heuristics, trail.config.selectorMode], ["v3", "adaptive"]);
  return { trail, actions: trail.trail.flatMap((s) => s.recording ?? []) };
}

function selectorsOf(a: TrailAction | undefined): Selector[] {
  assert(a !== undefined);
  return [...(a.selector ? [a.selector] : []), ...(a.selectors ?? [])];
}

/** What a click hit: the element's tag, id, class and text, and its shadow host's place. */
const NOTE_CLICKS = () => {
  const w = window as unknown as { __clicks: string[]; __last?: Element };
  w.__clicks = [];
  addEventListener("click", (e) => {
    const el = e.composedPath()[0] as Element;
    w.__last = el;
    const host = (el.getRootNode() as ShadowRoot).host;
    const hosts = host ? [...document.querySelectorAll(host.localName)] : [];
    w.__clicks.push(
      [
        el.localName,
        el.id ? `#${el.id}` : "",
        el.getAttribute?.("class") ? `.${el.getAttribute("class")}` : "",
        host ? ` in ${host.localName}[${hosts.indexOf(host)}]` : "",
      ].join(""),
    );
  }, true);
};

/** Replays a trail on a fresh tab; the report, the clicks the tab saw and what `probe` reads. */
async function replay<T>(
  w: World,
  trail: Trail,
  probe: () => T,
): Promise<{ report: PlaybackReport; clicks: string[]; url: string; state: T }> {
  const d = await ChromeDriver.inContext(w.chrome, {});
  try {
    await d.page.evaluateOnNewDocument(NOTE_CLICKS);
    const report = await runPlayback(d, w.store, trailToPlan(trail));
    const clicks = await d.page.evaluate(() =>
      (window as unknown as { __clicks?: string[] }).__clicks ?? []
    );
    return { report, clicks, url: d.page.url(), state: await d.page.evaluate(probe) };
  } finally {
    await d.close();
  }
}

function failures(report: PlaybackReport): unknown[] {
  return report.results.filter((r) => r.status !== "ok").map((r) => [r.action, r.error]);
}

Deno.test("held-out puppeteer/replay pages: a person's flow is recorded, optimized and replayed onto the element meant", async (t) => {
  await withWorld(async (w) => {
    await t.step("checkbox.html: check the box", async () => {
      const { id, actions } = await record(w, PPTR + "checkbox.html", async (d, r) => {
        await click(d, r, "#checkbox");
      });
      assertEquals(actions.map((a) => [a.kind, a.checked]), [["check", true]]);
      const { trail, actions: acts } = await optimized(w, id);
      assertEquals(selectorsOf(acts[0]).slice(0, 2), [
        { role: "checkbox", name: "checkbox" },
        { id: "checkbox" },
      ]);
      const run = await replay(w, trail, () => document.querySelector("input")!.checked);
      assertEquals(failures(run.report), []);
      assertEquals([run.clicks, run.state], [["input#checkbox"], true]);
    });

    await t.step("select.html: pick the second option", async () => {
      const { id, actions } = await record(w, PPTR + "select.html", async (d, r) => {
        await click(d, r, "#select");
        await d.page.select("#select", "O2");
        await pause(d, r);
      });
      assertEquals(actions.map((a) => [a.kind, a.value]), [["select", "select option 2"]]);
      const { trail, actions: acts } = await optimized(w, id);
      assertEquals(selectorsOf(acts[0])[0], { role: "combobox", name: "Select" });
      const run = await replay(w, trail, () => document.querySelector("select")!.value);
      assertEquals(failures(run.report), []);
      assertEquals(run.state, "O2");
    });

    await t.step(
      "shadow-dynamic.html: click the button in the shadow root, then the one that appears",
      async () => {
        const { id, actions } = await record(w, PPTR + "shadow-dynamic.html", async (d, r) => {
          await click(d, r, "custom-element >>> button");
          await click(d, r, "custom-element:nth-of-type(2) >>> button");
        });
        assertEquals(actions.map((a) => [a.kind, a.target?.selectors?.cssPath]), [
          ["tap", "html > body > custom-element >>> button#test"],
          ["tap", "html > body > custom-element:nth-of-type(2) >>> button#test"],
        ]);
        const { trail, actions: acts } = await optimized(w, id);
        assertEquals(selectorsOf(acts[1])[0], { role: "button", name: "Click me", index: 1 });
        const run = await replay(
          w,
          trail,
          () => document.querySelectorAll("custom-element").length,
        );
        assertEquals(failures(run.report), []);
        assertEquals(run.clicks, [
          "button#test.unknown in custom-element[0]",
          "button#test.unknown in custom-element[1]",
        ]);
        assertEquals(run.state, 2);
      },
    );

    await t.step("scroll.html: scroll the inner box, then the page", async () => {
      const { id, actions } = await record(w, PPTR + "scroll.html", async (d, r) => {
        await wheel(d, r, 50, 50, 60);
        await wheel(d, r, 300, 400, 400);
      });
      assertEquals(actions.map((a) => [a.kind, a.target?.selectors?.id, a.toolParams?.scrollY]), [
        ["scroll", "overflow", 60],
        ["scroll", undefined, 400],
      ]);
      const { trail, actions: acts } = await optimized(w, id);
      assertEquals(acts.map((a) => [a.kind, a.direction, a.selector]), [
        ["scroll", "down", { id: "overflow" }],
        ["scroll", "down", undefined],
      ]);
      const run = await replay(w, trail, () => [
        document.getElementById("overflow")!.scrollTop > 0,
        scrollY > 0,
      ]);
      assertEquals(failures(run.report), []);
      assertEquals(run.state, [true, true]);
    });

    await t.step(
      "scroll-into-view.html: scroll down and click the button below the fold",
      async () => {
        const { id, actions } = await record(w, PPTR + "scroll-into-view.html", async (d, r) => {
          await wheel(d, r, 300, 400, 900);
          await new Promise((res) => setTimeout(res, 800)); // the page scrolls smoothly
          await click(d, r, "button");
        });
        assertEquals(actions.map((a) => a.kind), ["scroll", "tap"]);
        assert(actions[1]!.point!.y > 400, JSON.stringify(actions[1]!.point));
        const { trail, actions: acts } = await optimized(w, id);
        assertEquals(selectorsOf(acts[1])[0], { role: "button", name: "click" });
        const run = await replay(w, trail, () => document.querySelector("button")!.innerText);
        assertEquals(failures(run.report), []);
        assertEquals([run.clicks, run.state], [["button"], "clicked"]);
      },
    );

    await t.step("invisible-parent.html: click the button whose parent has no size", async () => {
      const { id, actions } = await record(w, PPTR + "invisible-parent.html", async (d, r) => {
        await click(d, r, "button.child");
      });
      assertEquals(actions.map((a) => [a.kind, a.target?.name]), [["tap", "test"]]);
      const { trail, actions: acts } = await optimized(w, id);
      assertEquals(selectorsOf(acts[0])[0], { role: "button", name: "test" });
      const run = await replay(w, trail, () => 0);
      assertEquals(failures(run.report), []);
      assertEquals(run.clicks, ["button.child"]);
    });

    await t.step("iframe1.html ⇄ iframe2.html: follow the links there and back", async () => {
      const { id, actions } = await record(w, PPTR + "iframe1.html", async (d, r) => {
        await click(d, r, "a");
        await click(d, r, "a");
      });
      assertEquals(actions.map((a) => [a.kind, a.target?.name]), [
        ["tap", "To iframe 2"],
        ["tap", "To iframe 1"],
      ]);
      const { trail } = await optimized(w, id);
      const run = await replay(w, trail, () => document.querySelector("h1")!.textContent);
      assertEquals(failures(run.report), []);
      assertEquals(run.state, "iframe 1");
    });

    await t.step("main.html → popup.html: open the popup and click its button", async () => {
      const { id, actions } = await record(w, PPTR + "main.html", async (d, r) => {
        await click(d, r, "#popup");
        for (let i = 0; i < 50 && !(await d.url()).includes("popup.html"); i++) {
          await new Promise((res) => setTimeout(res, 100));
        }
        await r.ready();
        await pause(d, r);
        await click(d, r, "button");
      });
      assertEquals(actions.map((a) => [a.kind, a.target?.name, a.url]), [
        ["tap", "Open Popup", undefined],
        ["tap", "Button in Popup", undefined],
      ]);
      const { trail, actions: acts } = await optimized(w, id);
      assertEquals(selectorsOf(acts[1])[0], { role: "button", name: "Button in Popup" });
      const run = await replay(w, trail, () => document.querySelector("h1")!.textContent);
      assertEquals(failures(run.report), []);
      assertEquals([new URL(run.url).pathname, run.state], ["/" + PPTR + "popup.html", "Popup"]);
    });
  });
});

Deno.test("held-out pages: a link into a page with frames is the link's click, never a url typed in the address bar (puppeteer's main.html)", async () => {
  await withWorld(async (w) => {
    // main2.html's "Back to Page 1" leads to main.html, whose frames load documents of their own
    const { id, actions } = await record(w, PPTR + "main.html", async (d, r) => {
      await click(d, r, "a[href='main2.html']");
      await click(d, r, "#test");
      await click(d, r, "a[href='main.html']");
    });
    assertEquals(actions.map((a) => [a.kind, a.target?.name]), [
      ["tap", "Page 2"],
      ["tap", "Test button"],
      ["tap", "Back to Page 1"],
    ]);
    const { trail, actions: acts } = await optimized(w, id);
    assertEquals(acts.map((a) => a.kind), ["tap", "tap", "tap"]);
    const run = await replay(w, trail, () => document.getElementById("iframe") !== null);
    assertEquals(failures(run.report), []);
    assertEquals([new URL(run.url).pathname, run.state], ["/" + PPTR + "main.html", true]);
  });
});

Deno.test("held-out pages: a link into a page with frames is the link's click, never a url typed in the address bar (DevTools' recorder.html)", async () => {
  // DevTools' recorder.html (frames filled by its script), reached by a link: served beside a
  // page whose link leads to it (puppeteer's main2.html, both files unchanged)
  const pages: Record<string, string> = {
    "/p/main2.html": `${WEB}${PPTR}main2.html`,
    "/p/main.html": `${WEB}devtools-recorder/recorder.html`,
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const file = pages[new URL(req.url).pathname];
    return file === undefined
      ? new Response("not found", { status: 404 })
      : new Response(await Deno.readFile(file), { headers: { "content-type": "text/html" } });
  });
  const dir = await Deno.makeTempDir({ prefix: "cairn-heldout-frames-" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const chrome = await launchChrome();
  try {
    const w = { chrome, store, url: `http://127.0.0.1:${server.addr.port}/` };
    const { actions } = await record(w, "p/main2.html", async (d, r) => {
      await click(d, r, "a");
      assert(await d.page.$("#in-iframe") === null); // the frame's button: not in the top page
      assertEquals((await d.page.$$("iframe")).length, 1);
    });
    assertEquals(actions.map((a) => [a.kind, a.target?.name, a.url]), [
      ["tap", "Back to Page 1", undefined],
    ]);
  } finally {
    await chrome.close();
    store.close();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("held-out pages: a click inside a frame is not recorded (the player reaches the top frame only)", async () => {
  await withWorld(async (w) => {
    const { actions } = await record(w, PPTR + "main.html", async (d, r) => {
      const frame = await (await d.page.$("#iframe"))!.contentFrame();
      const box = await (await frame!.$("#in-iframe"))!.boundingBox();
      await d.page.mouse.click(box!.x + box!.width / 2, box!.y + box!.height / 2, { delay: 30 });
      await pause(d, r);
      await click(d, r, "#test"); // the next click in the top page is recorded as usual
    });
    assertEquals(actions.map((a) => [a.kind, a.target?.name]), [["tap", "Test Button"]]);
  });
});

/** An agent taps "Test Button" on a page with same-origin frames; the trail replays. */
async function blazeTestButton(page: string): Promise<void> {
  await withWorld(async (w) => {
    const d = await ChromeDriver.inContext(w.chrome, {});
    let id: string;
    try {
      const s = await BlazeSession.start(d, w.store, { url: w.url + page, prompt: "Test it" });
      id = s.id;
      const snap = (await s.call("snapshot", {})).output;
      const tap = await s.call("tap", { ref: refIn(snap, "Test Button"), step: "Press Test" });
      assert(tap.ok, tap.error);
      await s.call("end", {});
    } finally {
      await d.close();
    }
    const shots = [];
    for await (const e of w.store.readStream(`session-${id}`)) {
      if (e.type === "ScreenCaptured" && e.data.screenshot) shots.push(e.data.screenshot);
    }
    assert(shots.length >= 1, `${page}: ${shots.length} screenshots`);
    const { trail, actions } = await optimized(w, id);
    assertEquals(selectorsOf(actions[0])[0], { role: "button", name: "Test Button" }, page);
    const run = await replay(w, trail, () => 0);
    assertEquals(failures(run.report), [], page);
    assertEquals(run.clicks, ["button#test"], page);
  });
}

for (const page of [PPTR + "main.html", "devtools-recorder/recorder.html"]) {
  Deno.test(`held-out pages: an agent blazes ${page}, a page with same-origin frames (its screenshots, masked for secrets, are taken: the masking reads the frames without failing), and the trail replays`, async () => {
    await blazeTestButton(page);
  });
}

Deno.test("held-out pages: a click on an element the accessibility tree leaves out is written as that element, not the wrapper around it (svg.html's shape)", async () => {
  await withWorld(async (w) => {
    // the SVG path: the screen has the <svg> alone (role image, no name)
    const svg = await record(w, PPTR + "svg.html", async (d, r) => {
      await click(d, r, "svg > path");
    });
    assertEquals(svg.actions.map((a) => [a.kind, a.target?.selectors?.tag]), [["tap", "path"]]);
    const s = await optimized(w, svg.id);
    assertEquals(selectorsOf(s.actions[0])[0], { cssPath: "body > svg > path" });
    const sRun = await replay(w, s.trail, () => 0);
    assertEquals(failures(sRun.report), []);
    assertEquals(sRun.clicks, ["path"]);
    // heuristics v2 is unchanged: the wrapper
    const v2 = await projectSessionTrail(w.store, svg.id, { heuristics: "v2" });
    assertEquals(selectorsOf(v2.trail.trail[0]!.recording![0])[0], { cssPath: "body > svg" });
  });
});

Deno.test("held-out pages: a click on an element the accessibility tree leaves out is written as that element, not the wrapper around it (the sample app's card)", async () => {
  await withWorld(async (w) => {
    // Trailblaze's sample app: the second card of the home section (a plain div), not the
    // section#section-home around both cards
    const app = await record(
      w,
      "trailblaze-playwright-native-sample-app/index.html",
      async (d, r) => {
        const box = await (await d.page.$("#section-home > .card:nth-of-type(2)"))!.boundingBox();
        // the card's padding, beside its list: the card itself is pressed
        await d.page.mouse.click(box!.x + 6, box!.y + box!.height / 2, { delay: 30 });
        await pause(d, r);
      },
    );
    assertEquals(app.actions.map((a) => [a.kind, a.target?.selectors?.cssPath]), [
      ["tap", "section#section-home > div:nth-of-type(2)"],
    ]);
    const a = await optimized(w, app.id);
    const sels = selectorsOf(a.actions[0]);
    assertEquals(sels[0], { cssPath: "section#section-home > div:nth-of-type(2)" });
    assert(sels.some((x) => x.id === "section-home"), JSON.stringify(sels)); // a fallback
    // the card's middle is pressed (the list in it gets the event, the card holds it)
    const aRun = await replay(
      w,
      a.trail,
      () =>
        document.querySelector("#section-home > .card:nth-of-type(2)")!.contains(
          (window as unknown as { __last?: Element }).__last ?? null,
        ),
    );
    assertEquals(failures(aRun.report), []);
    assertEquals([aRun.clicks.length, aRun.state], [1, true]);
  });
});
