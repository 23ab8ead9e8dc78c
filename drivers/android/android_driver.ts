/**
 * The Android `Driver`: an Appium 3 UiAutomator2 session over the W3C WebDriver protocol.
 *
 * Page source → `Screen` through the shared Android parser, taps and swipes as W3C touch
 * pointer actions in device pixels, typing into the focused element, keys through
 * `mobile: pressKey`, and native lookups (`id`, `accessibility id`, `-android uiautomator`,
 * `xpath`) for replay. Without an `appium` URL it starts Cairn's own Appium server
 * (see `appium_server.ts`) and stops it on {@linkcode AndroidDriver.close}.
 *
 * @module
 */
import { parseHierarchy } from "../../engine/screens/mod.ts";
import { ANDROID_ROW_ANCHORED } from "../../engine/playback/mod.ts";
import { ScreenFinder } from "./screen_lookup.ts";
import { maskPasswordFields } from "./mask_passwords.ts";
import { type Point, type Screen, type UiNode, walk } from "../../engine/screens/mod.ts";
import {
  type Direction,
  type Driver,
  DriverError,
  type FindQuery,
  type FoundElement,
  type NavigationResult,
  type Snapshot,
  type TabInfo,
  type Viewport,
} from "../driver.ts";
import { androidCapabilities, type AndroidSessionOptions } from "./capabilities.ts";
import { localSdkError, toDriverError } from "./errors.ts";
import { androidKeyPress } from "./keycodes.ts";
import { AppiumServer, type AppiumServerOptions } from "./appium_server.ts";
import { type PointerSequence, type W3cAction, WebDriverClient } from "./w3c_client.ts";

/** Options of {@linkcode AndroidDriver.connect}. */
export interface AndroidDriverOptions {
  /** An Appium server or grid URL; when absent Cairn starts its own on 127.0.0.1. */
  appium?: string;
  /** Device and app of the session. */
  session?: AndroidSessionOptions;
  /** Per-command timeout in ms (default 60 000). */
  timeoutMs?: number;
  /** Options of the Appium server Cairn starts when `appium` is absent. */
  server?: AppiumServerOptions;
}

/** Lookup strategies Appium's UiAutomator2 driver answers that Cairn uses. */
export const ANDROID_STRATEGIES = ["id", "accessibility id", "-android uiautomator", "xpath"];

/** At most this many elements of one lookup are described (rect + state round trips). */
const MAX_FOUND = 20;

/** How long a settled page source may stand in for a fresh one (no action in between). */
const SETTLED_REUSE_MS = 250;

/** The one tab a device screen has. */
const MAIN_TAB = "main";

/** A connected Android device, driven through Appium. */
export class AndroidDriver implements Driver {
  readonly platform = "android" as const;
  readonly #client: WebDriverClient;
  readonly #server: AppiumServer | undefined;
  #viewport: Viewport | undefined;
  #lastScreen: Screen | undefined;
  /** The source `waitForSettle` ended on; any action drops it. */
  #settled: { xml: string; at: number } | undefined;
  /** The page source request under way: a snapshot and a screenshot taken together share it. */
  #sourcing: Promise<string> | undefined;

  /**
   * Wraps an open WebDriver session. Use {@linkcode AndroidDriver.connect} to open one.
   *
   * @param client a client with an open session
   * @param server the Appium server this driver owns and stops on close, if any
   */
  constructor(client: WebDriverClient, server?: AppiumServer) {
    this.#client = client;
    this.#server = server;
  }

  /**
   * Opens an Android session: on the given Appium URL, or on a server Cairn starts.
   *
   * @param options Appium URL, device and app
   * @returns the driver
   * @throws {DriverError} saying what is missing (Appium, ANDROID_HOME, adb, a device, the app)
   */
  static async connect(options: AndroidDriverOptions = {}): Promise<AndroidDriver> {
    let server: AppiumServer | undefined;
    let url = options.appium;
    if (url === undefined) {
      // A local server only drives this machine's devices: without the SDK and adb its session
      // cannot start, so say so before installing Appium (a first run's npm install) or starting it.
      const env: Record<string, string | undefined> = {
        ...Deno.env.toObject(),
        ...options.server?.env,
      };
      for (const name of options.server?.unsetEnv ?? []) delete env[name];
      const missing = localSdkError(env);
      if (missing) throw missing;
      server = await AppiumServer.start(options.server ?? {});
      url = server.url;
    }
    const client = new WebDriverClient(url, { timeoutMs: options.timeoutMs ?? 60_000 });
    try {
      await client.newSession(androidCapabilities(options.session ?? {}));
    } catch (err) {
      await server?.stop();
      throw toDriverError(err, "Cannot start an Android session");
    }
    return new AndroidDriver(client, server);
  }

