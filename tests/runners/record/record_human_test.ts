import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { HumanRecorder } from "../../../drivers/chrome/human_recorder.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import type { StoredEvent } from "../../../events/schemas.ts";
import { parseChromeHierarchy } from "../../../engine/screens/chrome_hierarchy.ts";
import { walk } from "../../../engine/screens/ui_node.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { assertNoSecret } from "../../_fixtures/secret_forms.ts";
import { waitUntil } from "../../_fixtures/wait.ts";

/** Clicks an element's centre with the mouse, as a person would, then pauses like one. */
async function click(d: ChromeDriver, css: string): Promise<void> {
  const page = d.page;
  await page.waitForSelector(css, { visible: true, timeout: 5_000 });
  const box = await page.$eval(css, (el) => {
    const r = el.getBoundingClientRect();
    return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
  });
  await page.mouse.click(box.x, box.y, { delay: 40 });
  await pause(d);
}

async function type(d: ChromeDriver, text: string): Promise<void> {
  await d.page.keyboard.type(text, { delay: 5 });
  await pause(d);
}

/** The recorder of the running test: a pause lets it catch up, as a person's pace would. */
let current: HumanRecorder | undefined;

async function pause(d: ChromeDriver): Promise<void> {
  await d.waitForSettle({ quietMs: 150, timeoutMs: 3_000 });
  await new Promise((r) => setTimeout(r, 150));
  await current?.flush();
}

async function withRecorder(
  url: string,
  fn: (d: ChromeDriver, base: string, r: HumanRecorder) => Promise<void>,
): Promise<{ events: StoredEvent[]; store: SqliteEventStore; cleanup: () => Promise<void> }> {
  const dir = await Deno.makeTempDir();
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch({ followTabs: "all" });
  let recorder: HumanRecorder | undefined;
  try {
    recorder = await HumanRecorder.start(driver, store, { url: server.url + url, prompt: "demo" });
    current = recorder;
    await pause(driver);
    await fn(driver, server.url, recorder);
    await recorder.stop();
    assertEquals(recorder.errors, []);
    const events: StoredEvent[] = [];
    for await (const e of store.readStream(recorder.streamId)) events.push(e);
    return {
      events,
      store,
      cleanup: async () => {
        store.close();
        await Deno.remove(dir, { recursive: true });
      },
    };
  } catch (err) {
    store.close();
    await Deno.remove(dir, { recursive: true });
    throw err;
  } finally {
    await driver.close();
    await server.close();
  }
}

function actions(events: StoredEvent[]) {
  return events.flatMap((e) => e.type === "ActionPerformed" ? [e.data] : []);
}

Deno.test("HumanRecorder records clicks, values, selects and checks with redaction", async () => {
  const { events, store, cleanup } = await withRecorder("login.html", async (d) => {
    await click(d, "#email");
    await type(d, "alice@example.com");
    await click(d, "#password");
    await type(d, "hunter22secret");
    await click(d, "#card");
    await type(d, "4111111111111111");
    await click(d, "#plan"); // focus moves to the select: the card number is committed
    await d.page.select("#plan", "pro");
    await pause(d);
    await click(d, "#remember");
    await click(d, "#sign-in");
    await click(d, "#to-cart");
    await click(d, "[data-testid=inc-coffee]");
    await click(d, "[data-testid=inc-coffee]");
  });
  try {
    const acts = actions(events);
    assertEquals(acts.map((a) => a.kind), [
      "tap",
      "inputText",
      "tap",
      "inputText",
      "tap",
      "inputText",
      "select",
      "check",
      "tap",
      "tap",
      "tap",
      "tap",
    ]);
    assert(acts.every((a) => a.source === "human"));
    assertEquals(acts[1]?.text, "alice@example.com");
    assertEquals(acts[3]?.text, "[redacted]");
    assertEquals(acts[5]?.text, "[redacted]");
    assertEquals(acts[6]?.value, "Pro");
    assertEquals(acts[7]?.checked, true);
    const signIn = acts[8]!;
    assertEquals(signIn.target?.role, "button");
    assertEquals(signIn.target?.name, "Sign in");
    assertEquals(signIn.target?.selectors?.testId, "sign-in-button");
    assertEquals(signIn.target?.selectors?.id, "sign-in");
    assert(signIn.point && signIn.point.x > 0 && signIn.point.y > 0);
    // every action has a screen before it; the second "+" saw the count at 1, not 2
    const plus = events.filter((e) => e.type === "ActionPerformed").at(-1)!;
    const screens = events.slice(0, events.indexOf(plus)).filter((e) =>
      e.type === "ScreenCaptured"
    );
    const before = screens.at(-1)!;
    assert(before.type === "ScreenCaptured");
    const screen = parseChromeHierarchy(
      new TextDecoder().decode((await store.getBlob(before.data.hierarchy.hash)).bytes),
    );
    const qty = [...walk(screen.root)].find(([n]) => n.resourceId === "qty-coffee")?.[0];
    const qtyText = [...walk(qty!)].map(([n]) => n.text).filter(Boolean).join("");
    assertEquals(qtyText, "1");
    // nothing stored holds the secrets
    for (const e of events) {
      const json = JSON.stringify(e.data);
      assert(!json.includes("hunter22secret") && !json.includes("4111111111111111"), json);
      if (e.type === "ScreenCaptured") {
        const raw = new TextDecoder().decode((await store.getBlob(e.data.hierarchy.hash)).bytes);
        assert(!raw.includes("hunter22secret"), "password in a snapshot");
        assert(!raw.includes("4111111111111111"), "card number in a snapshot");
      }
    }
    assertEquals(events.at(-1)?.type, "SessionEnded");
  } finally {
    await cleanup();
  }
});

