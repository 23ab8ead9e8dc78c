/**
 * Records a person driving Chromium (accessibility recording): every click, double click,
 * committed value (text fields and contenteditable content), key press (Enter, Tab, Escape),
 * submit, scroll gesture and Back/Forward becomes an `ActionPerformed` with source `human`,
 * preceded by a `ScreenCaptured` of the page as it was BEFORE the action, and the target mapped
 * to its accessibility node (role, name) plus the DOM selectors the page script computed (testId,
 * ariaLabel, role, name, id, text, cssPath) and the coordinates. Each action is stamped with the
 * time it happened in the page (`meta.recordedAt`), not the time the recorder got to it.
 *
 * Before-the-action screens: the injected script counts a document's DOM mutations, typed values
 * and scrolls (`gen`) and reports the count at every press (pointerdown, the keys that act), when
 * the page settles and when a document starts; the recorder snapshots at once on each report (one
 * capture at a time, the counts read before and after it) and an action uses the snapshot taken
 * at the count of its press — the page exactly as it stood then. The accessibility tree comes from
 * CDP, so a snapshot cannot be taken inside the page's event: when the page changed before a
 * capture could finish (rapid clicks, a page that changes all the time, a page whose capture takes
 * seconds) no snapshot is exact, and the action says so in `toolParams.screenBefore` (and
 * `notes`): `changing` — taken after the press and before any later input was handled, while the
 * page changed by itself; `earlier` — the screen stored before it was taken entirely before the
 * press, with changes since; `none` — no screen from before the press exists (none is stored for
 * it). A screen that may show an effect of the action is never stored as its screen before.
 *
 * A double click (two clicks and the `dblclick` on one element) is one `tap` with `toolName`
 * `doubleClick` (Chrome Recorder's name; `recording_v1` action type `doubleClick`): a single
 * click is held until it cannot be the first half of one (the next report, or 600 ms).
 *
 * A scroll gesture (wheel, touch, keys or scrollbar; 250 ms without scrolling ends it) is one
 * `scroll` action with its `direction` and the final position in `toolParams`
 * (`{ scrollX, scrollY }`): of the page (no target, no point) or of the inner container its
 * selectors name (point: the container's centre).
 *
 * It follows reloads and same-tab navigations (the script is installed on every new document)
 * and new tabs (popups, `target=_blank`, Ctrl+T). What the browser does for the person, not the
 * page, is an action too: a document no page asked for (no `Page.frameRequestedNavigation` came
 * before it: the address bar, a bookmark) is a `navigate` to its url, F5 a `reload`; a tab the
 * person opens (its first page the browser's own, `chrome://new-tab-page/`) a `switchTab` with
 * `toolParams.newTab`, and a tab brought back to the front (its page turns visible) or acted in
 * after another a `switchTab` to its url, with its title as `target.name`. The browser's own
 * pages are never listened to nor captured: they are navigations only. Every document loaded gets
 * its snapshot stored, one left without an action too. A click on the page's background and a
 * key with nothing focused have no role or name (the page's `cssPath` only, or no target at all). The browser's Back and Forward (a new document, one
 * shown again from the back/forward cache, or a same-document history entry) are a `navigate`
 * action to the url shown (`toolName` `back` or `forward` when the page can tell), followed by a
 * `NavigationOccurred` (reason `back` for Back): replay opens that url; a traversal the page's own
 * script asked for is only the navigation. Values of password and sensitive fields are stored as
 * `[redacted]`, in the actions and in the snapshots.
 *
 * @module
 */
import type { CDPSession, Page } from "puppeteer-core";
import type { EventStore } from "../../events/mod.ts";
import type { EventData, NewEvent } from "../../events/mod.ts";
import {
  type ChromeHierarchy,
  chromeHierarchyToScreen,
  parsedScreenBytes,
  parsedScreenKind,
} from "../../engine/screens/mod.ts";
import type { Point, Screen, UiNode } from "../../engine/screens/mod.ts";
import type { ChromeDriver } from "./chrome_driver.ts";
import { captureChromeHierarchy } from "./hierarchy.ts";
import { ScreenPoint } from "../../engine/formats/mod.ts";
import {
  type RecorderMessage,
  recorderScript,
  sensitiveValuesInPage,
  type Traverse,
} from "./_recorder_script.ts";
import { SecretScrubber } from "../secret_scrubber.ts";

/** The CDP binding the page script reports through. */
const BINDING = "__cairnRecord";
/** Redacted values are stored as this. */
export const REDACTED = "[redacted]";
/** Roles that are not a target of their own: a hit on them maps to the nearest ancestor. */
const PASS_THROUGH = new Set(["StaticText", "InlineTextBox", "generic", "none", "LabelText"]);

/** How long a single click waits for the second half of a double click. */
const DOUBLE_CLICK_MS = 600;
/** A traversal this soon after the page's own `history.back()` (or `go`) is the page's doing. */
const SCRIPTED_MS = 3_000;
/** Most captures a chain takes in a row before it lets the next report start another. */
const CHAIN = 8;
/** How long a navigation the page asked for (a link, a form, a script) may take to load. */
const REQUESTED_MS = 30_000;
/** The browser's own pages (a new tab's, settings): never recorded from inside. */
const INTERNAL = /^(chrome|chrome-untrusted|chrome-search|chrome-extension|devtools|edge):/i;

