/**
 * Records a person driving Chromium (004 "Human AX Recording"): every click, committed value,
 * key press (Enter, Tab, Escape), submit and scroll gesture becomes an `ActionPerformed` with
 * source `human`, preceded by a `ScreenCaptured` of the page as it was BEFORE the action, and
 * the target mapped to its accessibility node (role, name) plus the DOM selectors the page script computed
 * (testId, ariaLabel, role, name, id, text, cssPath) and the coordinates.
 *
 * Before-the-action screens: the injected script counts DOM mutations (`gen`); the recorder
 * snapshots whenever the page settles and at every pointerdown/keydown, and an action uses the
 * snapshot taken at its own `gen` — the page exactly as it stood before the effect.
 *
 * A scroll gesture (wheel, touch, keys or scrollbar; 250 ms without scrolling ends it) is one
 * `scroll` action with its `direction` and the final position in `toolParams`
 * (`{ scrollX, scrollY }`): of the page (no target, no point) or of the inner container its
 * selectors name (point: the container's centre).
 *
 * It follows reloads and same-tab navigations (the script is installed on every new document)
 * and new tabs (popups, `target=_blank`). Values of password and sensitive fields are stored
 * as `[redacted]`, in the actions and in the snapshots.
 *
 * @module
 */
import type { CDPSession, Page } from "puppeteer-core";
import type { EventStore } from "../../events/event_store.ts";
import type { EventData, NewEvent } from "../../events/schemas.ts";
import { type ChromeHierarchy, chromeHierarchyToScreen } from "../../engine/chrome_hierarchy.ts";
import type { Point, Screen, UiNode } from "../../engine/ui_node.ts";
import type { ChromeDriver } from "./chrome_driver.ts";
import { captureChromeHierarchy } from "./hierarchy.ts";
import { ScreenPoint } from "../../engine/formats/screen_point.ts";
import { type RecorderMessage, recorderScript, sensitiveValuesInPage } from "./_recorder_script.ts";
import { SecretScrubber } from "../secret_scrubber.ts";

/** The CDP binding the page script reports through. */
const BINDING = "__cairnRecord";
/** Redacted values are stored as this. */
export const REDACTED = "[redacted]";
/** Roles that are not a target of their own: a hit on them maps to the nearest ancestor. */
const PASS_THROUGH = new Set(["StaticText", "InlineTextBox", "generic", "none", "LabelText"]);

/** Options of {@linkcode HumanRecorder.start}. */
export interface HumanRecorderOptions {
  url: string;
  prompt: string;
  sessionId?: string;
}

interface Captured {
  gen: number;
  data: EventData<"ScreenCaptured">;
  screen: Screen;
}

