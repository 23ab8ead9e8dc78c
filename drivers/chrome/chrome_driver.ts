/**
 * The Chrome implementation of {@linkcode Driver}: puppeteer-core over Debian's Chromium (or a
 * remote browser). Input is real CDP input (mouse and keyboard events at points), navigation
 * waits for the load event or, on single-page apps, for DOM stability, and new tabs a page
 * opens (popups, `target=_blank`) become the active tab. JavaScript dialogs are answered the
 * moment they open (an alert accepted, the others dismissed) and kept for
 * {@linkcode ChromeDriver.takeDialogs}: an open dialog would block every later command.
 *
 * @module
 */
import type {
  Browser,
  BrowserContext,
  CDPSession,
  Dialog,
  HTTPResponse,
  KeyInput,
  Page,
  Target,
} from "puppeteer-core";
import type { Point } from "../../engine/screens/mod.ts";
import type { MouseButton } from "../../engine/playback/mod.ts";
import {
  type Direction,
  type DocumentAnswer,
  type Driver,
  DriverError,
  type FindQuery,
  type FoundElement,
  type HandledDialog,
  type NavigationResult,
  type Snapshot,
  type TabInfo,
  type Viewport,
} from "../driver.ts";
import { launchChrome, type LaunchedBrowser, type LaunchOptions } from "./launch.ts";
import {
  checkedAtInPage,
  type ElementFacts,
  elementFactsInPage,
  focusAtInPage,
  inScopeInPage,
  maskSecretFieldsInPage,
  scopeLevelInPage,
  selectAtInPage,
  selectFocusedTextInPage,
  waitQuietInPage,
  waitScrollEndInPage,
} from "./_page_functions.ts";
import { captureChromeHierarchy } from "./hierarchy.ts";
import { chromeHierarchyToScreen } from "../../engine/screens/mod.ts";
import { findPlan, scopedFindPlan } from "./_find.ts";
import { SCOPE_NOT_FOUND, type ScopeLookup, WEB_WITHIN } from "../../engine/playback/mod.ts";

/** The facts of the elements given that lie inside the kept scope (one page call). */
const SCOPED_FACTS = new Function(
  "...els",
  `return (${elementFactsInPage.toString()})(...(${inScopeInPage.toString()})(els));`,
) as (...els: Element[]) => ElementFacts[];
import { splitKeyChord } from "../../engine/trail/mod.ts";
import { withDeadline } from "../with_deadline.ts";
import { checkNavigation, unsafeNavigation } from "../navigation_guard.ts";
import {
  focusedIsSecretInPage,
  maskSecretValuesInPage,
  secretFieldValuesInPage,
} from "./_secret_mask.ts";

/** Options of {@linkcode ChromeDriver.launch}. */
export interface ChromeDriverOptions extends LaunchOptions {
  /** Viewport in CSS pixels and its device pixel ratio (default 1280×800 @1). */
  viewport?: { width: number; height: number; devicePixelRatio?: number };
  /**
   * Which new tabs to follow: those a tracked page opens (popups, `target=_blank`; default), or
   * every new tab of the browser (a person opening one by hand, as the human recorder needs).
   */
  followTabs?: "opened" | "all";
  /**
   * Open `file:` and `data:` pages too (a command-line flag for local files; never a run
   * started over HTTP). Default: http(s) pages and about:blank only ({@linkcode checkNavigation}).
   */
  localFiles?: boolean;
}

/** How long navigation waits: the cap, and when a missing load event means an SPA. */
const NAVIGATION_CAP_MS = 5_000; // navigation wait: continue with a warning after 5 s
const LOAD_GRACE_MS = 1_000; // navigation wait: no load within 1 s → check DOM stability instead
const DOM_QUIET_MS = 500; // navigation wait: no mutation for 500 ms counts as settled
/** How long closing waits for the tab it opened in a remote browser to close. */
const OPENED_CLOSE_MS = 3_000;
/** How long commands wait for a tab the browser announced to be followed (see #watchNewTabs). */
const ANNOUNCED_TAB_MS = 3_000;
/** The expression that hides filled secret fields for a screenshot, and its handles' group. */
const MASK_SECRET_FIELDS = `(${maskSecretFieldsInPage.toString()})()`;
const MASK_GROUP = "cairn-screenshot-mask";
/** The expressions that read secret fields' values and hide secrets wherever they show. */
const SECRET_FIELD_VALUES = `(${secretFieldValuesInPage.toString()})()`;
const MASK_SECRET_VALUES = maskSecretValuesInPage.toString();
/** Dialogs kept between two {@linkcode ChromeDriver.takeDialogs} calls (the latest). */
const MAX_DIALOGS = 20;