  /**
   * What to record as the session's driver versions: Appium's build and the session's
   * automation name, platform version and device (from `/status` and the session capabilities).
   *
   * @returns names → versions (`{ appium: "3.8.0", automationName: "UiAutomator2", … }`)
   */
  async versions(): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    try {
      const build = (await this.#client.status()).build as { version?: unknown } | undefined;
      if (typeof build?.version === "string") out.appium = build.version;
    } catch {
      // a grid may not expose /status: the versions are informative only
    }
    const caps = this.#client.capabilities;
    for (
      const [key, name] of [
        ["automationName", "automationName"],
        ["appium:automationName", "automationName"],
        ["platformVersion", "platformVersion"],
        ["appium:platformVersion", "platformVersion"],
        ["deviceName", "device"],
        ["appium:deviceName", "device"],
        ["deviceUDID", "udid"],
        ["appium:udid", "udid"],
      ] as const
    ) {
      const v = caps[key];
      if (typeof v === "string" && v !== "" && out[name] === undefined) out[name] = v;
    }
    return out;
  }

  /** The WebDriver session id. */
  get sessionId(): string | undefined {
    return this.#client.sessionId;
  }

  /** The Appium URL this driver talks to. */
  get appiumUrl(): string {
    return this.#client.baseUrl;
  }

  async snapshot(): Promise<Snapshot> {
    const settled = this.#settled;
    this.#settled = undefined;
    const xml = settled && performance.now() - settled.at < SETTLED_REUSE_MS
      ? settled.xml
      : await this.#source();
    let screen: Screen;
    try {
      screen = parseHierarchy(xml);
    } catch (err) {
      throw new DriverError(
        `Cannot parse the Android page source: ${err instanceof Error ? err.message : err}`,
        "bad_page_source",
        { cause: err },
      );
    }
    const vp = await this.viewport();
    if (vp.width > 0 && vp.height > 0) {
      screen.width = vp.width;
      screen.height = vp.height;
    }
    this.#lastScreen = screen;
    return {
      screen,
      raw: {
        bytes: new TextEncoder().encode(xml),
        mediaType: "application/xml",
        format: screen.format,
      },
    };
  }

  /**
   * The screen as PNG, with every password field of the page source taken with it painted over
   * (`drivers/android/mask_passwords.ts`): Android shows a password's length, and for a moment
   * its last character. That costs a page source request, shared with a snapshot taken at the
   * same time.
   *
   * @throws {DriverError} when either cannot be read, or a screenshot with a password field
   *   cannot be decoded to paint it over (no screenshot rather than one that may show a secret)
   */
  async screenshot(): Promise<Uint8Array> {
    const [xml, png] = await Promise.all([
      this.#source(),
      this.#do("Cannot take a screenshot", () => this.#client.screenshot()),
    ]);
    try {
      return await maskPasswordFields(png, xml);
    } catch (err) {
      throw new DriverError(
        `Cannot paint over the password fields of the screenshot: ${
          err instanceof Error ? err.message : err
        }`,
        "bad_screenshot",
        { cause: err },
      );
    }
  }