interface PageState {
  tab: string;
  cdp?: Promise<CDPSession>;
  /** Snapshots of the current document by mutation count. */
  snapshots: Map<number, Captured>;
  latest?: Captured | undefined;
  lastUrl: string;
  loads: number;
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
  #actions = 0;
  #stopped = false;
  #errors: string[] = [];
  /** Values seen in sensitive fields: scrubbed from everything stored (snapshots, urls). */
  #secrets = new SecretScrubber();
  #attaching = new Set<Promise<void>>();

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
      await r.#enqueue(() =>
        r.#append([{
          type: "NavigationOccurred",
          data: { url: nav.finalUrl, reason: "navigate", tabId: state.tab },
        }])
      );
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
   * Waits until every reported event is recorded.
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
   * Stops: records a final screen of the active tab and `SessionEnded`. Idempotent.
   *
   * @param reason why it stopped (default completed)
   * @param error what went wrong, recorded on `SessionEnded`
   */
  async stop(
    reason: EventData<"SessionEnded">["reason"] = "completed",
    error?: string,
  ): Promise<void> {
    if (this.#stopped) return;
    await new Promise((r) => setTimeout(r, 50)); // binding calls still in flight
    await this.flush();
    this.#stopped = true;
    const page = this.#driver.page;
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
    await this.flush();
    await this.#append([{ type: "SessionEnded", data: { reason, error } }]);
  }

  async #attach(page: Page): Promise<void> {
    if (this.#pages.has(page)) return;
    const tab = this.#driver.tabIdOf(page) ?? `tab-${this.#pages.size + 1}`;
    // the first document is the one the recorder opens, or a new tab's: not a load of its own
    const state: PageState = { tab, snapshots: new Map(), lastUrl: page.url(), loads: -1 };
    this.#pages.set(page, state);
    const opened = page !== this.#driver.page || this.#pages.size > 1;
    // A raw CDP binding: Chromium itself defines it in every document of the tab, including
    // those created later, so no navigation can outrun it.
    state.cdp = page.createCDPSession();
    const cdp = await state.cdp;
    cdp.on("Runtime.bindingCalled", (e) => {
      if (e.name !== BINDING) return;
      const msg = JSON.parse(e.payload) as RecorderMessage;
      this.#enqueue(() => this.#onMessage(page, state, msg));
    });
    await cdp.send("Runtime.enable");
    await cdp.send("Runtime.addBinding", { name: BINDING });
    await page.evaluateOnNewDocument(recorderScript, BINDING);
    // a document that committed while the script was being registered gets it on its load
    // (the script installs itself once per document)
    const install = () => page.evaluate(recorderScript, BINDING).catch(() => {});
    page.on("domcontentloaded", install);
    await install();
    if (opened) {
      await this.#enqueue(() =>
        this.#append([{
          type: "NavigationOccurred",
          data: { url: page.url(), reason: "new_tab", tabId: tab },
        }])
      );
      state.lastUrl = page.url();
    }
  }

  #enqueue(work: () => Promise<void>): Promise<void> {
    const next = this.#queue.then(() => this.#stopped ? undefined : work()).catch((err) => {
      this.#errors.push(err instanceof Error ? err.message : String(err));
    });
    this.#queue = next;
    return next;
  }

  async #onMessage(page: Page, state: PageState, msg: RecorderMessage): Promise<void> {
    switch (msg.type) {
      case "quiet":
      case "pre":
        // a page that navigates away mid-capture is no error: the next document reports itself
        if (!state.snapshots.has(msg.gen)) await this.#capture(page, state).catch(() => {});
        return;
      case "load": {
        if (msg.url === "about:blank") return; // a tab's initial empty document
        state.snapshots.clear();
        state.latest = undefined;
        state.loads++;
        const from = state.lastUrl;
        state.lastUrl = msg.url;
        if (state.loads <= 0) return; // the document the recorder opened, or a new tab's first
        await this.#append([{
          type: "NavigationOccurred",
          data: {
            url: msg.url,
            ...(from ? { from } : {}),
            reason: msg.navigation === "reload" ? "reload" : "load",
            tabId: state.tab,
          },
        }]);
        return;
      }
      case "spa": {
        if (msg.url === state.lastUrl) return;
        const from = state.lastUrl;
        state.lastUrl = msg.url;
        await this.#append([{
          type: "NavigationOccurred",
          data: { url: msg.url, from, reason: "spa", tabId: state.tab },
        }]);
        return;
      }
      case "action":
        await this.#onAction(page, state, msg);
        return;
    }
  }

  async #onAction(
    page: Page,
    state: PageState,
    msg: Extract<RecorderMessage, { type: "action" }>,
  ): Promise<void> {
    // the page as it was before the action: the snapshot at the action's mutation count
    const before = state.snapshots.get(msg.gen) ?? state.latest ??
      await this.#capture(page, state).catch((err) => {
        // never lose the action: it is recorded with the screen last stored
        this.#errors.push(`No screen before a ${msg.kind}: ${String(err)}`);
        return undefined;
      });
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
    if (before && this.#lastAppended !== before.data) {
      events.push({ type: "ScreenCaptured", data: before.data });
      this.#lastAppended = before.data;
    }
    const actionId = crypto.randomUUID();
    const role = node?.role ?? node?.className ?? msg.selectors.role;
    const name = node?.name ?? node?.text ?? msg.selectors.name;
    events.push({
      type: "ActionPerformed",
      data: {
        actionId,
        kind: msg.kind,
        ...(pageScroll || point === undefined ? {} : { point }),
        ...(msg.text !== undefined ? { text: msg.text } : {}),
        ...(msg.key !== undefined ? { key: msg.key } : {}),
        ...(msg.value !== undefined ? { value: msg.value } : {}),
        ...(msg.checked !== undefined ? { checked: msg.checked } : {}),
        ...(msg.direction !== undefined ? { direction: msg.direction } : {}),
        ...(scrolled.success
          ? { toolParams: { scrollX: scrolled.data.x, scrollY: scrolled.data.y } }
          : {}),
        ...(pageScroll ? {} : {
          target: {
            ...(role ? { role } : {}),
            ...(name ? { name } : {}),
            selectors: msg.selectors,
          },
        }),
        source: "human",
        tabId: state.tab,
      },
    }, { type: "ActionCompleted", data: { actionId, ok: true, durationMs: 0 } });
    this.#actions++;
    await this.#append(events);
  }

  /** Snapshots a page (redacted) and files it under the mutation count it shows. */
  async #capture(page: Page, state: PageState): Promise<Captured> {
    state.cdp ??= page.createCDPSession();
    const cdp = await state.cdp;
    const genOf = () =>
      page.evaluate(() => (globalThis as unknown as { __cairnGen?: number }).__cairnGen ?? -1);
    const gen0 = await genOf();
    const [hierarchy, secrets] = await Promise.all([
      captureChromeHierarchy(cdp),
      page.evaluate(sensitiveValuesInPage),
    ]);
    const gen1 = await genOf().catch(() => -2);
    for (const secret of secrets) this.#secrets.add(secret);
    redact(hierarchy, new Set(secrets));
    const scrubbed = this.#secrets.hierarchyJson(hierarchy);
    const bytes = new TextEncoder().encode(JSON.stringify(scrubbed));
    const ref = await this.#store.putBlob(bytes, "application/json");
    const captured: Captured = {
      gen: gen0 === gen1 ? gen0 : -1,
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
    if (captured.gen >= 0) state.snapshots.set(captured.gen, captured);
    if (state.snapshots.size > 50) {
      state.snapshots.delete(state.snapshots.keys().next().value!);
    }
    state.latest = captured;
    return captured;
  }

  async #append(events: NewEvent[], expected?: "no_stream"): Promise<void> {
    events = events.map((e) => this.#secrets.event(e));
    const r = await this.#store.append(this.streamId, events, {
      expectedVersion: expected ?? this.#version,
    });
    this.#version = r.streamVersion;
  }
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
