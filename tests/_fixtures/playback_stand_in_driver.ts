/**
 * A stand-in for a browser, for the playback engine's unit tests only: an in-memory page of
 * elements that answers the lookups the cascade issues (`css` attribute selectors and paths,
 * `aria` role|name, the cascade's text XPaths) and records every input. The real tests run in
 * Chromium (`tests/runners/playback/playback_chrome_test.ts`); this exists so the planning, error modes and
 * report can be tested without a browser, and so dispatch overhead can be measured apart
 * from the browser's own time.
 *
 * @module
 */
import type {
  Direction,
  Driver,
  FindQuery,
  FoundElement,
  NavigationResult,
  Snapshot,
  TabInfo,
  Viewport,
} from "../../drivers/driver.ts";
import { makeNode, type Point, type UiNode } from "../../engine/screens/ui_node.ts";

/** An element of the stand-in page. */
export interface StandInElement {
  ident: string;
  role: string;
  name?: string;
  testId?: string;
  ariaLabel?: string;
  id?: string;
  text?: string;
  cssPath?: string;
  bounds: { x: number; y: number; w: number; h: number };
  visible?: boolean;
  enabled?: boolean;
}

/** One input the stand-in received. */
export interface StandInInput {
  kind: string;
  ident?: string;
  point?: Point;
  text?: string;
  url?: string;
  key?: string;
}

/** Options of the stand-in. */
export interface StandInOptions {
  viewport?: Viewport;
  /** Url → url a navigation lands on (redirects). */
  redirects?: Record<string, string>;
  /** Milliseconds every command takes (a slow page). */
  latencyMs?: number;
  /** Pages by url: a navigation swaps the elements. */
  pages?: Record<string, StandInElement[]>;
}

/** A stand-in browser tab implementing {@linkcode Driver} in memory. */
export class StandInDriver implements Driver {
  readonly platform = "web" as const;
  inputs: StandInInput[] = [];
  elements: StandInElement[];
  #url = "about:blank";
  #options: StandInOptions;
  /** Time spent inside driver calls (ms). */
  busyMs = 0;

  constructor(elements: StandInElement[] = [], options: StandInOptions = {}) {
    this.elements = elements;
    this.#options = options;
  }

  async #work<T>(fn: () => T): Promise<T> {
    const t0 = performance.now();
    if (this.#options.latencyMs) await new Promise((r) => setTimeout(r, this.#options.latencyMs));
    const v = fn();
    this.busyMs += performance.now() - t0;
    return v;
  }