/**
 * Whether a url is one of the browser's own pages (`chrome://new-tab-page/`), which a trail
 * never opens: the next real page stands for it.
 *
 * @param url a tab's url
 * @returns true for an internal page
 */
export function isInternalUrl(url: string): boolean {
  return INTERNAL.test(url);
}

/** The document id and mutation count of the page (`-1` before the script is installed). */
const MARK = "[globalThis.__cairnDoc ?? null, globalThis.__cairnGen ?? -1, " +
  "globalThis.__cairnInputs ?? -1, globalThis.__cairnEffects ?? -1]";

/** Options of {@linkcode HumanRecorder.start}. */
export interface HumanRecorderOptions {
  url: string;
  prompt: string;
  sessionId?: string;
}

/** A snapshot and the counts of its document read before and after it was taken. */
interface Captured {
  doc: string | undefined;
  gen0: number;
  gen1: number;
  /** The person's input events counted, before and after (see `RecorderMessage.inputs`). */
  in0: number;
  in1: number;
  /** Changes made by input counted, before and after (see `RecorderMessage.effects`). */
  ef0: number;
  ef1: number;
  /** When the capture started (epoch ms). */
  at: number;
  data: EventData<"ScreenCaptured">;
  screen: Screen;
}

type ActionMessage = Extract<RecorderMessage, { type: "action" }>;

/** Why an action has no exact screen before it (`toolParams.screenBefore`). */
export type ScreenBefore = "changing" | "earlier" | "none";

const SCREEN_NOTES: Record<ScreenBefore, string> = {
  changing: "The screen before this action was captured from its press on, before any later " +
    "input was handled, but the page changed by itself (a timer, the network) meanwhile",
  earlier: "The screen before this action was captured before the press, and the page changed " +
    "between them: no capture could be made at the press itself",
  none: "No screen from before this action could be captured (the page changed before any " +
    "capture finished): none is stored for it",
};

interface PageState {
  tab: string;
  cdp?: Promise<CDPSession>;
  /** Recent snapshots of the tab's documents, oldest first. */
  captures: Captured[];
  /** The capture chain running now, if any (settles when it stops). */
  capturing?: Promise<void>;
  busy: boolean;
  /** The state the next capture is for (the newest count reported). */
  want?: { doc: string | undefined; gen: number } | undefined;
  /** The document the tab shows (from its last `load`). */
  doc?: string;
  lastUrl: string;
  loads: number;
  /** When the page last asked for a history traversal itself (epoch ms). */
  scriptedAt: number;
  /**
   * When the tab's page last asked for a navigation itself (`Page.frameRequestedNavigation`: a
   * link, a form, a script; epoch ms): a load without one is the person's (address bar, F5).
   */
  requestedAt: number;
  /** The tab shows one of the browser's own pages (a new tab opened with Ctrl+T). */
  internal: boolean;
}

/** A single click held until it cannot be the first half of a double click. */
interface HeldTap {
  page: Page;
  state: PageState;
  msg: ActionMessage;
  at: number;
}

/** A running human recording, to the stream `session-<id>`. */
export class HumanRecorder {
  readonly id: string;
  readonly streamId: string;
  #driver: ChromeDriver;
  #store: EventStore;
  #version = 0;
  #pages = new Map<Page, PageState>();
  #queue: Promise<void> = Promise.resolve();
  #lastAppended: EventData<"ScreenCaptured"> | undefined;
  /** Time of the last stored event (epoch ms): the stream's times never go back. */
  #lastAt = 0;
  #actions = 0;
  #stopped = false;
  /** The stop under way, once `stop` was called: a second call waits for it. */
  #stopping: Promise<void> | undefined;
  #errors: string[] = [];
  #held: HeldTap[] = [];
  #heldTimer: ReturnType<typeof setTimeout> | undefined;
  /** Values seen in sensitive fields: scrubbed from everything stored (snapshots, urls). */
  #secrets = new SecretScrubber();
  #attaching = new Set<Promise<void>>();
  /** The tab the person is in (its id): an action in another one switched tabs first. */
  #currentTab: string | undefined;
  /** Whether each load report came after a navigation its page asked for. */
  #requested = new WeakMap<RecorderMessage, boolean>();
  /** The stored bytes of the last captured hierarchies, by hash, until one is appended. */
  #unkept = new Map<string, Uint8Array>();
  /** Hierarchies whose parsed screen was kept ({@linkcode #keepParsed}). */
  #kept = new Set<string>();

  private constructor(driver: ChromeDriver, store: EventStore, id: string) {
    this.#driver = driver;
    this.#store = store;
    this.id = id;
    this.streamId = `session-${id}`;
  }