/** A Chrome tab driven through CDP: implements {@linkcode Driver}. */
export class ChromeDriver implements Driver {
  readonly platform = "web" as const;
  #launched: LaunchedBrowser | undefined;
  #browser: Browser;
  #page: Page;
  #cdp: Promise<CDPSession> | undefined;
  #ids = new Map<Page, string>();
  #nextId = 1;
  #pending = new Set<Promise<unknown>>();
  #viewport: { width: number; height: number; deviceScaleFactor: number };
  #navigating = new Set<Page>();
  #listeners: ((page: Page) => void)[] = [];
  #followTabs: "opened" | "all";
  #dialogs: HandledDialog[] = [];
  /** Each tab's main document as it last answered, and the counter of answers. */
  #answers = new WeakMap<Page, DocumentAnswer>();
  #answerSeq = 0;
  /** The tabs this driver opened in a browser it did not launch (closed with the driver). */
  #opened = new Set<Page>();
  /** The tabs the pages of this driver opened (popups, `target=_blank`), never the user's. */
  #popups = new WeakSet<Page>();
  /** Whether the browser is one this driver did not launch (`--browser-ws`). */
  #remote = false;
  /**
   * Whether this driver's tabs live in browser contexts of its own in a browser another owner
   * launched ({@linkcode ChromeDriver.inContext}): closing it closes its context, not the browser.
   */
  #isolated = false;
  /** The browser context {@linkcode ChromeDriver.freshTab} last opened (closed by the next). */
  #context: BrowserContext | undefined;
  /** The browser-level session that hears of new tabs first (see #watchNewTabs). */
  #targetSession: CDPSession | undefined;
  /** Tabs the browser announced that #onTarget has not handled yet: target id → done. */
  #announced = new Map<string, () => void>();
  /** Target ids #onTarget handled (an announcement that comes after them waits for nothing). */
  #handled = new Set<string>();
  /**
   * The secrets of the session: typed into a secret field, read from one before a screenshot,
   * or given ({@linkcode ChromeDriver.addSecrets}); hidden wherever they show in a screenshot.
   */
  #secrets = new Set<string>();
  /** Whether `file:` and `data:` pages may be opened ({@linkcode ChromeDriverOptions.localFiles}). */
  #localFiles = false;

