/**
 * A STAND-IN for Appium's UiAutomator2 WebDriver endpoints — not Appium, not a device.
 *
 * No Android device or emulator can run on these machines, so the Android driver is tested
 * against this `Deno.serve` on 127.0.0.1. It speaks the W3C endpoints Cairn's driver uses (new
 * session, source, screenshot, window rect, actions, element find by `id`, `accessibility id`,
 * `-android uiautomator` (nested `childSelector` chains included) and simple `xpath`, element
 * rect/attribute/text/clear/value, active element, `execute/sync` for `mobile:` commands, the
 * legacy `appium/device/press_keycode`),
 * serves REAL page sources (those of `../shared/corpus/android/`), and records every command it
 * receives so tests can check what the driver sent. Its lookups run over its own small XML reader, independent of Cairn's parser.
 *
 * A scripted "app": `onTap` / `onKey` hooks may switch the served screen, the way an app
 * navigates.
 *
 * @module
 */

import { Buffer } from "node:buffer";

/** One command the stand-in received. */
export interface StandinCommand {
  method: string;
  /** Path without the `/session/<id>` prefix (`/elements`, `/actions`, `/execute/sync`). */
  path: string;
  body?: Record<string, unknown>;
}

/** An element of a served page source. */
export interface StandinNode {
  tag: string;
  attrs: Record<string, string>;
  children: StandinNode[];
  parent?: StandinNode;
  /** Document order index. */
  order: number;
  /** Where its start tag sits in the source: [start, end). */
  span: [number, number];
}

/** A tap or swipe the stand-in saw, decoded from W3C pointer actions. */
export interface StandinGesture {
  kind: "tap" | "swipe";
  from: { x: number; y: number };
  to: { x: number; y: number };
}

/** A key press the stand-in received. */
export interface StandinKey {
  keycode: number;
  metastate: number;
  via: "mobile: pressKey" | "press_keycode";
}

/** Options of {@linkcode startAndroidStandin}. */
export interface StandinOptions {
  /** Screens by name: page-source XML text. */
  screens: Record<string, string>;
  /** The screen served first (default: the first). */
  initial?: string;
  /** Called on a tap: returns the screen to switch to, or undefined to stay. */
  onTap?: (
    point: { x: number; y: number },
    hit: StandinNode | undefined,
    screen: string,
  ) => string | undefined;
  /**
   * Called on a key press (`mobile: pressKey` or `press_keycode`): returns the screen to switch
   * to, or undefined to stay.
   */
  onKey?: (keycode: number, screen: string, metastate: number) => string | undefined;
  /** Reject new sessions with this Appium-style message (to test error mapping). */
  refuseSession?: string;
  /** The PNG `/screenshot` serves (default: a 1×1 image). */
  screenshot?: Uint8Array;
  /**
   * The MP4 `stop_recording_screen` answers (Appium's screen recording); without it the
   * recording commands are unknown, as on a driver that cannot record.
   */
  screenRecording?: Uint8Array;
}

/** A running stand-in. */
export interface AndroidStandin {
  url: string;
  /** Every command received, in order. */
  commands: StandinCommand[];
  /** Gestures decoded from `POST /actions`. */
  gestures: StandinGesture[];
  /** Text sent to elements (`POST /element/:id/value`), with the element's resource-id. */
  typed: { resourceId: string; text: string }[];
  /**
   * Key presses, as a device receives them: the key code and the `KeyEvent` meta state (0 when
   * none was sent), from `mobile: pressKey` or the legacy `POST /appium/device/press_keycode`.
   */
  keys: StandinKey[];
  /** The name of the screen now served. */
  screen(): string;
  /** Serves another screen (by name). */
  show(name: string): void;
  close(): Promise<void>;
}

const ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf";
/** A 1×1 grey PNG: the stand-in has no pixels to show. */
const PNG_1X1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNoAAAAggCBd81ytgAAAABJRU5ErkJggg==";

/**
 * Starts the stand-in on a free port of 127.0.0.1.
 *
 * @param options the screens and the app's navigation hooks
 * @returns the running stand-in
 */
