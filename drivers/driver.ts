/**
 * The one `Driver` interface: what Cairn needs of a browser or a device to capture and replay.
 * `drivers/chrome/` implements it with puppeteer-core, `drivers/android/` over Appium's
 * W3C WebDriver protocol.
 *
 * Points are in the screen's own pixel space: CSS pixels relative to the viewport on the web,
 * device pixels on Android.
 *
 * @module
 */
import type { Bounds, HierarchyFormat, Platform, Point, Screen } from "../engine/screens/mod.ts";
import type { HandledDialog } from "../events/mod.ts";
import type { MouseButton } from "../engine/playback/mod.ts";
import type { ScopeLookup } from "../engine/playback/mod.ts";

export type { HandledDialog };

/** Raised when the browser or device fails a command; says what failed and what is missing. */
export class DriverError extends Error {
  override name = "DriverError";
  constructor(message: string, readonly code = "driver_error", options?: ErrorOptions) {
    super(message, options);
  }
}

/** A snapshot: the parsed screen and the raw hierarchy it came from (stored as a blob). */
export interface Snapshot {
  screen: Screen;
  raw: { bytes: Uint8Array; mediaType: string; format: HierarchyFormat };
}

/** Viewport (web) or screen (device) size and pixel ratio. */
export interface Viewport {
  width: number;
  height: number;
  devicePixelRatio: number;
}

/**
 * A native element lookup, for replay. `using` names the strategy in the driver's own terms:
 * web `css` (pierces shadow DOM), `aria` (role + name: `value` is `role|name`), `text`, `xpath`;
 * Android `id`, `accessibility id`, `-android uiautomator`, `xpath`.
 */
export interface FindQuery {
  using: string;
  value: string;
  /**
   * A row-anchored lookup in parts (`RowAnchored` of `engine/playback/cascade.ts`): on the web,
   * an `xpath` lookup's parts, which a finder may evaluate instead of `value` (and must then
   * find the same elements); on Android, what a `-cairn row anchored` lookup finds.
   */
  anchored?: { element: string; texts: string[] };
  /**
   * A lookup scoped under an ancestor (`using` is `-cairn within`, `WEB_WITHIN` of
   * `engine/playback/cascade.ts`): `query`'s elements inside the elements `scope` matches. The
   * Chrome driver answers it, throwing a `DriverError` coded `scope_not_found` naming the
   * ancestor when it matches nothing; a finder that does not know it throws (no match), never
   * drops the scope.
   */
  scoped?: { query: FindQuery; scope: ScopeLookup };
}

/** An element a lookup found. */
export interface FoundElement {
  bounds: Bounds;
  visible: boolean;
  enabled: boolean;
  /** Driver-specific handle (WebDriver element id, CSS path) for acting on this element. */
  handle?: string;
  text?: string;
}

/** The result of a navigation. */
export interface NavigationResult {
  /** The url asked for. */
  requestedUrl: string;
  /** The url landed on after redirects. */
  finalUrl: string;
  /** How readiness was decided: the load event, DOM stability (SPA), or the 5 s cap. */
  waitedFor: "load" | "dom_stable" | "timeout";
  durationMs: number;
  /** The HTTP status of the page landed on (web; none for a same-document navigation). */
  status?: number;
  /** Its reason phrase as the server sent it (empty over HTTP/2). */
  statusText?: string;
}

/**
 * How the active tab's main document last answered: a load of a new document (a navigation, a
 * followed link, a form post), not a same-document (SPA) change.
 */
export interface DocumentAnswer {
  /** Grows with every answer the driver sees (any tab): a new value is a new document. */
  seq: number;
  /** The url the document was asked for (after redirects). */
  url: string;
  /** Its HTTP status, when the server answered. */
  status?: number;
  /** The reason phrase as the server sent it (empty over HTTP/2). */
  statusText?: string;
  /** The network error (`net::ERR_CONNECTION_REFUSED`) that left the browser's own error page. */
  error?: string;
}

export type Direction = "up" | "down" | "left" | "right";

/** A browser tab. */
export interface TabInfo {
  id: string;
  url: string;
  active: boolean;
}

/**
 * How a tool result or a playback report names the dialogs a driver answered.
 *
 * @param dialogs the dialogs, oldest first
 * @returns e.g. `Dialogs answered since the last action: alert "Saved" (accepted)`
 * @example
 * ```ts
 * const line = describeDialogs([{ type: "confirm", message: "Sure?", response: "dismissed" }]);
 * if (line !== 'Dialogs answered since the last action: confirm "Sure?" (dismissed)') throw new Error();
 * ```
 */