Deno.test("HumanRecorder keeps recording across a reload, an SPA route and a new tab", async () => {
  const { events, cleanup } = await withRecorder("reload.html", async (d, base, r) => {
    await click(d, "#bump");
    await click(d, "#reload");
    await click(d, "#bump");
    await click(d, "#to-app");
    await click(d, "a[href='/spa/items']");
    await click(d, "[data-testid=item-beta]");
    await click(d, "a[href='/new_tab.html']");
    await click(d, "#blank-link");
    // the new tab reaches the driver a moment later on a busy machine
    await waitUntil("the new tab", async () => (await d.url()).includes("opened.html"), {
      timeoutMs: 20_000,
    }).catch(() => {}); // the assertion below names the page it is on
    assert(d.page.url().includes("opened.html"), d.page.url());
    await r.ready();
    await pause(d);
    await click(d, "#comment");
    await type(d, "looks good");
    await click(d, "#save");
    assertEquals(
      await d.page.$eval("#saved", (e) => e.textContent),
      "Saved: looks good",
    );
    // a tab the person opens by hand (no opener) is followed too
    const page = await d.browser.newPage();
    await page.goto(base + "cart.html");
    await d.url(); // the driver has taken the tab in
    await r.ready();
    await pause(d);
    assertEquals(d.page, page);
    await click(d, "[data-testid=inc-apple]");
  });
  try {
    const acts = actions(events);
    assertEquals(acts.length, 14, JSON.stringify(acts.map((a) => [a.kind, a.tabId, a.url])));
    // the tab opened by hand: a switch to a new tab, then the url typed there (no page asked
    // for it), as Ctrl+T and the address bar record
    assertEquals(
      acts.slice(-3).map((a) => [a.kind, a.toolParams?.newTab ?? a.url?.replace(/^.*\//, "")]),
      [["switchTab", true], ["navigate", "cart.html"], ["tap", undefined]],
    );
    assertEquals(acts.filter((a) => a.kind === "tap").length, 11);
    assertEquals(acts.find((a) => a.kind === "inputText")?.text, "looks good");
    const navs = events.flatMap((e) => e.type === "NavigationOccurred" ? [e.data.reason] : []);
    assertEquals(
      navs,
      ["navigate", "reload", "load", "spa", "load", "new_tab", "new_tab", "navigate"],
      JSON.stringify(events.flatMap((e) => e.type === "NavigationOccurred" ? [e.data] : [])),
    );
    const tabs = new Set(acts.map((a) => a.tabId));
    assertEquals(tabs.size, 3);
    // each action on the page follows a screen of its own tab (a switch to a new tab and the
    // address typed there act on the tab, before any screen of it)
    let lastTab: string | undefined;
    for (const e of events) {
      if (e.type === "ScreenCaptured") lastTab = e.data.tabId;
      if (e.type !== "ActionPerformed" || ["switchTab", "navigate"].includes(e.data.kind)) continue;
      assertEquals(lastTab, e.data.tabId, JSON.stringify(e.data));
    }
  } finally {
    await cleanup();
  }
});

Deno.test("HumanRecorder records Tab and Enter after the value typed before them", async () => {
  const { events, cleanup } = await withRecorder("login.html", async (d) => {
    await click(d, "#email");
    await type(d, "bob@example.com");
    await d.page.keyboard.press("Tab");
    await pause(d);
    await type(d, "pw-for-bob-123");
    await d.page.keyboard.press("Enter");
    await pause(d);
    assert(d.page.url().includes("welcome.html"), d.page.url());
    await d.page.keyboard.press("Escape");
    await pause(d);
  });
  try {
    const acts = actions(events);
    assertEquals(
      acts.map((a) => [a.kind, a.key ?? a.text ?? ""]),
      [
        ["tap", ""],
        ["inputText", "bob@example.com"],
        ["keyPress", "Tab"],
        ["inputText", "[redacted]"],
        ["keyPress", "Enter"],
        ["keyPress", "Escape"],
      ],
    );
    assertEquals(acts[4]?.target?.selectors?.id, "password");
    const navs = events.flatMap((e) => e.type === "NavigationOccurred" ? [e.data.reason] : []);
    assertEquals(navs, ["navigate", "load"]);
    assert(!JSON.stringify(events).includes("pw-for-bob-123"));
  } finally {
    await cleanup();
  }
});

Deno.test("HumanRecorder keeps a point or scroll position off any page out of the events, and says so", async () => {
  const dir = await Deno.makeTempDir();
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch({ followTabs: "all" });
  try {
    const recorder = await HumanRecorder.start(driver, store, {
      url: server.url + "login.html",
      prompt: "demo",
    });
    current = recorder;
    await pause(driver);
    // any script of the page can call the recorder's binding, with any numbers
    await driver.page.evaluate(() => {
      const w = window as unknown as Record<string, unknown>;
      const send = w.__cairnRecord as (m: string) => void;
      const base = { type: "action", gen: w.__cairnGen, url: location.href, selectors: {} };
      send(JSON.stringify({ ...base, kind: "tap", x: 1e300, y: 0 }));
      send(JSON.stringify({ ...base, kind: "scroll", x: 5, y: 5, scrollX: 0, scrollY: -1e20 }));
    });
    await pause(driver);
    await click(driver, "#email"); // a real click still records its point
    await recorder.stop();
    const events: StoredEvent[] = [];
    for await (const e of store.readStream(recorder.streamId)) events.push(e);
    const [forgedTap, forgedScroll, real] = actions(events);
    assertEquals([forgedTap?.kind, forgedTap?.point], ["tap", undefined]);
    // no position kept from the forged one (screenBefore, which timing decides, may be there)
    assertEquals(
      [forgedScroll?.kind, forgedScroll?.toolParams?.scrollX, forgedScroll?.toolParams?.scrollY],
      ["scroll", undefined, undefined],
    );
    assertEquals(forgedScroll?.point, { x: 5, y: 5 });
    assert(real?.point && Number.isFinite(real.point.x), JSON.stringify(real));
    assertEquals(recorder.errors, [
      "A tap at (1e+300, 0), off any page: kept without a point",
      "A scroll to (0, -100000000000000000000), off any page: kept without its position",
    ]);
  } finally {
    await driver.close();
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("HumanRecorder stores a password submitted by a GET form in no url, event or snapshot, in any encoding", async () => {
  const PASSWORD = "Hunter2!xyz";
  let submitted = "";
  const { events, store, cleanup } = await withRecorder("login.html", async (d) => {
    await click(d, "#email");
    await type(d, "alice@example.com");
    await click(d, "#password");
    await type(d, PASSWORD);
    await click(d, "#sign-in");
    submitted = d.page.url();
  });
  try {
    // the form really went out with the password in its url
    assertEquals(new URL(submitted).searchParams.get("password"), PASSWORD);
    const welcome = events.flatMap((e) =>
      e.type === "NavigationOccurred" && e.data.url.includes("welcome.html") ? [e.data.url] : []
    );
    assert(welcome.length > 0);
    for (const u of welcome) assert(u.includes("password=[redacted]"), u);
    for (const e of events) {
      assertNoSecret(JSON.stringify(e), PASSWORD, e.type);
      if (e.type === "ScreenCaptured") {
        const raw = new TextDecoder().decode((await store.getBlob(e.data.hierarchy.hash)).bytes);
        assertNoSecret(raw, PASSWORD, `snapshot ${e.data.hierarchy.hash}`);
        parseChromeHierarchy(raw); // still a valid hierarchy
      }
    }
  } finally {
    await cleanup();
  }
});