export function startAndroidStandin(options: StandinOptions): AndroidStandin {
  const names = Object.keys(options.screens);
  let current = options.initial ?? names[0]!;
  let version = 0;
  const parsed = new Map<string, StandinNode[]>();
  const nodesOf = (name: string): StandinNode[] => {
    let nodes = parsed.get(name);
    if (!nodes) {
      nodes = flatten(readXml(options.screens[name]!));
      parsed.set(name, nodes);
    }
    return nodes;
  };
  const commands: StandinCommand[] = [];
  const gestures: StandinGesture[] = [];
  const typed: { resourceId: string; text: string }[] = [];
  const keys: StandinKey[] = [];
  /** A key press: checked as a device would (an integer code, integer flags), then recorded. */
  const pressKey = (args: Record<string, unknown> | undefined, via: StandinKey["via"]) => {
    const keycode = args?.keycode;
    const metastate = args?.metastate ?? 0;
    if (!Number.isInteger(keycode) || !Number.isInteger(metastate)) {
      return err(400, "invalid argument", "stand-in: keycode and metastate must be integers");
    }
    keys.push({ keycode: keycode as number, metastate: metastate as number, via });
    const next = options.onKey?.(keycode as number, current, metastate as number);
    if (next !== undefined) show(next);
    return ok(null);
  };
  const sessionId = "standin-session-1";
  let open = false;

  /** Element focused by a tap on an editable field (document order), on the current screen. */
  let focusedOrder: number | undefined;
  const show = (name: string) => {
    if (!(name in options.screens)) throw new Error(`stand-in: no screen ${name}`);
    current = name;
    version++;
    focusedOrder = undefined;
  };
  const nodeById = (id: string): StandinNode | undefined => {
    const m = /^(\d+)-(\d+)$/.exec(id);
    if (!m || Number(m[1]) !== version) return undefined;
    return nodesOf(current)[Number(m[2])];
  };
  const ref = (n: StandinNode) => ({ [ELEMENT_KEY]: `${version}-${n.order}` });
  /** Text typed into fields, by screen: the served source shows it, as a device would. */
  const edited = new Map<string, Set<StandinNode>>();
  const setText = (node: StandinNode, text: string) => {
    node.attrs.text = text;
    const set = edited.get(current) ?? new Set<StandinNode>();
    set.add(node);
    edited.set(current, set);
  };
  const sourceOf = (name: string): string => {
    let xml = options.screens[name]!;
    const nodes = [...(edited.get(name) ?? [])].sort((a, b) => b.span[0] - a.span[0]);
    for (const n of nodes) {
      const tag = xml.slice(n.span[0], n.span[1]);
      const shown = n.attrs.password === "true" // Android masks password fields in dumps
        ? "\u2022".repeat([...(n.attrs.text ?? "")].length)
        : n.attrs.text ?? "";
      const attr = `text="${escapeXml(shown)}"`;
      const next = /\stext="[^"]*"/.test(tag)
        ? tag.replace(/(\s)text="[^"]*"/, `$1${attr}`)
        : tag.replace(/^<[\w.$:-]+/, (open) => `${open} ${attr}`);
      xml = xml.slice(0, n.span[0]) + next + xml.slice(n.span[1]);
    }
    return xml;
  };

  const handler = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    let body: Record<string, unknown> | undefined;
    if (req.method === "POST") {
      const text = await req.text();
      body = text ? JSON.parse(text) as Record<string, unknown> : {};
    }
    if (url.pathname === "/status") {
      return ok({ ready: true, message: "stand-in", build: { version: "stand-in" } });
    }
    if (url.pathname === "/session" && req.method === "POST") {
      commands.push({ method: "POST", path: "/session", ...(body ? { body } : {}) });
      if (options.refuseSession) return err(500, "unknown error", options.refuseSession);
      open = true;
      const caps = (body?.capabilities as { alwaysMatch?: Record<string, unknown> })?.alwaysMatch ??
        {};
      return ok({ sessionId, capabilities: { ...caps, deviceName: "stand-in" } });
    }
    const m = /^\/session\/([^/]+)(\/.*)?$/.exec(url.pathname);
    if (!m) return err(404, "unknown command", `stand-in: no route ${req.method} ${url.pathname}`);
    if (m[1] !== sessionId || !open) {
      return err(404, "invalid session id", "stand-in: no such session");
    }
    const path = m[2] ?? "";
    commands.push({ method: req.method, path, ...(body ? { body } : {}) });
    const nodes = nodesOf(current);
    const root = nodes[0]!;

    if (path === "" && req.method === "DELETE") {
      open = false;
      return ok(null);
    }
    if (path === "/source") return ok(sourceOf(current));
    if (path === "/screenshot") {
      return ok(options.screenshot ? Buffer.from(options.screenshot).toString("base64") : PNG_1X1);
    }
    if (path === "/window/rect") {
      const size = screenSize(root, nodes);
      return ok({ x: 0, y: 0, width: size.width, height: size.height });
    }
    if (path === "/actions") {
      if (req.method === "DELETE") return ok(null);
      const g = decodeGesture(body);
      if (!g) return err(400, "invalid argument", "stand-in: expected one touch pointer sequence");
      gestures.push(g);
      if (g.kind === "tap") {
        const hit = hitTest(nodes, g.from);
        if (hit && /Edit|AutoCompleteTextView/.test(className(hit))) focusedOrder = hit.order;
        const next = options.onTap?.(g.from, hit, current);
        if (next !== undefined) show(next);
      }
      return ok(null);
    }
    if (path === "/appium/start_recording_screen" && options.screenRecording) return ok(null);
    if (path === "/appium/stop_recording_screen" && options.screenRecording) {
      return ok(Buffer.from(options.screenRecording).toString("base64"));
    }
    if (path === "/appium/device/press_keycode" && req.method === "POST") {
      return pressKey(body, "press_keycode");
    }
    if (path === "/execute/sync") {
      const script = String(body?.script ?? "");
      const arg = ((body?.args as unknown[]) ?? [])[0] as Record<string, unknown> | undefined;
      switch (script) {
        case "mobile: pressKey":
          return pressKey(arg, "mobile: pressKey");
        case "mobile: deviceInfo":
          return ok({
            displayDensity: 420,
            realDisplaySize: `${screenSize(root, nodes).width}x${screenSize(root, nodes).height}`,
          });
        case "mobile: getCurrentPackage":
          return ok(firstPackage(nodes));
        case "mobile: getCurrentActivity":
          return ok(".MainActivity");
        case "mobile: type":
        case "mobile: startActivity":
        case "mobile: activateApp":
        case "mobile: deepLink":
          return ok(null);
        default:
          return err(404, "unknown method", `stand-in: unsupported ${script}`);
      }
    }
    if (path === "/elements" || path === "/element") {
      let found: StandinNode[];
      try {
        found = findNodes(nodes, String(body?.using), String(body?.value));
      } catch (e) {
        return err(400, "invalid selector", (e as Error).message);
      }
      if (path === "/elements") return ok(found.map(ref));
      if (found.length === 0) {
        return err(
          404,
          "no such element",
          "An element could not be located on the page using the given search parameters.",
        );
      }
      return ok(ref(found[0]!));
    }
    if (path === "/element/active") {
      const focused = focusedOrder !== undefined
        ? nodes[focusedOrder]
        : nodes.find((n) => n.attrs.focused === "true");
      return focused ? ok(ref(focused)) : err(404, "no such element", "No element is focused");
    }
    const el =
      /^\/element\/([^/]+)\/(rect|attribute\/([^/]+)|text|clear|value|click|displayed|enabled)$/
        .exec(path);
    if (el) {
      const node = nodeById(decodeURIComponent(el[1]!));
      if (!node) {
        return err(
          404,
          "stale element reference",
          "The element is not attached to the current page source",
        );
      }
      const b = parseBounds(node.attrs.bounds);
      switch (el[2]) {
        case "rect":
          return ok({ x: b.x, y: b.y, width: b.w, height: b.h });
        case "text":
          return ok(node.attrs.text ?? "");
        case "displayed":
          return ok(isDisplayed(node));
        case "enabled":
          return ok(node.attrs.enabled !== "false");
        case "click":
          return ok(null);
        case "clear":
          setText(node, "");
          return ok(null);
        case "value": {
          const text = String(body?.text ?? "");
          typed.push({ resourceId: node.attrs["resource-id"] ?? "", text });
          setText(node, (node.attrs.text ?? "") + text); // W3C send keys appends
          return ok(null);
        }
        default:
          return ok(attribute(node, decodeURIComponent(el[3]!)));
      }
    }
    return err(404, "unknown command", `stand-in: no route ${req.method} ${path}`);
  };

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    commands,
    gestures,
    typed,
    keys,
    screen: () => current,
    show,
    close: () => server.shutdown(),
  };
}