  /**
   * Starts recording: records `SessionStarted`, installs the page script, opens the url.
   *
   * @param driver the browser the person uses
   * @param store where the events go
   * @param options url, prompt, session id
   * @returns the running recorder
   * @throws {DriverError} when the url cannot be opened (the session is then ended `failed`)
   */
  static async start(
    driver: ChromeDriver,
    store: EventStore,
    options: HumanRecorderOptions,
  ): Promise<HumanRecorder> {
    const r = new HumanRecorder(driver, store, options.sessionId ?? crypto.randomUUID());
    const vp = await driver.viewport();
    await r.#append([{
      type: "SessionStarted",
      data: {
        sessionId: r.id,
        mode: "human",
        platform: "web",
        prompt: options.prompt,
        url: options.url,
        viewport: { width: vp.width, height: vp.height },
        devicePixelRatio: vp.devicePixelRatio,
        drivers: { chrome: await driver.browser.version() },
      },
    }], "no_stream");
    try {
      driver.onNewTab((page) => {
        const work = r.#attach(page).catch((err) => {
          r.#errors.push(String(err));
        });
        r.#attaching.add(work);
        work.finally(() => r.#attaching.delete(work));
      });
      await r.#attach(driver.page);
      const nav = await driver.navigate(options.url);
      const state = r.#pages.get(driver.page)!;
      state.lastUrl = nav.finalUrl;
      r.#currentTab = state.tab;
      await r.#enqueue(() =>
        r.#append([{
          type: "NavigationOccurred",
          data: { url: nav.finalUrl, reason: "navigate", tabId: state.tab },
        }])
      );
      // the page as it opened, even when the person leaves it without acting on it
      await r.#enqueue(() => r.#storeLoaded(driver.page, state, undefined));
    } catch (err) {
      // the session started: it ends failed, never left open
      await r.#end("failed", err instanceof Error ? err.message : String(err)).catch(() => {});
      throw err;
    }
    return r;
  }

  /** How many actions were recorded so far. */
  get actionCount(): number {
    return this.#actions;
  }

  /** Problems met while recording (a snapshot that failed), for the report. */
  get errors(): readonly string[] {
    return this.#errors;
  }

  /**
   * Waits until the recorder listens in every tab opened so far (a tab is followed a moment
   * after it opens).
   *
   * @returns when no tab is being attached
   */
  async ready(): Promise<void> {
    for (let i = 0; i < 10 && this.#attaching.size > 0; i++) {
      await Promise.all([...this.#attaching]);
    }
  }

  /**
   * Waits until every reported event is recorded (a single click still held for a possible
   * double click stays held).
   *
   * @returns when the queue is empty
   */
  async flush(): Promise<void> {
    for (let i = 0; i < 20; i++) {
      const q = this.#queue;
      await q;
      if (q === this.#queue) return;
    }
  }

  /**
   * Stops: records a held click, a final screen of the active tab and `SessionEnded`.
   * Idempotent.
   *
   * @param reason why it stopped (default completed)
   * @param error what went wrong, recorded on `SessionEnded`
   */
  stop(
    reason: EventData<"SessionEnded">["reason"] = "completed",
    error?: string,
  ): Promise<void> {
    // a second stop while the first is under way (Ctrl-C during a stop) waits for it: two would
    // each store a final screen and a SessionEnded, the second after the first's end
    this.#stopping ??= this.#stopNow(reason, error);
    return this.#stopping;
  }

  async #stopNow(
    reason: EventData<"SessionEnded">["reason"],
    error: string | undefined,
  ): Promise<void> {
    if (this.#stopped) return;
    await new Promise((r) => setTimeout(r, 50)); // binding calls still in flight
    await this.flush();
    await this.#enqueue(() => this.#releaseHeld());
    await this.flush();
    this.#stopped = true;
    clearTimeout(this.#heldTimer);
    for (const s of this.#pages.values()) await s.capturing;
    // the tab the person is in (the driver's active tab is the newest one it followed)
    const page = [...this.#pages].find(([p, s]) => s.tab === this.#currentTab && !p.isClosed())
      ?.[0] ?? this.#driver.page;
    const state = this.#pages.get(page);
    const events: NewEvent[] = [];
    if (state && !page.isClosed()) {
      const final = await this.#capture(page, state).catch(() => undefined);
      if (final) events.push({ type: "ScreenCaptured", data: final.data });
    }
    events.push({ type: "SessionEnded", data: { reason, ...(error ? { error } : {}) } });
    await this.#append(events);
  }

  /** Ends a session that did not get going: `SessionEnded` only, once. */
  async #end(reason: EventData<"SessionEnded">["reason"], error: string): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true; // queued reports are dropped from here on
    clearTimeout(this.#heldTimer);
    await this.flush();
    await this.#append([{ type: "SessionEnded", data: { reason, error } }]);
  }

  async #attach(page: Page): Promise<void> {
    if (this.#pages.has(page)) return;
    const tab = this.#driver.tabIdOf(page) ?? `tab-${this.#pages.size + 1}`;
    const opened = page !== this.#driver.page || this.#pages.size > 0;
    // a tab no page opened (Ctrl+T: the browser's new-tab page, or a blank one before it
    // commits) is the person's; a popup, even `noopener`, has an opener
    const byPerson = opened && (isInternalUrl(page.url()) || !page.target().opener());
    // the first document is the one the recorder opens, or a new tab's: not a load of its own
    const state: PageState = {
      tab,
      captures: [],
      busy: false,
      lastUrl: page.url(),
      loads: -1,
      scriptedAt: -Infinity,
      requestedAt: -Infinity,
      internal: byPerson,
    };
    // a tab the person opened: the first real page loaded in it is the person's
    if (state.internal) state.loads = 0;
    this.#pages.set(page, state);
    // the person opened a tab (Ctrl+T): a switch to a new tab, queued before anything the tab
    // reports; its page is the browser's own, recorded as a navigation only (the next real page
    // stands for it)
    const opening = byPerson ? this.#enqueue(() => this.#openedByPerson(page, tab)) : undefined;
    // A raw CDP binding: Chromium itself defines it in every document of the tab, including
    // those created later, so no navigation can outrun it.
    state.cdp = page.createCDPSession();
    const cdp = await state.cdp;
    cdp.on("Runtime.bindingCalled", (e) => {
      if (e.name !== BINDING) return;
      const received = Date.now();
      let msg: RecorderMessage;
      try {
        msg = JSON.parse(e.payload) as RecorderMessage;
      } catch {
        return; // any script of the page can call the binding: what is no report is ignored
      }
      if (typeof msg !== "object" || msg === null) return;
      this.#onReport(page, state, msg, timeOf(msg, received));
    });
    await cdp.send("Runtime.enable");
    await cdp.send("Runtime.addBinding", { name: BINDING });
    // A navigation the page asks for (a link, a form, a script) is announced by the renderer;
    // one the browser starts (the address bar, F5, a bookmark) is not.
    const main = await cdp.send("Page.getFrameTree").then((t) => t.frameTree.frame.id, () => "");
    cdp.on("Page.frameRequestedNavigation", (e) => {
      if (e.frameId === main) state.requestedAt = Date.now();
    });
    await cdp.send("Page.enable").catch(() => {});
    await page.evaluateOnNewDocument(recorderScript, BINDING);
    // a document that committed while the script was being registered gets it on its load
    // (the script installs itself once per document)
    const install = () => page.evaluate(recorderScript, BINDING).catch(() => {});
    page.on("domcontentloaded", install);
    await install();
    if (opened && !byPerson) {
      const url = page.url();
      await this.#enqueue(async () => {
        this.#currentTab = tab;
        await this.#append([{
          type: "NavigationOccurred",
          data: { url, reason: "new_tab", tabId: tab },
        }]);
      });
      state.lastUrl = url;
    }
    await opening;
  }

  /** A tab the person opened: a `switchTab` to a new tab, and its navigation. */
  async #openedByPerson(page: Page, tab: string): Promise<void> {
    await this.#releaseHeld(); // a click held for a double click came before the new tab
    this.#currentTab = tab;
    this.#actions++;
    const actionId = crypto.randomUUID();
    await this.#append([
      {
        type: "ActionPerformed",
        data: {
          actionId,
          kind: "switchTab",
          toolParams: { newTab: true },
          source: "human",
          tabId: tab,
        },
      },
      { type: "ActionCompleted", data: { actionId, ok: true, durationMs: 0 } },
      { type: "NavigationOccurred", data: { url: page.url(), reason: "new_tab", tabId: tab } },
    ]);
  }

  #enqueue(work: () => Promise<void>): Promise<void> {
    const next = this.#queue.then(() => this.#stopped ? undefined : work()).catch((err) => {
      this.#errors.push(err instanceof Error ? err.message : String(err));
    });
    this.#queue = next;
    return next;
  }

  /**
   * A report as it arrives: a press, a settled page or a new document starts a capture at once
   * (outside the queue, which may be busy storing); everything else is queued in order.
   */
  #onReport(page: Page, state: PageState, msg: RecorderMessage, at: number): void {
    switch (msg.type) {
      case "pre":
      case "quiet":
        this.#wantCapture(page, state, msg.doc, msg.gen);
        return;
      case "scripted":
        state.scriptedAt = at;
        return;
      case "spa":
        // a navigation the page asked for stayed in the document (a fragment, pushState)
        state.requestedAt = -Infinity;
        break;
      case "load":
        // whether the page asked for this document (read now, in the order the reports came)
        this.#requested.set(msg, at - state.requestedAt < REQUESTED_MS);
        state.requestedAt = -Infinity;
        this.#wantCapture(page, state, msg.doc, msg.gen);
        break;
    }
    this.#enqueue(() => this.#onMessage(page, state, msg, at));
  }

  /** Asks for a snapshot of the page at `gen` (taken now, or after the one being taken). */
  #wantCapture(page: Page, state: PageState, doc: string | undefined, gen: number): void {
    if (this.#stopped || page.isClosed() || typeof gen !== "number") return;
    const w = state.want;
    state.want = w && w.doc === doc && w.gen > gen ? w : { doc, gen };
    if (state.busy) return;
    state.busy = true;
    state.capturing = this.#captureChain(page, state);
  }

  /** Takes the snapshots asked for, one at a time, skipping those the page has moved past. */
  async #captureChain(page: Page, state: PageState): Promise<void> {
    try {
      for (let i = 0; i < CHAIN; i++) {
        const want = state.want;
        if (!want || this.#stopped || page.isClosed()) break;
        state.want = undefined;
        if (state.captures.some((c) => isExact(c, want.doc, want.gen))) continue;
        // a page that navigates away mid-capture is no error: the next document reports itself
        const c = await this.#capture(page, state).catch(() => undefined);
        // a state asked for meanwhile that the page has already left cannot be captured
        const next = state.want as PageState["want"]; // set by reports while awaiting
        if (c && next && next.doc === c.doc && next.gen < c.gen1) state.want = undefined;
      }
    } finally {
      state.busy = false;
    }
  }

  async #onMessage(page: Page, state: PageState, msg: RecorderMessage, at: number): Promise<void> {
    if (msg.type === "action" && msg.kind === "tap" && (msg.double || msg.detail === 2)) {
      // the second click and the dblclick of a double click join the clicks held before them
      const first = this.#held[0];
      const last = this.#held.at(-1);
      const same = first !== undefined && last !== undefined && last.page === page &&
        (last.msg.selectors?.cssPath === msg.selectors?.cssPath ||
          Math.abs(last.msg.x - msg.x) + Math.abs(last.msg.y - msg.y) <= 8);
      if (same && msg.double) {
        this.#held = [];
        clearTimeout(this.#heldTimer);
        await this.#onAction(first.state, { ...first.msg, double: true }, first.at);
        return;
      }
      if (same && this.#held.length === 1) {
        this.#held.push({ page, state, msg, at });
        this.#armHeld();
        return;
      }
      // a dblclick whose clicks were stored as clicks already: nothing of its own
      if (msg.double) return;
    }
    await this.#releaseHeld();
    // any script of the page can call the binding: a url that is no string would become the
    // `from` of the next navigation too, and neither could be stored
    if ((msg.type === "load" || msg.type === "spa") && typeof msg.url !== "string") {
      this.#errors.push(`A ${msg.type} report without a url: left out`);
      return;
    }
    if (typeof msg.url === "string" && isInternalUrl(msg.url)) return; // the browser's own page
    switch (msg.type) {
      case "visible": {
        // the person brought this tab to the front
        if (state.tab !== this.#currentTab) await this.#switchTo(page, state, at);
        return;
      }
      case "load": {
        if (msg.url === "about:blank") return; // a tab's initial empty document
        if (typeof msg.doc === "string") state.doc = msg.doc;
        state.loads++;
        const from = state.lastUrl;
        const fromInternal = state.internal;
        state.lastUrl = msg.url;
        state.internal = false;
        if (state.loads <= 0) {
          // the document the recorder opened, or a new tab's first: its snapshot all the same
          await this.#storeLoaded(page, state, msg.doc);
          return;
        }
        if (msg.navigation === "back_forward" && !(at - state.scriptedAt < SCRIPTED_MS)) {
          await this.#onTraversal(state, msg.url, from, msg.traverse, at, "load");
          await this.#storeLoaded(page, state, msg.doc);
          return;
        }
        // a document no page asked for: the person's address bar (or a new tab's page) or F5
        const requested = this.#requested.get(msg) === true && !fromInternal;
        const byPerson = !requested && msg.restored !== true &&
          (msg.navigation === "navigate" || msg.navigation === "reload");
        if (byPerson) {
          if (state.tab !== this.#currentTab) await this.#switchTo(page, state, at);
          const actionId = crypto.randomUUID();
          const reload = msg.navigation === "reload";
          this.#actions++;
          await this.#append([{
            type: "ActionPerformed",
            data: {
              actionId,
              kind: reload ? "reload" : "navigate",
              url: msg.url,
              ...(reload ? {} : { toolParams: { via: "address_bar" } }),
              source: "human",
              tabId: state.tab,
            },
            meta: stamp(at),
          }, {
            type: "ActionCompleted",
            data: { actionId, ok: true, durationMs: 0 },
            meta: stamp(at),
          }]);
        }
        await this.#append([{
          type: "NavigationOccurred",
          data: {
            url: msg.url,
            ...(from && !fromInternal ? { from } : {}),
            reason: msg.navigation === "reload" ? "reload" : byPerson ? "navigate" : "load",
            tabId: state.tab,
          },
          meta: stamp(at),
        }]);
        await this.#storeLoaded(page, state, msg.doc);
        return;
      }
      case "spa": {
        if (msg.url === state.lastUrl) return;
        const from = state.lastUrl;
        state.lastUrl = msg.url;
        if (msg.traverse) {
          await this.#onTraversal(state, msg.url, from, msg.traverse, at, "spa");
          return;
        }
        await this.#append([{
          type: "NavigationOccurred",
          data: { url: msg.url, from, reason: "spa", tabId: state.tab },
          meta: stamp(at),
        }]);
        return;
      }
      case "action":
        if (msg.kind === "tap" && (msg.detail === 1 || msg.detail === 2)) {
          this.#held = [{ page, state, msg, at }];
          this.#armHeld();
          return;
        }
        await this.#onAction(state, msg, at);
        return;
    }
  }

  /** Records the held clicks as single clicks once no double click can follow. */
  #armHeld(): void {
    clearTimeout(this.#heldTimer);
    const held = this.#held;
    this.#heldTimer = setTimeout(() => {
      // clicks held since are not released early
      this.#enqueue(() => this.#held === held ? this.#releaseHeld() : Promise.resolve());
    }, DOUBLE_CLICK_MS);
  }

  async #releaseHeld(): Promise<void> {
    const held = this.#held;
    this.#held = [];
    clearTimeout(this.#heldTimer);
    for (const h of held) await this.#onAction(h.state, h.msg, h.at);
  }

  /**
   * A Back or Forward of the person's: a `navigate` action to the url it shows (what replay
   * opens), then the navigation.
   */
  async #onTraversal(
    state: PageState,
    url: string,
    from: string,
    traverse: Traverse | undefined,
    at: number,
    kind: "load" | "spa",
  ): Promise<void> {
    const actionId = crypto.randomUUID();
    const direction = traverse === "back" || traverse === "forward" ? traverse : undefined;
    this.#actions++;
    await this.#append([
      {
        type: "ActionPerformed",
        data: {
          actionId,
          kind: "navigate",
          url,
          ...(direction ? { toolName: direction } : {}),
          source: "human",
          tabId: state.tab,
        },
        meta: stamp(at),
      },
      { type: "ActionCompleted", data: { actionId, ok: true, durationMs: 0 }, meta: stamp(at) },
      {
        type: "NavigationOccurred",
        data: {
          url,
          ...(from ? { from } : {}),
          reason: direction === "back" ? "back" : kind,
          tabId: state.tab,
        },
        meta: stamp(at),
      },
    ]);
  }

  /**
   * Stores the snapshot of a document just loaded (the newest taken of it), so every page the
   * person saw has one, even one left without an action.
   */
  async #storeLoaded(page: Page, state: PageState, doc: string | undefined): Promise<void> {
    await state.capturing;
    let c = [...state.captures].reverse().find((c) => doc === undefined || c.doc === doc);
    if (!c && !page.isClosed()) c = await this.#capture(page, state).catch(() => undefined);
    if (!c || (doc !== undefined && c.doc !== doc) || this.#lastAppended === c.data) return;
    this.#lastAppended = c.data;
    await this.#append([{ type: "ScreenCaptured", data: c.data, meta: stamp(c.at) }]);
  }

  /** A tab switch of the person's: a `switchTab` action to the tab's url, with its title. */
  async #switchTo(page: Page, state: PageState, at: number): Promise<void> {
    this.#currentTab = state.tab;
    const title = await page.title().catch(() => "");
    const actionId = crypto.randomUUID();
    this.#actions++;
    await this.#append([{
      type: "ActionPerformed",
      data: {
        actionId,
        kind: "switchTab",
        url: page.url(),
        ...(title ? { target: { name: title } } : {}),
        source: "human",
        tabId: state.tab,
      },
      meta: stamp(at),
    }, { type: "ActionCompleted", data: { actionId, ok: true, durationMs: 0 }, meta: stamp(at) }]);
  }

  async #onAction(state: PageState, msg: ActionMessage, at: number): Promise<void> {
    // an action in another tab than the last one: the person switched to it first
    if (state.tab !== this.#currentTab) {
      const page = [...this.#pages].find(([, s]) => s === state)?.[0];
      if (page && !page.isClosed()) await this.#switchTo(page, state, at);
    }
    // the captures asked for up to now (its press's among them) finish first
    await state.capturing;
    const doc = typeof msg.doc === "string" ? msg.doc : state.doc;
    const { before, screenBefore } = screenAt(state, doc, msg);
    // Any script of the page can call the binding: a point or a scroll position off every page
    // (screen_point.ts) is left out, and said, rather than recorded.
    const point: Point | undefined = ScreenPoint.safeParse({ x: msg.x, y: msg.y }).success
      ? { x: msg.x, y: msg.y }
      : undefined;
    const scrolled = ScreenPoint.safeParse({ x: msg.scrollX, y: msg.scrollY });
    if (point === undefined) {
      this.#errors.push(
        `A ${msg.kind} at (${msg.x}, ${msg.y}), off any page: kept without a point`,
      );
    }
    if (msg.scrollX !== undefined && !scrolled.success) {
      this.#errors.push(
        `A scroll to (${msg.scrollX}, ${msg.scrollY}), off any page: kept without its position`,
      );
    }
    // a page scroll has no target: it replays as a scroll of the page in its direction
    const pageScroll = msg.kind === "scroll" && msg.page === true;
    const node = before && !pageScroll && point ? axTarget(before.screen.root, point) : undefined;
    const events: NewEvent[] = [];
    // a screen captured long before (a tab left and come back to): its time is said, since the
    // stream's times never go back and it is stored at the action's
    const earlierAt = before && this.#lastAppended !== before.data &&
        before.at < this.#lastAt - 1_000
      ? before.at
      : undefined;
    if (before && this.#lastAppended !== before.data) {
      events.push({
        type: "ScreenCaptured",
        data: before.data,
        meta: stamp(Math.min(before.at, at)),
      });
      this.#lastAppended = before.data;
    }
    const actionId = crypto.randomUUID();
    const selectors = msg.selectors ?? {};
    // an earlier screen is not the page at the click: its hit test may be another element, so
    // the role and name are read live off the clicked element, as the selectors are
    const hit = screenBefore === "earlier" ? undefined : node;
    // the page itself (its background, a key with nothing focused): no role or name of its own,
    // which a replay could heal onto an element showing that text
    const root = msg.root === true;
    const role = root ? undefined : hit?.role ?? hit?.className ?? selectors.role;
    const name = root ? undefined : hit?.name ?? hit?.text ?? selectors.name;
    const startedAt = typeof msg.startedAt === "number" && Number.isFinite(msg.startedAt) &&
        msg.startedAt <= at && msg.startedAt > at - 3_600_000
      ? new Date(msg.startedAt).toISOString()
      : undefined;
    const pageKey = root && msg.kind === "keyPress";
    const params: Record<string, unknown> = {
      ...(startedAt ? { startedAt } : {}),
      ...(earlierAt !== undefined
        ? {
          screenCapturedAt: new Date(earlierAt).toISOString(),
          notes: `The screen before this action was captured earlier, at ${
            new Date(earlierAt).toISOString()
          } (stored with the action's time); the page did not change since`,
        }
        : {}),
      ...(scrolled.success ? { scrollX: scrolled.data.x, scrollY: scrolled.data.y } : {}),
      ...(screenBefore && !pageScroll
        ? { screenBefore, notes: SCREEN_NOTES[screenBefore] }
        : screenBefore
        ? { screenBefore }
        : {}),
    };
    events.push({
      type: "ActionPerformed",
      data: {
        actionId,
        kind: msg.kind,
        ...(msg.kind === "tap" && msg.double ? { toolName: "doubleClick" } : {}),
        ...(pageScroll || pageKey || point === undefined ? {} : { point }),
        ...(msg.text !== undefined ? { text: msg.text } : {}),
        ...(msg.key !== undefined ? { key: msg.key } : {}),
        ...(msg.value !== undefined ? { value: msg.value } : {}),
        ...(msg.checked !== undefined ? { checked: msg.checked } : {}),
        ...(msg.direction !== undefined ? { direction: msg.direction } : {}),
        ...(Object.keys(params).length > 0 ? { toolParams: params } : {}),
        ...(pageScroll || pageKey ? {} : {
          target: {
            ...(role ? { role } : {}),
            ...(name ? { name } : {}),
            selectors,
          },
        }),
        source: "human",
        tabId: state.tab,
      },
      meta: stamp(at),
    }, {
      type: "ActionCompleted",
      data: { actionId, ok: true, durationMs: 0 },
      meta: stamp(at),
    });
    this.#actions++;
    await this.#append(events);
  }

  /** Snapshots a page (redacted), with the document and the counts before and after it. */
  async #capture(page: Page, state: PageState): Promise<Captured> {
    // the browser's own pages (a new tab's) are never captured: only a navigation says of them
    if (isInternalUrl(page.url())) throw new Error(`${page.url()} is the browser's own page`);
    state.cdp ??= page.createCDPSession();
    const cdp = await state.cdp;
    const mark = async () => {
      const r = await cdp.send("Runtime.evaluate", { expression: MARK, returnByValue: true });
      const v = r.result.value as unknown;
      const [doc, gen, inputs, effects] = Array.isArray(v) ? v : [];
      const n = (x: unknown) => typeof x === "number" ? x : -1;
      return {
        doc: typeof doc === "string" ? doc : undefined,
        gen: n(gen),
        inputs: n(inputs),
        effects: n(effects),
      };
    };
    const at = Date.now();
    const m0 = await mark();
    const [hierarchy, secrets] = await Promise.all([
      captureChromeHierarchy(cdp),
      page.evaluate(sensitiveValuesInPage),
    ]);
    const m1 = await mark().catch(() => ({ doc: undefined, gen: -2, inputs: -2, effects: -2 }));
    for (const secret of secrets) this.#secrets.add(secret);
    redact(hierarchy, new Set(secrets));
    const scrubbed = this.#secrets.hierarchyJson(hierarchy);
    const bytes = new TextEncoder().encode(JSON.stringify(scrubbed));
    const ref = await this.#store.putBlob(bytes, "application/json");
    if (this.#store.putDerived && !this.#kept.has(ref.hash)) {
      this.#unkept.delete(ref.hash);
      this.#unkept.set(ref.hash, bytes);
      // as many as the captures kept per page: an older one is not appended any more
      if (this.#unkept.size > 50) this.#unkept.delete(this.#unkept.keys().next().value!);
    }
    // a capture across two documents (a navigation) shows neither for sure
    const oneDoc = m0.doc !== undefined && m0.doc === m1.doc;
    const captured: Captured = {
      doc: oneDoc ? m0.doc : undefined,
      gen0: m0.gen,
      gen1: oneDoc ? m1.gen : Infinity,
      in0: m0.inputs,
      in1: oneDoc ? m1.inputs : Infinity,
      ef0: m0.effects,
      ef1: oneDoc ? m1.effects : Infinity,
      at,
      screen: chromeHierarchyToScreen(scrubbed),
      data: {
        hierarchy: ref,
        format: "chrome",
        url: this.#secrets.text(scrubbed.url),
        viewport: hierarchy.viewport,
        devicePixelRatio: hierarchy.devicePixelRatio,
        scroll: hierarchy.scroll,
        tabId: state.tab,
      },
    };
    if (captured.doc !== undefined) {
      state.captures.push(captured);
      if (state.captures.length > 50) state.captures.shift();
    }
    return captured;
  }

  /** Stores events; their times never go back (an event without one is stamped now). */
  async #append(events: NewEvent[], expected?: "no_stream"): Promise<void> {
    events = events.map((e) => {
      const t = e.meta?.recordedAt ? Date.parse(e.meta.recordedAt) : Date.now();
      const ms = Math.max(Number.isFinite(t) ? t : Date.now(), this.#lastAt);
      this.#lastAt = ms;
      return this.#secrets.event({
        ...e,
        meta: { ...e.meta, recordedAt: new Date(ms).toISOString() },
      } as NewEvent);
    });
    const r = await this.#store.append(this.streamId, events, {
      expectedVersion: expected ?? this.#version,
    });
    this.#version = r.streamVersion;
    for (const e of events) if (e.type === "ScreenCaptured") await this.#keepParsed(e.data);
  }

  /**
   * Keeps an appended screen's parsed hierarchy beside its blob (`putDerived`), as an import
   * does, so a projection of the session decodes it instead of parsing it: the stored (scrubbed)
   * bytes parsed, which is what a projection would parse. Once per hierarchy.
   */
  async #keepParsed(data: EventData<"ScreenCaptured">): Promise<void> {
    const hash = data.hierarchy.hash;
    const bytes = this.#unkept.get(hash);
    if (bytes === undefined || !this.#store.putDerived) return;
    this.#unkept.delete(hash);
    this.#kept.add(hash);
    const encoded = parsedScreenBytes(bytes, data.format);
    if (encoded) await this.#store.putDerived(hash, parsedScreenKind(data.format), encoded);
  }
}