  private constructor(
    browser: Browser,
    page: Page,
    viewport: { width: number; height: number; deviceScaleFactor: number },
    launched: LaunchedBrowser | undefined,
    followTabs: "opened" | "all",
  ) {
    this.#followTabs = followTabs;
    this.#browser = browser;
    this.#page = page;
    this.#viewport = viewport;
    this.#launched = launched;
    this.#track(page);
    browser.on("targetcreated", (target: Target) => this.#onTarget(target));
  }

  /**
   * Launches Chromium (or connects to `browserWs`) and opens a blank tab.
   *
   * @param options launch options and the viewport
   * @returns a driver owning the browser (closing the driver closes it)
   * @throws {DriverError} when the browser cannot be started
   */
  static async launch(options: ChromeDriverOptions = {}): Promise<ChromeDriver> {
    const launched = await launchChrome(options);
    try {
      return await ChromeDriver.attach(launched.browser, options, launched);
    } catch (err) {
      await launched.close();
      throw err;
    }
  }

  /**
   * Drives a browser this process launched and shares (a suite's workers: one browser, launched
   * once), in a browser context of the driver's own: its first tab opens in a fresh context, as
   * does each {@linkcode ChromeDriver.freshTab}, so two such drivers share no tab, cookie or
   * storage and play side by side (a playback on one does not hold the other). Closing the driver
   * closes its context with its tabs and leaves the browser running; killing it does the same
   * (bounded, for a page that stopped answering).
   *
   * @param launched a browser {@linkcode launchChrome} launched (not a remote one)
   * @param options the viewport, which tabs to follow, local files
   * @returns the driver
   * @throws {DriverError} when the browser opens no context or tab
   */
  static async inContext(
    launched: LaunchedBrowser,
    options: ChromeDriverOptions = {},
  ): Promise<ChromeDriver> {
    const browser = launched.browser;
    let context: BrowserContext;
    let page: Page;
    try {
      context = await browser.createBrowserContext();
    } catch (err) {
      throw new DriverError(`Cannot open a browser context: ${errorText(err)}`, "driver_error", {
        cause: err,
      });
    }
    try {
      page = await context.newPage();
    } catch (err) {
      await context.close().catch(() => {});
      throw new DriverError(`Cannot open a tab: ${errorText(err)}`, "driver_error", { cause: err });
    }
    const viewport = {
      width: options.viewport?.width ?? 1280,
      height: options.viewport?.height ?? 800,
      deviceScaleFactor: options.viewport?.devicePixelRatio ?? 1,
    };
    const driver = new ChromeDriver(
      browser,
      page,
      viewport,
      undefined,
      options.followTabs ?? "opened",
    );
    driver.#isolated = true;
    driver.#context = context;
    driver.#localFiles = options.localFiles === true;
    try {
      await driver.#watchNewTabs();
      await page.setViewport(viewport);
    } catch (err) {
      await driver.close();
      throw err;
    }
    return driver;
  }

  /**
   * Drives a browser: the first tab of one this process launched, or a new tab of one it did
   * not (`--browser-ws`), whose existing tabs are the user's and never navigated, resized or
   * closed; closing the driver closes that new tab and leaves the browser running.
   *
   * @param browser a puppeteer browser
   * @param options the viewport
   * @param launched when given, closing the driver closes it too (a remote one: disconnects)
   * @returns the driver
   */
  static async attach(
    browser: Browser,
    options: ChromeDriverOptions = {},
    launched?: LaunchedBrowser,
  ): Promise<ChromeDriver> {
    const ours = launched !== undefined && !launched.remote;
    const first = ours ? (await browser.pages())[0] : undefined;
    const page = first ?? await browser.newPage();
    const viewport = {
      width: options.viewport?.width ?? 1280,
      height: options.viewport?.height ?? 800,
      deviceScaleFactor: options.viewport?.devicePixelRatio ?? 1,
    };
    const driver = new ChromeDriver(
      browser,
      page,
      viewport,
      launched,
      options.followTabs ?? "opened",
    );
    driver.#localFiles = options.localFiles === true;
    if (!ours) {
      driver.#remote = true;
      driver.#opened.add(page);
    }
    try {
      await driver.#watchNewTabs();
      await page.setViewport(viewport);
    } catch (err) {
      await driver.close();
      throw err;
    }
    return driver;
  }

  /** The puppeteer page every command targets (the active tab). */
  get page(): Page {
    return this.#page;
  }

  /** The temporary profile folder of a browser this driver launched. */
  get userDataDir(): string | undefined {
    return this.#launched?.userDataDir;
  }

  /** The puppeteer browser. */
  get browser(): Browser {
    return this.#browser;
  }

  /**
   * Whether the driver's tabs live in browser contexts of its own in a shared browser
   * ({@linkcode ChromeDriver.inContext}): what it plays touches no other driver's tabs.
   */
  get isolated(): boolean {
    return this.#isolated;
  }

  /** The id of the active tab (`tab-1`, `tab-2`, … in opening order). */
  get activeTabId(): string {
    return this.#ids.get(this.#page) ?? "tab-0";
  }

  /** The id of a tab's page (`tab-1`, …), or undefined for a page this driver does not track. */
  tabIdOf(page: Page): string | undefined {
    return this.#ids.get(page);
  }

  /** Calls `listener` with every tab the browser opens from now on (popups, `target=_blank`). */
  onNewTab(listener: (page: Page) => void): void {
    this.#listeners.push(listener);
  }

  /** A CDP session on the active tab, created once per tab and reused. */
  cdp(): Promise<CDPSession> {
    this.#cdp ??= this.#page.createCDPSession();
    return this.#cdp;
  }

  async snapshot(): Promise<Snapshot> {
    await this.#settlePending();
    const cdp = await this.cdp();
    const hierarchy = await this.#wrap("capture the page", captureChromeHierarchy(cdp));
    return {
      screen: chromeHierarchyToScreen(hierarchy),
      raw: {
        bytes: new TextEncoder().encode(JSON.stringify(hierarchy)),
        mediaType: "application/json",
        format: "chrome",
      },
    };
  }

  /**
   * A PNG of the viewport. Filled password fields are drawn empty (their dots would show the
   * password's length), as are card number and other sensitive fields (their text is a
   * secret): their text is made transparent for the capture, then restored.
   */
  async screenshot(): Promise<Uint8Array> {
    const cdp = await this.cdp();
    // what the secret fields hold now stays hidden after a "show password" toggle
    const held = await cdp.send("Runtime.evaluate", {
      expression: SECRET_FIELD_VALUES,
      returnByValue: true,
    }).catch(() => undefined);
    const values: unknown = held?.result.value;
    if (Array.isArray(values)) this.addSecrets(values.filter((v) => typeof v === "string"));
    const { data } = await this.#wrap("take a screenshot", this.#maskedCapture(cdp));
    return Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  }

  /**
   * Remembers values to hide in every later screenshot of this driver wherever they show: a
   * field holding one (whatever its type) and text holding one (memory marked secret, a value
   * typed into a password field).
   *
   * @param values the secrets (empty strings are ignored)
   */
  addSecrets(values: Iterable<string>): void {
    for (const v of values) if (v !== "" && this.#secrets.size < 1_000) this.#secrets.add(v);
  }

  /**
   * `Page.captureScreenshot` with {@linkcode maskSecretFieldsInPage} and
   * {@linkcode maskSecretValuesInPage} in force around it.
   */
  async #maskedCapture(cdp: CDPSession): Promise<{ data: string }> {
    const secrets = JSON.stringify([...this.#secrets]);
    const expression = `(() => { const a = ${MASK_SECRET_FIELDS}; ` +
      `const b = (${MASK_SECRET_VALUES})(${secrets}); ` +
      "return a || b ? () => { if (b) b(); if (a) a(); } : null; })()";
    const mask = () => cdp.send("Runtime.evaluate", { expression, objectGroup: MASK_GROUP });
    // a document being replaced has no context for a moment: try once more, then take no
    // screenshot rather than one that may show a secret
    const { result, exceptionDetails } = await mask().catch(async () => {
      await sleep(50);
      return await mask();
    });
    if (exceptionDetails) {
      throw new Error(`cannot hide the secret fields: ${exceptionDetails.text}`);
    }
    const undo = result.objectId;
    try {
      return await cdp.send("Page.captureScreenshot", { format: "png" });
    } finally {
      if (undo) {
        await cdp.send("Runtime.callFunctionOn", {
          objectId: undo,
          functionDeclaration: "function () { this(); }",
        }).catch(() => {}); // the document is gone: nothing left to restore
        cdp.send("Runtime.releaseObjectGroup", { objectGroup: MASK_GROUP }).catch(() => {});
      }
    }
  }

  async tap(point: Point): Promise<void> {
    await this.#wrap(`tap at (${point.x}, ${point.y})`, this.#page.mouse.click(point.x, point.y));
  }

  async click(point: Point, options: { button?: MouseButton; count?: number }): Promise<void> {
    const what = `${options.button ?? "left"} click${
      (options.count ?? 1) > 1 ? ` ×${options.count}` : ""
    } at (${point.x}, ${point.y})`;
    await this.#wrap(
      what,
      this.#page.mouse.click(point.x, point.y, {
        ...(options.button ? { button: options.button } : {}),
        ...(options.count ? { count: options.count } : {}),
      }),
    );
  }

  async hover(point: Point): Promise<void> {
    await this.#wrap(`hover at (${point.x}, ${point.y})`, this.#page.mouse.move(point.x, point.y));
  }