function ok(value: unknown): Response {
  return Response.json({ value });
}

function err(status: number, error: string, message: string): Response {
  return Response.json({ value: { error, message, stacktrace: "" } }, { status });
}

function decodeGesture(body: Record<string, unknown> | undefined): StandinGesture | undefined {
  const seqs = body?.actions as { type: string; actions: Record<string, unknown>[] }[] | undefined;
  const seq = seqs?.[0];
  if (!seq || seq.type !== "pointer") return undefined;
  const moves = seq.actions.filter((a) => a.type === "pointerMove");
  if (moves.length === 0 || !seq.actions.some((a) => a.type === "pointerDown")) return undefined;
  const from = { x: Number(moves[0]!.x), y: Number(moves[0]!.y) };
  const last = moves[moves.length - 1]!;
  const to = { x: Number(last.x), y: Number(last.y) };
  return { kind: from.x === to.x && from.y === to.y ? "tap" : "swipe", from, to };
}

// ---- the page source, read independently of Cairn's parser ----

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(
    /"/g,
    "&quot;",
  );
}

function decode(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (whole, e: string) => {
    if (e.startsWith("#x")) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith("#")) return String.fromCodePoint(Number(e.slice(1)));
    return ENTITIES[e] ?? whole;
  });
}

/**
 * Reads page-source XML into a tree (elements and attributes only).
 *
 * @param xml the source
 * @returns the root element (`hierarchy`)
 */