  #at(point: Point): StandInElement | undefined {
    return [...this.elements].reverse().find((e) =>
      (e.visible ?? true) && point.x >= e.bounds.x && point.y >= e.bounds.y &&
      point.x <= e.bounds.x + e.bounds.w && point.y <= e.bounds.y + e.bounds.h
    );
  }

  snapshot(): Promise<Snapshot> {
    return this.#work(() => {
      const children: UiNode[] = this.elements.map((e) =>
        makeNode({
          className: e.role,
          role: e.role,
          name: e.name ?? "",
          text: e.text ?? "",
          bounds: e.bounds,
          visible: e.visible ?? true,
          clickable: ["button", "link", "textbox", "checkbox", "combobox"].includes(e.role),
        })
      );
      const vp = this.#options.viewport ?? { width: 1280, height: 800, devicePixelRatio: 1 };
      return {
        screen: {
          platform: "web" as const,
          format: "chrome" as const,
          root: makeNode({
            className: "RootWebArea",
            bounds: { x: 0, y: 0, w: vp.width, h: vp.height },
            children,
          }),
          width: vp.width,
          height: vp.height,
        },
        raw: { bytes: new Uint8Array(), mediaType: "application/json", format: "chrome" as const },
      };
    });
  }
  screenshot(): Promise<Uint8Array> {
    return this.#work(() => new Uint8Array([0x89, 0x50, 0x4e, 0x47, this.inputs.length]));
  }
  tap(point: Point): Promise<void> {
    return this.#work(() => {
      this.inputs.push({ kind: "tap", point, ...(this.#ident(point)) });
    });
  }
  type(text: string, options: { point?: Point; clear?: boolean } = {}): Promise<void> {
    return this.#work(() => {
      this.inputs.push({
        kind: "type",
        text,
        ...(options.point ? { point: options.point, ...this.#ident(options.point) } : {}),
      });
    });
  }
  #ident(point: Point): { ident?: string } {
    const e = this.#at(point);
    return e ? { ident: e.ident } : {};
  }
  press(key: string): Promise<void> {
    return this.#work(() => void this.inputs.push({ kind: "press", key }));
  }
  scroll(_direction: Direction, options: { point?: Point } = {}): Promise<void> {
    return this.#work(() =>
      void this.inputs.push({ kind: "scroll", ...(options.point ? { point: options.point } : {}) })
    );
  }
  scrollTo(position: Point): Promise<void> {
    return this.#work(() => void this.inputs.push({ kind: "scrollTo", point: position }));
  }
  select(point: Point, value: string): Promise<void> {
    return this.#work(() =>
      void this.inputs.push({ kind: "select", point, text: value, ...this.#ident(point) })
    );
  }
  check(point: Point, checked: boolean): Promise<void> {
    return this.#work(() =>
      void this.inputs.push({ kind: "check", point, text: String(checked), ...this.#ident(point) })
    );
  }
  navigate(url: string): Promise<NavigationResult> {
    return this.#work(() => {
      const finalUrl = this.#options.redirects?.[url] ?? url;
      this.#url = finalUrl;
      const page = this.#options.pages?.[finalUrl];
      if (page) this.elements = page;
      this.inputs.push({ kind: "navigate", url });
      return { requestedUrl: url, finalUrl, waitedFor: "load" as const, durationMs: 1 };
    });
  }
  waitForSettle(): Promise<void> {
    return this.#work(() => {});
  }
  viewport(): Promise<Viewport> {
    return this.#work(() =>
      this.#options.viewport ?? { width: 1280, height: 800, devicePixelRatio: 1 }
    );
  }
  url(): Promise<string> {
    return this.#work(() => this.#url);
  }
  tabs(): Promise<TabInfo[]> {
    return this.#work(() => [{ id: "tab-1", url: this.#url, active: true }]);
  }
  switchTab(_id: string): Promise<void> {
    return this.#work(() => {});
  }
  find(query: FindQuery): Promise<FoundElement[]> {
    return this.#work(() =>
      this.elements.filter((e) => matches(e, query)).map((e) => ({
        bounds: e.bounds,
        visible: e.visible ?? true,
        enabled: e.enabled ?? true,
        ...(e.text ? { text: e.text } : {}),
      }))
    );
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

function matches(e: StandInElement, q: FindQuery): boolean {
  if (q.using === "aria") {
    const [role, name] = q.value.split("|");
    return (!role || e.role === role) && (e.name ?? e.ariaLabel ?? e.text) === name;
  }
  if (q.using === "css") {
    const attr = /^\[([\w-]+)="((?:[^"\\]|\\.)*)"\]$/.exec(q.value);
    if (attr) {
      const v = attr[2]!.replace(/\\(.)/g, "$1");
      if (attr[1] === "data-testid") return e.testId === v;
      if (attr[1] === "aria-label") return e.ariaLabel === v;
      if (attr[1] === "id") return e.id === v;
      return false;
    }
    return e.cssPath === q.value;
  }
  if (q.using === "xpath") {
    const lit = /= "([^"]*)"\]/.exec(q.value)?.[1];
    if (lit === undefined || e.text === undefined) return false;
    if (q.value.includes("text()[")) return e.text === lit;
    if (q.value.includes("translate(")) return norm(e.text).toLowerCase() === lit;
    return norm(e.text) === lit;
  }
  return false;
}

function norm(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}