  async tap(point: Point): Promise<void> {
    const p = devicePoint(point);
    await this.#actions("Cannot tap", [
      { type: "pointerMove", duration: 0, x: p.x, y: p.y, origin: "viewport" },
      { type: "pointerDown", button: 0 },
      { type: "pause", duration: 60 },
      { type: "pointerUp", button: 0 },
    ]);
  }

  /**
   * Presses at a point and holds it `durationMs` before lifting the finger (a long press).
   *
   * @param point where, device pixels
   * @param durationMs how long the finger stays down
   */
  async longPress(point: Point, durationMs: number): Promise<void> {
    const p = devicePoint(point);
    await this.#actions("Cannot long-press", [
      { type: "pointerMove", duration: 0, x: p.x, y: p.y, origin: "viewport" },
      { type: "pointerDown", button: 0 },
      { type: "pause", duration: Math.round(durationMs) },
      { type: "pointerUp", button: 0 },
    ]);
  }

  /**
   * Swipes from one point to another as one touch pointer.
   *
   * @param from start, device pixels
   * @param to end, device pixels
   * @param durationMs how long the move takes (default 400 ms)
   */
  async swipe(from: Point, to: Point, durationMs = 400): Promise<void> {
    const a = devicePoint(from);
    const b = devicePoint(to);
    await this.#actions("Cannot swipe", [
      { type: "pointerMove", duration: 0, x: a.x, y: a.y, origin: "viewport" },
      { type: "pointerDown", button: 0 },
      { type: "pause", duration: 100 },
      { type: "pointerMove", duration: durationMs, x: b.x, y: b.y, origin: "viewport" },
      { type: "pointerUp", button: 0 },
    ]);
  }

  async type(text: string, options: { point?: Point; clear?: boolean } = {}): Promise<void> {
    this.#settled = undefined;
    if (options.point) await this.tap(options.point);
    await this.#do("Cannot type", async () => {
      let el = await this.#client.activeElement();
      if (el === undefined) {
        const focused = await this.#client.findElements(
          "-android uiautomator",
          "new UiSelector().focused(true)",
        );
        el = focused[0];
      }
      if (el === undefined) {
        if (options.clear) {
          throw new DriverError("Cannot clear: no element is focused", "no_focused_element");
        }
        await this.#client.execute("mobile: type", [{ text }]);
        return;
      }
      if (options.clear) await this.#client.elementClear(el);
      await this.#client.elementSendKeys(el, text);
    });
  }

  async press(key: string): Promise<void> {
    this.#settled = undefined;
    const press = androidKeyPress(key);
    if ("problem" in press) {
      throw new DriverError(
        `Cannot press ${JSON.stringify(key)}: ${press.problem}`,
        "unsupported_key",
      );
    }
    // a chord's modifiers ride along as KeyEvent meta state flags (Ctrl+A: 29 with 4096)
    const { keycode, metastate } = press;
    await this.#do(
      `Cannot press ${key}`,
      () =>
        this.#client.execute("mobile: pressKey", [
          metastate ? { keycode, metastate } : { keycode },
        ]),
    );
  }

  async scroll(
    direction: Direction,
    options: { point?: Point; distance?: number } = {},
  ): Promise<void> {
    const vp = await this.viewport();
    const at = options.point ?? { x: vp.width / 2, y: vp.height / 2 };
    const vertical = direction === "up" || direction === "down";
    const span = vertical ? vp.height : vp.width;
    const d = Math.min(options.distance ?? span * 0.5, span * 0.8);
    // Scrolling content down moves the finger up (and so on): start ahead, end behind.
    const sign = direction === "down" || direction === "right" ? 1 : -1;
    const clampX = (x: number) => Math.max(1, Math.min(vp.width - 2, x));
    const clampY = (y: number) => Math.max(1, Math.min(vp.height - 2, y));
    const from = vertical
      ? { x: clampX(at.x), y: clampY(at.y + sign * d / 2) }
      : { x: clampX(at.x + sign * d / 2), y: clampY(at.y) };
    const to = vertical
      ? { x: clampX(at.x), y: clampY(at.y - sign * d / 2) }
      : { x: clampX(at.x - sign * d / 2), y: clampY(at.y) };
    await this.swipe(from, to);
  }

  scrollTo(_position: Point): Promise<void> {
    return Promise.reject(
      new DriverError(
        "Cannot scroll to an absolute position on Android: use scroll with a direction",
        "unsupported_action",
      ),
    );
  }

  async select(point: Point, value: string): Promise<void> {
    await this.tap(point);
    const options = await this.#do(
      `Cannot select ${JSON.stringify(value)}`,
      () =>
        this.#client.findElements(
          "-android uiautomator",
          `new UiSelector().text(${uiString(value)})`,
        ),
    );
    const id = options[0];
    if (id === undefined) {
      throw new DriverError(
        `Cannot select ${JSON.stringify(value)}: no option with that text`,
        "no_such_element",
      );
    }
    const rect = await this.#do("Cannot select", () => this.#client.elementRect(id));
    await this.tap({ x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 });
  }

  async check(point: Point, checked: boolean): Promise<void> {
    const { screen } = await this.snapshot();
    const node = deepestAt(screen.root, point, (n) => n.checkable);
    if (node === undefined) {
      throw new DriverError(
        `Cannot check at (${Math.round(point.x)}, ${
          Math.round(point.y)
        }): no checkable element there`,
        "no_such_element",
      );
    }
    if (node.checked !== checked) await this.tap(point);
  }

  /**
   * Opens an app or a deep link: `android-app://<package>/` activates the app,
   * `android-app://<package>/<activity>` (or `<package>/<activity>`) starts the activity, any
   * other url is sent as a deep link (`mobile: deepLink`). The final url is where the device
   * landed (`android-app://<package>/<activity>`), or the url asked for when the device shows
   * what it names: the app's package for an app url, any app for a deep link (a device does
   * not expose the url an app displays).
   */
  async navigate(url: string): Promise<NavigationResult> {
    this.#settled = undefined;
    const started = performance.now();
    await this.#do(`Cannot open ${url}`, async () => {
      const component = /^([\w.]+)\/([\w.$]+)$/.exec(url) ??
        /^android-app:\/\/([\w.]+)\/([\w.$]+)$/.exec(url);
      const app = /^android-app:\/\/([\w.]+)\/?$/.exec(url);
      if (component) {
        const intent = `${component[1]}/${component[2]}`;
        await this.#client.execute("mobile: startActivity", [{ intent, wait: true }]);
      } else if (app) {
        await this.#client.execute("mobile: activateApp", [{ appId: app[1] }]);
      } else {
        await this.#client.execute("mobile: deepLink", [{ url, waitForLaunch: true }]);
      }
    });
    await this.waitForSettle();
    return {
      requestedUrl: url,
      finalUrl: landedUrl(url, await this.url()),
      waitedFor: "load",
      durationMs: performance.now() - started,
    };
  }

  /**
   * Waits until two page sources `quietMs` apart are the same (each read is a device round trip,
   * so it reads as few as that takes), at most `timeoutMs`. The settled source serves the next
   * {@linkcode AndroidDriver.snapshot} if no action comes between.
   */
  async waitForSettle(options: { quietMs?: number; timeoutMs?: number } = {}): Promise<void> {
    const quietMs = options.quietMs ?? 300;
    const deadline = performance.now() + (options.timeoutMs ?? 5_000);
    let last = await this.#source();
    while (performance.now() < deadline) {
      await new Promise((r) =>
        setTimeout(r, Math.min(quietMs, Math.max(0, deadline - performance.now())))
      );
      const now = await this.#source();
      if (now === last) {
        this.#settled = { xml: now, at: performance.now() };
        return;
      }
      last = now;
    }
  }

  async viewport(): Promise<Viewport> {
    if (this.#viewport) return this.#viewport;
    const rect = await this.#do("Cannot read the screen size", () => this.#client.windowRect());
    let ratio = 1;
    try {
      const info = await this.#client.execute("mobile: deviceInfo", []);
      const density = Number((info as { displayDensity?: unknown } | null)?.displayDensity);
      if (Number.isFinite(density) && density > 0) ratio = density / 160;
    } catch {
      // Density is informative only; a server without deviceInfo keeps ratio 1.
    }
    this.#viewport = { width: rect.width, height: rect.height, devicePixelRatio: ratio };
    return this.#viewport;
  }

  async url(): Promise<string> {
    try {
      const pkg = await this.#client.execute("mobile: getCurrentPackage", []);
      const activity = await this.#client.execute("mobile: getCurrentActivity", []);
      if (typeof pkg !== "string" || pkg === "") return "";
      return `android-app://${pkg}/${typeof activity === "string" ? activity : ""}`;
    } catch {
      return "";
    }
  }

  async tabs(): Promise<TabInfo[]> {
    return [{ id: MAIN_TAB, url: await this.url(), active: true }];
  }

  switchTab(id: string): Promise<void> {
    if (id === MAIN_TAB) return Promise.resolve();
    return Promise.reject(
      new DriverError(
        `Cannot switch to tab ${JSON.stringify(id)}: a device has one screen`,
        "no_such_tab",
      ),
    );
  }

  async find(query: FindQuery): Promise<FoundElement[]> {
    if (query.using === ANDROID_ROW_ANCHORED) {
      // UiAutomator has no row-anchored query: answered over the page source with UiAutomator2's
      // matching rules, as on a captured screen (a selector it cannot read: a SyntaxError).
      const { screen } = await this.snapshot();
      return new ScreenFinder(screen).findSync(query).map(({ handle: _, ...found }) => found);
    }
    if (!ANDROID_STRATEGIES.includes(query.using)) {
      throw new DriverError(
        `Cannot find by ${JSON.stringify(query.using)} on Android: use ${
          ANDROID_STRATEGIES.join(", ")
        }`,
        "unsupported_strategy",
      );
    }
    return await this.#do(`Cannot find ${query.using}=${query.value}`, async () => {
      const ids = await this.#client.findElements(query.using, query.value);
      const found: FoundElement[] = [];
      for (const id of ids.slice(0, MAX_FOUND)) {
        // Sent together: Appium queues a session's commands, but the round trips overlap.
        const [rect, displayed, enabled, text] = await Promise.all([
          this.#client.elementRect(id),
          this.#client.elementAttribute(id, "displayed"),
          this.#client.elementAttribute(id, "enabled"),
          this.#client.elementAttribute(id, "text"),
        ]);
        found.push({
          bounds: { x: rect.x, y: rect.y, w: rect.width, h: rect.height },
          visible: displayed !== "false",
          enabled: enabled !== "false",
          handle: id,
          ...(text ? { text } : {}),
        });
      }
      return found;
    });
  }

  /**
   * Starts recording the device's screen (Appium's `start_recording_screen`; a replay's video).
   *
   * @throws {DriverError} when the device or driver cannot record
   */
  async startRecordingScreen(): Promise<void> {
    // the longest recording Appium allows (30 min), not its 3 min default
    await this.#do(
      "Cannot start the screen recording",
      () => this.#client.startRecordingScreen({ timeLimit: 1800 }),
    );
  }

  /**
   * Stops the screen recording.
   *
   * @returns the video (MP4)
   */
  async stopRecordingScreen(): Promise<Uint8Array> {
    const b64 = await this.#do(
      "Cannot stop the screen recording",
      () => this.#client.stopRecordingScreen(),
    );
    return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  }

  /** The screen of the last snapshot, if any. */
  get lastScreen(): Screen | undefined {
    return this.#lastScreen;
  }

  async close(): Promise<void> {
    try {
      await this.#client.deleteSession();
    } catch {
      // The session may already be gone (server stopped, device unplugged): closing still succeeds.
    } finally {
      await this.#server?.stop();
    }
  }

  #source(): Promise<string> {
    this.#sourcing ??= this.#do("Cannot read the page source", () => this.#client.source())
      .finally(() => this.#sourcing = undefined);
    return this.#sourcing;
  }

  async #actions(doing: string, actions: W3cAction[]): Promise<void> {
    this.#settled = undefined;
    const seq: PointerSequence = {
      type: "pointer",
      id: "finger1",
      parameters: { pointerType: "touch" },
      actions,
    };
    await this.#do(doing, () => this.#client.performActions([seq]));
  }

  async #do<T>(doing: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toDriverError(err, doing);
    }
  }
}