export function readXml(xml: string): StandinNode {
  const tagRe =
    /<(\/?)([\w.$:-]+)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|<\?[\s\S]*?\?>|<!--[\s\S]*?-->/g;
  const attrRe = /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
  const stack: StandinNode[] = [];
  let root: StandinNode | undefined;
  for (const m of xml.matchAll(tagRe)) {
    if (m[2] === undefined) continue;
    if (m[1] === "/") {
      stack.pop();
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const a of (m[3] ?? "").matchAll(attrRe)) attrs[a[1]!] = decode(a[2] ?? a[3] ?? "");
    const span: [number, number] = [m.index, m.index + m[0].length];
    const node: StandinNode = { tag: m[2], attrs, children: [], order: 0, span };
    const parent = stack[stack.length - 1];
    if (parent) {
      node.parent = parent;
      parent.children.push(node);
    } else root ??= node;
    if (m[4] !== "/") stack.push(node);
  }
  if (!root) throw new Error("stand-in: no XML element in page source");
  return root;
}

function flatten(root: StandinNode): StandinNode[] {
  const out: StandinNode[] = [];
  const visit = (n: StandinNode) => {
    n.order = out.length;
    out.push(n);
    for (const c of n.children) visit(c);
  };
  visit(root);
  return out;
}

function parseBounds(s: string | undefined): { x: number; y: number; w: number; h: number } {
  const m = /\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]/.exec(s ?? "");
  if (!m) return { x: 0, y: 0, w: 0, h: 0 };
  const [x1, y1, x2, y2] = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])];
  return { x: x1, y: y1, w: x2 - x1, h: y2 - y1 };
}

function screenSize(root: StandinNode, nodes: StandinNode[]): { width: number; height: number } {
  if (root.attrs.width && root.attrs.height) {
    return { width: Number(root.attrs.width), height: Number(root.attrs.height) };
  }
  let width = 0;
  let height = 0;
  for (const n of nodes) {
    const b = parseBounds(n.attrs.bounds);
    width = Math.max(width, b.x + b.w);
    height = Math.max(height, b.y + b.h);
  }
  return { width, height };
}

function firstPackage(nodes: StandinNode[]): string {
  return nodes.find((n) => n.attrs.package && n.attrs.package !== "com.android.systemui")?.attrs
    .package ?? "";
}

function className(n: StandinNode): string {
  return n.attrs.class ?? n.tag;
}

function isDisplayed(n: StandinNode): boolean {
  if (n.attrs.displayed !== undefined) return n.attrs.displayed !== "false";
  if (n.attrs["visible-to-user"] !== undefined) return n.attrs["visible-to-user"] !== "false";
  const b = parseBounds(n.attrs.bounds);
  return b.w > 0 && b.h > 0;
}