/** A snapshot taken exactly at `gen` of `doc`: the count did not move while it was taken. */
function isExact(c: Captured, doc: string | undefined, gen: number): boolean {
  return doc !== undefined && c.doc === doc && c.gen0 === gen && c.gen1 === gen;
}

/**
 * The screen before an action of `doc` pressed at count `gen` (with the input and effect counts
 * of its press): the snapshot taken exactly at that count; else one taken after the press's task
 * and before any later input was handled, while only the page itself changed (`changing`); else
 * the newest taken entirely before the press (`earlier`); else none (`none`). Never one that may
 * show an effect of the person's input after the press.
 */
function screenAt(
  state: PageState,
  doc: string | undefined,
  at: { gen: number; inputs?: number | undefined; effects?: number | undefined },
): { before?: Captured; screenBefore?: ScreenBefore } {
  const { gen, inputs, effects } = at;
  let changing: Captured | undefined;
  let earlier: Captured | undefined;
  for (let i = state.captures.length - 1; i >= 0; i--) {
    const c = state.captures[i]!;
    if (isExact(c, doc, gen)) return { before: c };
    if (c.doc !== doc || doc === undefined || c.gen0 < 0) continue;
    if (
      !changing && typeof inputs === "number" && typeof effects === "number" &&
      c.gen0 >= gen && c.in0 === inputs && c.in1 === inputs && c.ef0 === effects &&
      c.ef1 === effects
    ) changing = c;
    if (c.gen1 <= gen && (!earlier || c.gen1 > earlier.gen1)) earlier = c;
  }
  if (changing) return { before: changing, screenBefore: "changing" };
  return earlier ? { before: earlier, screenBefore: "earlier" } : { screenBefore: "none" };
}