/**
 * The final url of a navigation, from the url asked for and the device's `android-app://` url.
 *
 * @param requested the url navigated to
 * @param landed `android-app://<package>/<activity>` of the foreground app ("" when unknown)
 * @returns `requested` when the device is where it names, else `landed`
 */
export function landedUrl(requested: string, landed: string): string {
  if (landed === "") return requested;
  const app = /^android-app:\/\/([\w.]+)\/?$/.exec(requested);
  if (app) return landed.startsWith(`android-app://${app[1]}/`) ? requested : landed;
  if (requested.startsWith("android-app://") || /^[\w.]+\/[\w.$]+$/.test(requested)) {
    return landed;
  }
  return requested; // a deep link: the app that opened it shows it
}

/** A point rounded to whole device pixels (W3C pointer moves take integers). */
function devicePoint(p: Point): Point {
  return { x: Math.round(p.x), y: Math.round(p.y) };
}

/** Quotes a string for a UiSelector argument. */
function uiString(s: string): string {
  return `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** The deepest node containing the point that passes `accept`, in document order. */
function deepestAt(root: UiNode, p: Point, accept: (n: UiNode) => boolean): UiNode | undefined {
  let best: UiNode | undefined;
  let bestDepth = -1;
  for (const [n, depth] of walk(root)) {
    const b = n.bounds;
    if (
      p.x >= b.x && p.x < b.x + b.w && p.y >= b.y && p.y < b.y + b.h && accept(n) &&
      depth >= bestDepth
    ) {
      best = n;
      bestDepth = depth;
    }
  }
  return best;
}