function attribute(n: StandinNode, name: string): string | null {
  switch (name) {
    case "displayed":
      return String(isDisplayed(n));
    case "enabled":
      return String(n.attrs.enabled !== "false");
    case "className":
    case "class":
      return className(n);
    case "resourceId":
    case "resource-id":
      return n.attrs["resource-id"] ?? null;
    case "contentDescription":
    case "content-desc":
      return n.attrs["content-desc"] ?? null;
    case "text":
      return n.attrs.text ?? "";
    default:
      return n.attrs[name] ?? null;
  }
}

function hitTest(nodes: StandinNode[], p: { x: number; y: number }): StandinNode | undefined {
  let best: StandinNode | undefined;
  for (const n of nodes) {
    if (n.tag === "hierarchy") continue;
    const b = parseBounds(n.attrs.bounds);
    if (p.x >= b.x && p.x < b.x + b.w && p.y >= b.y && p.y < b.y + b.h) best = n; // later = deeper or on top
  }
  return best;
}

/**
 * Finds nodes by a WebDriver strategy, the way UiAutomator2 answers it.
 *
 * @param nodes the served screen, in document order
 * @param using the strategy
 * @param value the selector
 * @returns matching nodes in document order
 * @throws {Error} on a selector the stand-in cannot read (answered as `invalid selector`)
 */
export function findNodes(nodes: StandinNode[], using: string, value: string): StandinNode[] {
  const elements = nodes.filter((n) => n.tag !== "hierarchy");
  switch (using) {
    case "id": {
      // UiAutomator2 prefixes a bare id with the app package, then tries it as it is.
      return elements.filter((n) => {
        const rid = n.attrs["resource-id"];
        return rid !== undefined && rid !== "" &&
          (rid === value || rid === `${n.attrs.package}:id/${value}` ||
            rid === `android:id/${value}`);
      });
    }
    case "accessibility id":
      return elements.filter((n) => (n.attrs["content-desc"] ?? "") === value && value !== "");
    case "-android uiautomator":
      return uiSelector(elements, value);
    case "xpath":
      return xpath(elements, value);
    default:
      throw new Error(`stand-in: unsupported locator strategy ${using}`);
  }
}

/** Decodes a double-quoted Java string literal. */
function javaString(raw: string): string {
  let out = "";
  for (let i = 1; i < raw.length - 1; i++) {
    const c = raw[i]!;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const next = raw[++i]!;
    out += next === "n" ? "\n" : next === "t" ? "\t" : next;
  }
  return out;
}

/** Java regex (with an optional leading `(?i)`) as a full-match JS RegExp. */
function javaRegex(src: string): RegExp {
  const insensitive = src.startsWith("(?i)");
  return new RegExp(`^(?:${insensitive ? src.slice(4) : src})$`, insensitive ? "is" : "s");
}

/** One call of a UiSelector chain; `childSelector` holds a nested chain. */
type UiCall = [string, string | number | boolean | UiCall[]];

/**
 * Reads `new UiSelector().a("x").b(2).childSelector(new UiSelector()…)` into calls, or throws
 * (answered as `invalid selector`, as UiAutomator2's parser does).
 */
function readUiChain(value: string): UiCall[] {
  const src = value.trim().replace(/;$/, "");
  let at = 0;
  const bad = (): never => {
    throw new Error(`stand-in: cannot read UiSelector ${JSON.stringify(value)} at ${at}`);
  };
  const skip = () => {
    while (/\s/.test(src[at] ?? "")) at++;
  };
  const eat = (re: RegExp): RegExpExecArray | undefined => {
    skip();
    const sticky = new RegExp(re.source, "y");
    sticky.lastIndex = at;
    const m = sticky.exec(src);
    if (m) at = sticky.lastIndex;
    return m ?? undefined;
  };
  const chain = (): UiCall[] => {
    if (!eat(/new\s+UiSelector\(\s*\)/)) bad();
    const calls: UiCall[] = [];
    let m: RegExpExecArray | undefined;
    while ((m = eat(/\.(\w+)\(/))) {
      const name = m[1]!;
      if (name === "childSelector") {
        calls.push([name, chain()]);
      } else {
        const raw = eat(/"(?:[^"\\]|\\.)*"|-?\d+|true|false/)?.[0] ?? bad();
        calls.push([
          name,
          raw.startsWith('"')
            ? javaString(raw)
            : raw === "true"
            ? true
            : raw === "false"
            ? false
            : Number(raw),
        ]);
      }
      if (!eat(/\)/)) bad();
    }
    if (calls.length === 0) bad();
    return calls;
  };
  const calls = chain();
  skip();
  if (at !== src.length) bad();
  return calls;
}