export function describeDialogs(dialogs: readonly HandledDialog[]): string {
  const each = dialogs.map((d) =>
    `${d.type}${d.message ? ` ${JSON.stringify(d.message)}` : ""} (${d.response})`
  );
  return `Dialogs answered since the last action: ${each.join(", ")}`;
}

/** A browser or device Cairn can drive. */
export interface Driver {
  readonly platform: Platform;
  /** The current screen: parsed hierarchy plus its raw form. */
  snapshot(): Promise<Snapshot>;
  /** A PNG of the current screen. */
  screenshot(): Promise<Uint8Array>;
  /**
   * Values to hide wherever they show in later screenshots (memory marked secret); a driver that
   * cannot find text on its screen leaves this out.
   */
  addSecrets?(values: Iterable<string>): void;
  tap(point: Point): Promise<void>;
  /**
   * Clicks at `point` with a mouse button other than the main one, or `count` times in a row
   * (2: a double click, which fires `dblclick`). Drivers without a mouse leave it out: the
   * player then skips such a click as unsupported.
   */
  click?(point: Point, options: { button?: MouseButton; count?: number }): Promise<void>;
  /**
   * Moves the mouse to `point` without clicking (`mouseover`, `mouseenter`, CSS `:hover`).
   * Drivers without a mouse leave it out: the player then skips a hover as unsupported.
   */
  hover?(point: Point): Promise<void>;
  /**
   * Presses at `point`, holds `durationMs`, releases there (a long press). Drivers without it
   * leave it out: the player then fails a long press as unsupported.
   */
  longPress?(point: Point, durationMs: number): Promise<void>;
  /**
   * Drags one pointer from `from` to `to` over `durationMs` (a swipe: the web's mouse, a
   * device's finger). Drivers without it leave it out: the player then fails a swipe.
   */
  swipe?(from: Point, to: Point, durationMs?: number): Promise<void>;
  /**
   * Goes back one page in the tab's history and waits for it (web); throws a
   * {@linkcode DriverError} when there is no earlier page. Drivers without it press `Back`.
   */
  back?(): Promise<NavigationResult>;
  /** Shows the tab's page again (the browser's reload) and waits for it (web). */
  reload?(): Promise<NavigationResult>;
  /** Opens a new blank tab and makes it the active one; returns its id (web). */
  openTab?(): Promise<string>;
  /** Types into the element at `point` (focusing it first, clearing it when `clear`) or the focused one. */
  type(text: string, options?: { point?: Point; clear?: boolean }): Promise<void>;
  /** Presses a key by its name: `Enter`, `Tab`, `Escape`, `Back`, `ArrowDown`, … */
  press(key: string): Promise<void>;
  /**
   * Gives the element at `point` the focus without clicking it (a key press replayed into the
   * element that had the focus). Drivers without it tap a text field to focus it.
   */
  focus?(point: Point): Promise<void>;
  /** Scrolls the element at `point` (or the page) in a direction by `distance` pixels. */
  scroll(direction: Direction, options?: { point?: Point; distance?: number }): Promise<void>;
  /** Scrolls the page to an absolute position (web; devices may throw). */
  scrollTo(position: Point): Promise<void>;
  /** Selects an option by value or visible text in the select at `point`. */
  select(point: Point, value: string): Promise<void>;
  /** Sets a checkbox or switch at `point` to `checked`. */
  check(point: Point, checked: boolean): Promise<void>;
  navigate(url: string): Promise<NavigationResult>;
  /** Waits until the page or screen is settled (no DOM mutation for `quietMs`), at most `timeoutMs`. */
  waitForSettle(options?: { quietMs?: number; timeoutMs?: number }): Promise<void>;
  viewport(): Promise<Viewport>;
  url(): Promise<string>;
  tabs(): Promise<TabInfo[]>;
  /** Makes a tab the one every later command targets. */
  switchTab(id: string): Promise<void>;
  /**
   * How the active tab's main document last answered (its HTTP status, or the network error
   * behind the browser's error page), for a caller to tell an action that led to an error page.
   * Platforms without documents leave it out.
   */
  documentAnswer?(): DocumentAnswer | undefined;
  /** Finds elements with a native lookup (replay). */
  find(query: FindQuery): Promise<FoundElement[]>;
  /**
   * The JavaScript dialogs answered since the last call, oldest first (the list is emptied).
   * Platforms without JavaScript dialogs leave it out.
   */
  takeDialogs?(): HandledDialog[];
  close(): Promise<void>;
  /**
   * Lets go at once, for a page or device that stopped answering: a browser Cairn launched is
   * killed rather than asked to close. Drivers without such a way leave it out (`close` then).
   */
  kill?(): Promise<void>;
}