/**
 * When a report happened: the page's own time, unless it is missing, ahead of its arrival or
 * more than a minute behind it (a page's clock or a forged report): then its arrival.
 */
function timeOf(msg: RecorderMessage, received: number): number {
  const t = msg.t;
  return typeof t === "number" && Number.isFinite(t) && t <= received + 1_000 &&
      t >= received - 60_000
    ? Math.min(t, received)
    : received;
}

function stamp(ms: number): { recordedAt: string } {
  return { recordedAt: new Date(ms).toISOString() };
}

/** Replaces every value, name and `value` attribute equal to a secret with `[redacted]`. */
function redact(h: ChromeHierarchy, secrets: Set<string>): void {
  if (secrets.size === 0) return;
  for (const n of h.nodes) {
    if (n.value !== undefined && secrets.has(n.value)) n.value = REDACTED;
    if (n.name !== undefined && secrets.has(n.name)) n.name = REDACTED;
    if (n.dom?.value !== undefined && secrets.has(n.dom.value)) n.dom.value = REDACTED;
  }
}

/** The accessibility node a point hits: the deepest containing node, lifted past text and generic wrappers. */
function axTarget(root: UiNode, p: Point): UiNode | undefined {
  let path: UiNode[] = [];
  const visit = (node: UiNode, ancestors: UiNode[]) => {
    const b = node.bounds;
    const inside = node.visible && p.x >= b.x && p.y >= b.y && p.x <= b.x + b.w &&
      p.y <= b.y + b.h;
    const chain = inside ? [...ancestors, node] : ancestors;
    if (inside && chain.length >= path.length) path = chain;
    for (const c of node.children) visit(c, chain);
  };
  visit(root, []);
  for (let i = path.length - 1; i >= 0; i--) {
    const n = path[i]!;
    if (!PASS_THROUGH.has(n.role ?? n.className) || n.clickable) return n;
  }
  return path.at(-1);
}