function uiSelector(elements: StandinNode[], value: string): StandinNode[] {
  return matchChain(elements, readUiChain(value), undefined);
}

/** Is `node` a strict descendant of `ancestor`? */
function isUnder(node: StandinNode, ancestor: StandinNode): boolean {
  for (let p = node.parent; p; p = p.parent) if (p === ancestor) return true;
  return false;
}

/**
 * The elements one chain matches, in document order; with `parents`, only strict descendants
 * of one of them (UiAutomator's childSelector searches under the parent's match). The chain's
 * `.instance(n)` picks the n-th of its own matches; its childSelector (the last given) then
 * matches under those.
 */
function matchChain(
  elements: StandinNode[],
  calls: UiCall[],
  parents: StandinNode[] | undefined,
): StandinNode[] {
  let instance: number | undefined;
  let child: UiCall[] | undefined;
  const preds: ((n: StandinNode) => boolean)[] = [];
  const str = (a: unknown) => String(a);
  for (const [name, arg] of calls) {
    if (Array.isArray(arg)) {
      child = arg;
      continue;
    }
    const s = str(arg);
    switch (name) {
      case "text":
        preds.push((n) => (n.attrs.text ?? "") === s);
        break;
      case "textContains":
        preds.push((n) => (n.attrs.text ?? "").includes(s));
        break;
      case "textStartsWith":
        preds.push((n) => (n.attrs.text ?? "").startsWith(s));
        break;
      case "textMatches": {
        const re = javaRegex(s);
        preds.push((n) => re.test(n.attrs.text ?? ""));
        break;
      }
      case "description":
        preds.push((n) => (n.attrs["content-desc"] ?? "") === s);
        break;
      case "descriptionContains":
        preds.push((n) => (n.attrs["content-desc"] ?? "").includes(s));
        break;
      case "descriptionMatches": {
        const re = javaRegex(s);
        preds.push((n) => re.test(n.attrs["content-desc"] ?? ""));
        break;
      }
      case "resourceId":
        preds.push((n) => (n.attrs["resource-id"] ?? "") === s);
        break;
      case "resourceIdMatches": {
        const re = javaRegex(s);
        preds.push((n) => re.test(n.attrs["resource-id"] ?? ""));
        break;
      }
      case "className":
        preds.push((n) => className(n) === s);
        break;
      case "classNameMatches": {
        const re = javaRegex(s);
        preds.push((n) => re.test(className(n)));
        break;
      }
      case "index":
        preds.push((n) => Number(n.attrs.index) === Number(arg));
        break;
      case "instance":
        instance = Number(arg);
        break;
      case "clickable":
      case "focused":
      case "enabled":
      case "selected":
      case "checked":
      case "checkable":
      case "scrollable":
        preds.push((n) => (n.attrs[name] === "true") === (arg === true));
        break;
      default:
        throw new Error(`stand-in: unsupported UiSelector method ${name}`);
    }
  }
  let matched = elements.filter((n) =>
    preds.every((p) => p(n)) && (parents === undefined || parents.some((p) => isUnder(n, p)))
  );
  if (instance !== undefined) matched = matched[instance] ? [matched[instance]!] : [];
  return child === undefined || matched.length === 0
    ? matched
    : matchChain(elements, child, matched);
}

function xpath(elements: StandinNode[], value: string): StandinNode[] {
  const m = /^\/\/([\w.*$]+)(?:\[@([\w-]+)=(?:"([^"]*)"|'([^']*)')\])?$/.exec(value.trim());
  if (!m) throw new Error(`stand-in: only //tag[@attr="value"] xpaths are supported, got ${value}`);
  const [, tag, attr, v1, v2] = m;
  return elements.filter((n) =>
    (tag === "*" || className(n) === tag || n.tag === tag) &&
    (attr === undefined || (n.attrs[attr] ?? "") === (v1 ?? v2))
  );
}