  async longPress(point: Point, durationMs: number): Promise<void> {
    const mouse = this.#page.mouse;
    await this.#wrap(
      `long press at (${point.x}, ${point.y})`,
      (async () => {
        await mouse.move(point.x, point.y);
        await mouse.down();
        try {
          await sleep(durationMs);
        } finally {
          await mouse.up();
        }
      })(),
    );
  }

  /**
   * Drags the mouse from `from` to `to` with the button held: pointer and mouse events all the
   * way (a carousel, a slider, a drawer follow it). A mouse drag does not scroll the page (a
   * `scroll` does).
   */
  async swipe(from: Point, to: Point, durationMs = 300): Promise<void> {
    const mouse = this.#page.mouse;
    const steps = 12;
    await this.#wrap(
      `swipe from (${from.x}, ${from.y}) to (${to.x}, ${to.y})`,
      (async () => {
        await mouse.move(from.x, from.y);
        await mouse.down();
        try {
          for (let i = 1; i <= steps; i++) {
            await sleep(durationMs / steps);
            await mouse.move(
              from.x + (to.x - from.x) * i / steps,
              from.y + (to.y - from.y) * i / steps,
            );
          }
        } finally {
          await mouse.up();
        }
      })(),
    );
  }

  /**
   * Goes back one entry in the tab's history as the browser's Back button does, and waits for
   * the page: its load event, or DOM quiet for a same-document entry (an SPA route), at most 5 s.
   *
   * @returns where it landed and how readiness was decided
   * @throws {DriverError} when the tab has no earlier page, or going back failed
   */
  async back(): Promise<NavigationResult> {
    await this.#settlePending();
    const started = performance.now();
    const page = this.#page;
    const cdp = await this.cdp();
    const history = await this.#wrap(
      "read the tab's history",
      cdp.send("Page.getNavigationHistory"),
    );
    const previous = history.entries[history.currentIndex - 1];
    // the blank page a new tab starts on is no page to go back to
    if (!previous || history.currentIndex === 1 && previous.url === "about:blank") {
      throw new DriverError(
        `Cannot go back: ${page.url()} is the first page of the tab's history`,
        "no_history",
      );
    }
    let waitedFor: NavigationResult["waitedFor"] = "load";
    try {
      const response = await page.goBack({ waitUntil: "load", timeout: NAVIGATION_CAP_MS });
      if (response === null) {
        // a same-document entry (pushState) or a page from the back/forward cache
        const quiet = await this.#waitQuiet(page, DOM_QUIET_MS, started + NAVIGATION_CAP_MS);
        waitedFor = quiet ? "dom_stable" : "timeout";
      }
    } catch (err) {
      if (!(err instanceof Error && err.name === "TimeoutError")) {
        throw new DriverError(
          `Cannot go back to ${previous.url}: ${
            err instanceof Error ? err.message.split("\n")[0] : String(err)
          }`,
          "navigation_failed",
          { cause: err },
        );
      }
      waitedFor = "timeout";
    }
    return {
      requestedUrl: previous.url,
      finalUrl: page.url(),
      waitedFor,
      durationMs: Math.round(performance.now() - started),
    };
  }

  /**
   * Shows the tab's page again (the browser's reload, F5) and waits for it, at most 5 s.
   *
   * @returns the page reloaded
   * @throws {DriverError} when the reload fails (not on a timeout: `waitedFor` says so)
   */
  async reload(): Promise<NavigationResult> {
    await this.#settlePending();
    const started = performance.now();
    const page = this.#page;
    const url = page.url();
    let waitedFor: NavigationResult["waitedFor"] = "load";
    try {
      await page.reload({ waitUntil: "load", timeout: NAVIGATION_CAP_MS });
    } catch (err) {
      if (!(err instanceof Error && err.name === "TimeoutError")) {
        throw new DriverError(
          `Cannot reload ${url}: ${err instanceof Error ? err.message.split("\n")[0] : err}`,
          "navigation_failed",
          { cause: err },
        );
      }
      waitedFor = "timeout";
    }
    return {
      requestedUrl: url,
      finalUrl: page.url(),
      waitedFor,
      durationMs: Math.round(performance.now() - started),
    };
  }

  /**
   * Opens a new blank tab (the person's Ctrl+T) in the active tab's browser context and makes
   * it the one every later command targets.
   *
   * @returns the new tab's id
   * @throws {DriverError} when the browser opens no tab
   */
  async openTab(): Promise<string> {
    await this.#settlePending();
    const page = await this.#wrap("open a tab", this.#page.browserContext().newPage());
    this.#track(page);
    if (this.#remote) this.#opened.add(page);
    this.#activate(page);
    await page.setViewport(this.#viewport).catch(() => {});
    return this.#ids.get(page)!;
  }

  async type(text: string, options: { point?: Point; clear?: boolean } = {}): Promise<void> {
    if (options.point) await this.tap(options.point);
    if (options.clear) {
      const selected = await this.#page.evaluate(selectFocusedTextInPage);
      if (selected && text === "") await this.#page.keyboard.press("Backspace");
    }
    if (text === "") return;
    // typed into a password or other secret field: a secret from now on, whatever the field
    // becomes (a "show password" toggle) or wherever the page echoes it
    if (await this.#page.evaluate(focusedIsSecretInPage).catch(() => false)) {
      this.addSecrets([text]);
    }
    await this.#wrap("type text", this.#page.keyboard.type(text));
  }

  async press(key: string): Promise<void> {
    if (key === "Back") {
      await this.#wrap("go back", this.#page.goBack({ timeout: NAVIGATION_CAP_MS }));
      return;
    }
    // a chord (`Shift+Tab`): the modifiers held down around the last key, released in reverse
    const keys = splitKeyChord(key) as KeyInput[];
    const last = keys.pop()!;
    const keyboard = this.#page.keyboard;
    await this.#wrap(
      `press ${key}`,
      (async () => {
        const down: KeyInput[] = [];
        try {
          for (const k of keys) {
            await keyboard.down(k);
            down.push(k);
          }
          await keyboard.press(last);
        } finally {
          for (const k of down.reverse()) await keyboard.up(k);
        }
      })(),
    );
  }

  async scroll(
    direction: Direction,
    options: { point?: Point; distance?: number } = {},
  ): Promise<void> {
    const at = options.point ??
      { x: this.#viewport.width / 2, y: this.#viewport.height / 2 };
    const d = options.distance ?? Math.round(this.#viewport.height * 0.6);
    const delta = {
      deltaX: direction === "left" ? -d : direction === "right" ? d : 0,
      deltaY: direction === "up" ? -d : direction === "down" ? d : 0,
    };
    await this.#page.mouse.move(at.x, at.y);
    await this.#wrap(`scroll ${direction}`, this.#page.mouse.wheel(delta));
    await this.#page.evaluate(waitScrollEndInPage, 100, 1_000).catch(() => {});
  }

  async scrollTo(position: Point): Promise<void> {
    await this.#page.evaluate((x, y) => scrollTo(x, y), position.x, position.y);
  }

  async select(point: Point, value: string): Promise<void> {
    const error = await this.#page.evaluate(selectAtInPage, point.x, point.y, value);
    if (error) throw new DriverError(`Cannot select: ${error}`, "element_not_selectable");
  }

  async focus(point: Point): Promise<void> {
    const error = await this.#wrap(
      `focus at (${point.x}, ${point.y})`,
      this.#page.evaluate(focusAtInPage, point.x, point.y),
    );
    if (error) throw new DriverError(`Cannot focus: ${error}`, "not_focusable");
  }

  async check(point: Point, checked: boolean): Promise<void> {
    const state = await this.#page.evaluate(checkedAtInPage, point.x, point.y);
    if (typeof state === "string") throw new DriverError(`Cannot check: ${state}`, "not_checkable");
    if (state === checked) return;
    await this.tap(point);
    const after = await this.#page.evaluate(checkedAtInPage, point.x, point.y);
    if (after !== checked) {
      throw new DriverError(
        `Cannot check: the control at (${point.x}, ${point.y}) stayed ${
          after ? "checked" : "unchecked"
        }`,
        "check_failed",
      );
    }
  }

  async navigate(url: string): Promise<NavigationResult> {
    // templates are expanded by now: the url is checked as it is opened (file:, javascript: …)
    checkNavigation(url, { localFiles: this.#localFiles });
    const started = performance.now();
    const deadline = started + NAVIGATION_CAP_MS;
    const page = this.#page;
    // The main document's last response (after redirects): a 404 page loads like any other
    // (goto does not throw), so its status is reported for the caller to warn about.
    let answer: HTTPResponse | undefined;
    const onResponse = (response: HTTPResponse) => {
      const request = response.request();
      if (request.isNavigationRequest() && request.frame() === page.mainFrame()) answer = response;
    };
    page.on("response", onResponse);
    let failure: unknown;
    let waitedFor: NavigationResult["waitedFor"];
    try {
      const loaded = page.goto(url, { waitUntil: "load", timeout: NAVIGATION_CAP_MS }).then(
        (response) => response === null ? "same_document" as const : "load" as const,
        (err) => {
          failure = err;
          return "error" as const;
        },
      );
      const early = await Promise.race([
        loaded,
        sleep(LOAD_GRACE_MS).then(() => "grace" as const),
      ]);
      if (early === "load") waitedFor = "load";
      else if (early === "error") waitedFor = this.#navigationFailure(url, failure);
      else {
        // A same-document navigation (SPA) or a load slower than 1 s: DOM stability decides.
        const stable = this.#waitQuiet(page, DOM_QUIET_MS, deadline).then((ok) =>
          ok ? "dom_stable" as const : "timeout" as const
        );
        const first = early === "same_document" ? await stable : await Promise.race([
          loaded,
          stable,
        ]);
        if (first === "error") waitedFor = this.#navigationFailure(url, failure);
        else if (first === "same_document") waitedFor = await stable;
        else waitedFor = first;
      }
    } finally {
      page.off("response", onResponse);
    }
    // a redirect that ended on another scheme: the page is left and the navigation refused
    const final = page.url();
    const landed = final.startsWith("chrome-error:")
      ? undefined
      : unsafeNavigation(final, { localFiles: this.#localFiles });
    if (landed) {
      await page.goto("about:blank").catch(() => {});
      throw new DriverError(`${landed} (redirected from ${url})`, "unsafe_url");
    }
    const status = answer?.status();
    return {
      requestedUrl: url,
      finalUrl: page.url(),
      waitedFor,
      durationMs: Math.round(performance.now() - started),
      ...(status ? { status, statusText: answer!.statusText() } : {}),
    };
  }

  async waitForSettle(options: { quietMs?: number; timeoutMs?: number } = {}): Promise<void> {
    const deadline = performance.now() + (options.timeoutMs ?? NAVIGATION_CAP_MS);
    await this.#settlePending();
    await this.#waitQuiet(this.#page, options.quietMs ?? DOM_QUIET_MS, deadline);
  }

  viewport(): Promise<Viewport> {
    return Promise.resolve({
      width: this.#viewport.width,
      height: this.#viewport.height,
      devicePixelRatio: this.#viewport.deviceScaleFactor,
    });
  }

  async url(): Promise<string> {
    await this.#settlePending();
    return this.#page.url();
  }

  async tabs(): Promise<TabInfo[]> {
    await this.#settlePending();
    return [...this.#ids].filter(([page]) => !page.isClosed()).map(([page, id]) => ({
      id,
      url: page.url(),
      active: page === this.#page,
    }));
  }

  async switchTab(id: string): Promise<void> {
    await this.#settlePending();
    const entry = [...this.#ids].find(([page, tab]) => tab === id && !page.isClosed());
    if (!entry) throw new DriverError(`Cannot switch to tab ${id}: no such open tab`, "no_tab");
    this.#activate(entry[0]);
    await entry[0].bringToFront();
  }

  async find(query: FindQuery): Promise<FoundElement[]> {
    if (query.using === WEB_WITHIN) return await this.#findWithin(query);
    const plan = findPlan(query);
    const what = `find ${query.using} ${JSON.stringify(query.value)}`;
    if ("expression" in plan) {
      // One round trip: the lookup and the facts of its elements in one evaluation.
      const facts = await this.#wrap(
        what,
        this.#page.evaluate(plan.expression) as Promise<ElementFacts[]>,
      );
      return facts.map(foundOf);
    }
    const handles = await this.#wrap(what, this.#page.$$(plan.selector));
    if (handles.length === 0) return [];
    try {
      return (await this.#page.evaluate(elementFactsInPage, ...handles)).map(foundOf);
    } finally {
      await Promise.all(handles.map((h) => h.dispose().catch(() => {})));
    }
  }

  /**
   * A scoped lookup: the ancestor's elements are found level by level, outermost first, and kept
   * on the page; the inner lookup keeps only its elements inside them. An ancestor level that
   * matches nothing throws `scope_not_found` naming it.
   */
  async #findWithin(query: FindQuery): Promise<FoundElement[]> {
    const scoped = query.scoped;
    if (!scoped) {
      throw new DriverError(`Cannot find ${WEB_WITHIN} without its scope`, "bad_query");
    }
    const what = `find ${JSON.stringify(query.value)} inside ${scoped.scope.label}`;
    const chain: ScopeLookup[] = [];
    for (let s: ScopeLookup | undefined = scoped.scope; s; s = s.within) chain.unshift(s);
    for (const [i, level] of chain.entries()) {
      // a role alone is computed on the page; with a name, puppeteer's accessibility tree answers
      const bar = level.aria?.indexOf("|") ?? -1;
      const roleOnly = level.aria !== undefined && level.aria.slice(bar + 1).trim() === ""
        ? level.aria.slice(0, bar).trim()
        : undefined;
      const aria = roleOnly === undefined ? level.aria : undefined;
      const payload = JSON.stringify({
        ...(level.css !== undefined ? { css: level.css } : {}),
        ...(aria !== undefined ? { aria } : {}),
        ...(roleOnly !== undefined ? { role: roleOnly } : {}),
        ...(level.text !== undefined ? { text: level.text } : {}),
        ...(level.textRegex !== undefined ? { textRegex: level.textRegex } : {}),
        ...(level.index !== undefined ? { index: level.index } : {}),
        ...(i > 0 ? { inner: true } : {}),
      });
      let count: number;
      if (aria !== undefined) {
        const plan = findPlan({ using: "aria", value: aria }) as { selector: string };
        const handles = await this.#wrap(what, this.#page.$$(plan.selector));
        try {
          count = await this.#wrap(
            what,
            this.#page.evaluate(scopeLevelInPage, payload, ...handles),
          );
        } finally {
          await Promise.all(handles.map((h) => h.dispose().catch(() => {})));
        }
      } else {
        count = await this.#wrap(what, this.#page.evaluate(scopeLevelInPage, payload));
      }
      if (count === 0) {
        throw new DriverError(
          `its childOf ${level.label} matches no element${
            i > 0 ? ` inside ${chain[i - 1]!.label}` : ""
          }`,
          SCOPE_NOT_FOUND,
        );
      }
    }
    const plan = scopedFindPlan(scoped.query);
    if ("expression" in plan) {
      const facts = await this.#wrap(
        what,
        this.#page.evaluate(plan.expression) as Promise<ElementFacts[]>,
      );
      return facts.map(foundOf);
    }
    const handles = await this.#wrap(what, this.#page.$$(plan.selector));
    if (handles.length === 0) return [];
    try {
      return (await this.#wrap(what, this.#page.evaluate(SCOPED_FACTS, ...handles))).map(foundOf);
    } finally {
      await Promise.all(handles.map((h) => h.dispose().catch(() => {})));
    }
  }

  documentAnswer(): DocumentAnswer | undefined {
    return this.#answers.get(this.#page);
  }

  takeDialogs(): HandledDialog[] {
    return this.#dialogs.splice(0);
  }

  async close(): Promise<void> {
    const cdp = this.#cdp;
    this.#cdp = undefined;
    if (cdp) await cdp.then((s) => s.detach()).catch(() => {});
    this.#stopWatchingTabs();
    await this.#targetSession?.detach().catch(() => {});
    this.#targetSession = undefined;
    await this.#closeOpened();
    if (this.#isolated) await this.#closeContext();
    if (this.#launched) await this.#launched.close();
  }

  /** Closes the context an isolated driver plays in, with its tabs (once, bounded). */
  async #closeContext(): Promise<void> {
    const context = this.#context;
    this.#context = undefined;
    if (!context || !this.#browser.connected) return;
    await withDeadline(context.close(), OPENED_CLOSE_MS, () => new Error("context open"))
      .catch(() => {});
  }

  /**
   * Kills the browser this driver launched, asking nothing of a page that stopped answering; a
   * browser it did not launch is let go of as by {@linkcode ChromeDriver.close} (in a shared
   * browser: its own context is closed, bounded).
   */
  async kill(): Promise<void> {
    if (!this.#launched || this.#launched.remote) return await this.close();
    this.#cdp = undefined;
    this.#stopWatchingTabs();
    await this.#launched.kill();
  }

  /**
   * Starts over in a fresh tab: opens a new tab, makes it the active one and `tab-1` (the ids
   * count again from it), and closes the tabs this driver had. Nothing of an earlier run's page
   * is left in it: no history to go back to, no session storage, no script.
   *
   * In a browser this driver launched, or shares ({@linkcode ChromeDriver.inContext}), the tab
   * opens in a fresh browser context (as Playwright
   * Test gives each test): no cookie, local or session storage, IndexedDB or cache of an earlier
   * run, and the context the last call opened is closed with every tab in it. In a browser it
   * did not launch (`--browser-ws`, a user's browser, signed in where the user signed in) the tab
   * opens in the browser's own context, so what it keeps across tabs (cookies, storage) stays,
   * and only the tabs this driver opened and those their pages opened are closed: a tab the user
   * opened is never closed, even one a driver following every tab tracked.
   *
   * @param options `viewport`: the new tab's (and later tabs') viewport, when a run needs another
   * @throws {DriverError} when the browser opens no context or tab
   */
  async freshTab(options: { viewport?: ChromeDriverOptions["viewport"] } = {}): Promise<void> {
    await this.#settlePending();
    if (options.viewport) {
      this.#viewport = {
        width: options.viewport.width,
        height: options.viewport.height,
        deviceScaleFactor: options.viewport.devicePixelRatio ?? 1,
      };
    }
    const oldContext = this.#context;
    let context: BrowserContext | undefined;
    if (!this.#remote) {
      context = await this.#wrap("open a browser context", this.#browser.createBrowserContext());
    }
    let page: Page;
    try {
      page = await this.#wrap("open a tab", (context ?? this.#browser).newPage());
    } catch (err) {
      await context?.close().catch(() => {});
      throw err;
    }
    if (context) this.#context = context;
    const old = [...this.#ids.keys()];
    this.#ids.clear();
    this.#nextId = 1;
    this.#track(page);
    if (this.#remote) this.#opened.add(page);
    this.#activate(page);
    // an answer or dialog of the old tabs is no part of the new one's
    this.#dialogs = [];
    await page.setViewport(this.#viewport).catch(() => {});
    await Promise.all(old.map((p) => {
      if (this.#remote && !this.#opened.has(p) && !this.#popups.has(p)) return Promise.resolve();
      this.#opened.delete(p);
      // a tab of the last run's context closes with it, below
      if (oldContext !== undefined && p.browserContext() === oldContext) return Promise.resolve();
      return this.#closeTab(p);
    }));
    // the last run's context goes with its tabs, cookies, storage and cache (bounded: a hung
    // page in it does not hold the next run)
    if (oldContext) {
      await withDeadline(oldContext.close(), OPENED_CLOSE_MS, () => new Error("context open"))
        .catch(() => {});
    }
  }

  /** Closes the tabs this driver opened in a browser it did not launch (once, bounded). */
  async #closeOpened(): Promise<void> {
    const pages = [...this.#opened];
    this.#opened.clear();
    if (!this.#browser.connected) return;
    await Promise.all(pages.map((p) => this.#closeTab(p)));
  }

  /** Closes one tab, bounded: the browser closes the target even when its page stopped answering. */
  async #closeTab(page: Page): Promise<void> {
    if (page.isClosed()) return;
    await withDeadline(page.close(), OPENED_CLOSE_MS, () => new Error("tab still open"))
      .catch(() => {});
  }

  #track(page: Page): void {
    if (this.#ids.has(page)) return;
    this.#ids.set(page, `tab-${this.#nextId++}`);
    page.on("request", (req) => {
      if (req.isNavigationRequest() && req.frame() === page.mainFrame()) {
        this.#navigating.add(page);
      }
    });
    page.on("response", (res) => {
      const req = res.request();
      if (!req.isNavigationRequest() || req.frame() !== page.mainFrame()) return;
      // No content: the browser keeps the page it shows (no document was replaced), and no load
      // event follows — settling would otherwise wait for one until its cap.
      if (res.status() === 204 || res.status() === 205) {
        this.#navigating.delete(page);
        return;
      }
      this.#answers.set(page, {
        seq: ++this.#answerSeq,
        url: res.url(),
        status: res.status(),
        statusText: res.statusText(),
      });
    });
    page.on("requestfailed", (req) => {
      if (!req.isNavigationRequest() || req.frame() !== page.mainFrame()) return;
      const error = req.failure()?.errorText ?? "failed";
      // Cancelled (another navigation took over, a download, a 204): no document was replaced.
      if (error === "net::ERR_ABORTED") return;
      this.#answers.set(page, { seq: ++this.#answerSeq, url: req.url(), error });
    });
    page.on("load", () => this.#navigating.delete(page));
    page.on("dialog", (dialog) => this.#answer(page, dialog));
    page.on("close", () => {
      if (page === this.#page) {
        const next = [...this.#ids.keys()].reverse().find((p) => !p.isClosed() && p !== page);
        if (next) this.#activate(next);
      }
    });
  }

  /** Answers a dialog as Playwright does by default: accepts an alert, dismisses the rest. */
  #answer(page: Page, dialog: Dialog): void {
    const type = dialog.type();
    const response = type === "alert" ? "accepted" : "dismissed";
    const tabId = this.#ids.get(page);
    this.#dialogs.push({ type, message: dialog.message(), response, ...(tabId ? { tabId } : {}) });
    // a page that opens dialogs in a loop keeps only its latest ones
    if (this.#dialogs.length > MAX_DIALOGS) this.#dialogs.shift();
    // a dialog the page closed itself, or one of a closing tab: nothing left to answer
    (response === "accepted" ? dialog.accept() : dialog.dismiss()).catch(() => {});
  }

  #activate(page: Page): void {
    if (page === this.#page) return;
    this.#page = page;
    const old = this.#cdp;
    this.#cdp = undefined;
    if (old) old.then((s) => s.detach()).catch(() => {});
  }

  #onTarget(target: Target): void {
    if (target.type() !== "page") return;
    const id = targetIdOf(target);
    const handled = () => {
      if (id === undefined) return;
      if (this.#handled.size >= 1000) this.#handled.clear();
      this.#handled.add(id);
      this.#announced.get(id)?.();
    };
    const opener = target.opener();
    const ours = [...this.#ids.keys()].some((p) => p.target() === opener);
    if (!ours && this.#followTabs !== "all") return handled();
    const work = (async () => {
      const page = await target.page();
      if (!page) return;
      if (ours) this.#popups.add(page);
      this.#track(page);
      await page.setViewport(this.#viewport).catch(() => {});
      this.#activate(page);
      for (const listener of this.#listeners) listener(page);
    })().catch(() => {}).finally(handled);
    this.#pending.add(work);
    work.finally(() => this.#pending.delete(work));
  }

  /**
   * Hears of each tab a page opens from the browser itself (`Target.targetCreated` on a
   * browser-level session) rather than only from puppeteer, whose `targetcreated` comes after it
   * has attached to and set up the tab: on a loaded machine that was after the old tab went
   * quiet, and the next action ran there. The browser's own event comes with the tab's creation:
   * for a `window.open` in a click handler before the click's answer, for a `target=_blank` link
   * soon after it. From then on the tab is pending, so every command that settles first waits
   * (at most {@linkcode ANNOUNCED_TAB_MS}) until the driver has followed it. Without the session
   * (a browser that refuses it) tabs are still followed, as puppeteer reports them.
   */
  async #watchNewTabs(): Promise<void> {
    let session: CDPSession;
    try {
      session = await this.#browser.target().createCDPSession();
    } catch {
      return;
    }
    // the tabs that exist already are announced in reply to setDiscoverTargets: not new ones
    let live = false;
    session.on("Target.targetCreated", ({ targetInfo }) => {
      if (!live || targetInfo.type !== "page" || targetInfo.openerId === undefined) return;
      // following only what its own tabs open, a driver does not wait on another's popup (the
      // drivers of a shared browser each hear of every tab)
      if (this.#followTabs === "opened" && !this.#opensOurs(targetInfo.openerId)) return;
      const id = targetInfo.targetId;
      if (this.#handled.has(id) || this.#announced.has(id)) return;
      const wait = new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.#announced.delete(id);
          resolve();
        };
        const timer = setTimeout(done, ANNOUNCED_TAB_MS);
        this.#announced.set(id, done);
      });
      this.#pending.add(wait);
      wait.finally(() => this.#pending.delete(wait));
    });
    try {
      await session.send("Target.setDiscoverTargets", { discover: true });
      live = true;
      this.#targetSession = session;
    } catch {
      await session.detach().catch(() => {});
    }
  }

  /** Whether a target id is one of this driver's tabs (true when ids cannot be read). */
  #opensOurs(openerId: string): boolean {
    return [...this.#ids.keys()].some((p) => {
      const id = targetIdOf(p.target());
      return id === undefined || id === openerId;
    });
  }

  /** Lets every command waiting for an announced tab go on (the driver is closing). */
  #stopWatchingTabs(): void {
    for (const done of [...this.#announced.values()]) done();
  }

  async #settlePending(): Promise<void> {
    for (let i = 0; i < 10 && this.#pending.size > 0; i++) await Promise.all([...this.#pending]);
  }

  /** Waits for an in-flight document load, then for DOM quiet; false when the deadline hit. */
  async #waitQuiet(page: Page, quietMs: number, deadline: number): Promise<boolean> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const left = deadline - performance.now();
      if (left <= 0) return false;
      if (this.#navigating.has(page)) {
        await Promise.race([
          page.waitForNavigation({ waitUntil: "load", timeout: left }).catch(() => {}),
          sleep(Math.min(left, 250)),
        ]);
        continue;
      }
      try {
        const quiet = await page.evaluate(waitQuietInPage, quietMs, Math.max(1, left));
        if (this.#navigating.has(page)) continue;
        return quiet;
      } catch {
        // the document was replaced while waiting: wait on the new one
        await sleep(Math.min(50, Math.max(1, deadline - performance.now())));
      }
    }
    return false;
  }

  #navigationFailure(url: string, err: unknown): NavigationResult["waitedFor"] {
    if (err instanceof Error && err.name === "TimeoutError") return "timeout";
    throw new DriverError(
      `Cannot navigate to ${url}: ${err instanceof Error ? err.message : String(err)}`,
      "navigation_failed",
      { cause: err },
    );
  }

  async #wrap<T>(what: string, work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch (err) {
      if (err instanceof DriverError) throw err;
      const message = err instanceof Error ? err.message.split("\n")[0] : String(err);
      throw new DriverError(`Cannot ${what}: ${message}`, "driver_error", { cause: err });
    }
  }
}

/** A found element as the driver reports it (its CSS path is the handle). */
function foundOf(f: ElementFacts): FoundElement {
  return {
    bounds: { x: f.x, y: f.y, w: f.w, h: f.h },
    visible: f.visible,
    enabled: f.enabled,
    handle: f.cssPath,
    ...(f.text ? { text: f.text } : {}),
  };
}

/** The first line of what a browser call threw. */
function errorText(err: unknown): string {
  return err instanceof Error ? err.message.split("\n")[0]! : String(err);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A target's CDP id. Puppeteer keeps it in a field of its own (`_targetId`, not in its public
 * types); undefined if a later puppeteer moves it, and an announced tab then waits its bound.
 */
function targetIdOf(target: Target): string | undefined {
  const id = (target as unknown as { _targetId?: unknown })._targetId;
  return typeof id === "string" ? id : undefined;
}
