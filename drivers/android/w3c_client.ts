/**
 * A small typed W3C WebDriver client on `fetch`, for the endpoints Appium 3's UiAutomator2
 * driver serves that Cairn uses: sessions, page source, screenshots, pointer actions, element
 * lookup and `execute/sync` for `mobile:` commands.
 *
 * Why not `npm:webdriverio`: it runs under Deno, but it keeps the process alive about 30 s after
 * the last command (timers and sockets Deno's test sanitizers flag) and brings ~230 packages,
 * among them browser-driver downloaders with install scripts. The dozen endpoints below are
 * the whole protocol surface Cairn needs.
 *
 * @module
 */

/** The W3C key under which an element reference travels. */
export const ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf";

/** A WebDriver error answered by the server (`{ value: { error, message } }`). */
export class W3cError extends Error {
  override name = "W3cError";
  /**
   * @param error the W3C error code (`no such element`, `session not created`, `unknown error`)
   * @param message the server's message, without its stack trace
   * @param status the HTTP status
   * @param command the method and path that failed
   */
  constructor(
    readonly error: string,
    message: string,
    readonly status: number,
    readonly command: string,
  ) {
    super(message);
  }
}

/** The server could not be reached at all (refused, reset, timed out). */
export class W3cConnectionError extends Error {
  override name = "W3cConnectionError";
}

/** An element rectangle as WebDriver reports it. */
export interface ElementRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One W3C action (pointer or key), as sent in `POST /actions`. */
export type W3cAction =
  | { type: "pointerMove"; duration: number; x: number; y: number; origin: "viewport" }
  | { type: "pointerDown"; button: number }
  | { type: "pointerUp"; button: number }
  | { type: "pause"; duration: number };

/** A touch pointer action sequence. */
export interface PointerSequence {
  type: "pointer";
  id: string;
  parameters: { pointerType: "touch" | "mouse" };
  actions: W3cAction[];
}

/** Options of the client. */
export interface WebDriverClientOptions {
  /** Per-request timeout; a new session gets four times this. Default 60 s. */
  timeoutMs?: number;
}

/** A WebDriver session on one server. */
export class WebDriverClient {
  readonly #base: string;
  readonly #timeoutMs: number;
  #sessionId: string | undefined;
  #capabilities: Record<string, unknown> = {};

  /**
   * @param baseUrl the server URL (`http://127.0.0.1:4723`), with its base path if any
   * @param options request timeout
   */
  constructor(baseUrl: string, options: WebDriverClientOptions = {}) {
    this.#base = baseUrl.replace(/\/+$/, "");
    this.#timeoutMs = options.timeoutMs ?? 60_000;
  }

  /** The server URL. */
  get baseUrl(): string {
    return this.#base;
  }

  /** The session id, once a session is open. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** The capabilities the server answered the new session with. */
  get capabilities(): Record<string, unknown> {
    return this.#capabilities;
  }

  /**
   * `GET /status`.
   *
   * @returns the status value (`{ ready, message, build }`)
   */
  async status(): Promise<Record<string, unknown>> {
    return asRecord(await this.#request("GET", "/status"));
  }

  /**
   * Opens a session (`POST /session`).
   *
   * @param alwaysMatch the capabilities
   * @returns the session id
   * @throws {W3cError} when the server refuses (no device, no SDK, no driver)
   */
  async newSession(alwaysMatch: Record<string, unknown>): Promise<string> {
    const value = asRecord(
      await this.#request(
        "POST",
        "/session",
        { capabilities: { alwaysMatch, firstMatch: [{}] } },
        this.#timeoutMs * 4,
      ),
    );
    const id = value.sessionId;
    if (typeof id !== "string") {
      throw new W3cError(
        "session not created",
        "The server answered without a sessionId",
        500,
        "POST /session",
      );
    }
    this.#sessionId = id;
    this.#capabilities = asRecord(value.capabilities ?? {});
    return id;
  }

  /** Ends the session (`DELETE /session/:id`); a no-op without one. */
  async deleteSession(): Promise<void> {
    if (this.#sessionId === undefined) return;
    const path = this.#s("");
    this.#sessionId = undefined;
    await this.#request("DELETE", path);
  }

  /** @returns the page source (UiAutomator2 XML) */
  async source(): Promise<string> {
    return String(await this.#request("GET", this.#s("/source")));
  }

  /** @returns the screenshot as PNG bytes */
  async screenshot(): Promise<Uint8Array> {
    const b64 = String(await this.#request("GET", this.#s("/screenshot")));
    return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  }

  /** @returns the window rectangle (the screen size on Android) */
  async windowRect(): Promise<ElementRect> {
    return toRect(await this.#request("GET", this.#s("/window/rect")));
  }

  /**
   * Performs W3C actions (`POST /actions`) and releases them.
   *
   * @param actions the input source sequences
   */
  async performActions(actions: PointerSequence[]): Promise<void> {
    await this.#request("POST", this.#s("/actions"), { actions });
    await this.#request("DELETE", this.#s("/actions"));
  }

  /**
   * Finds elements (`POST /elements`).
   *
   * @param using the strategy (`id`, `accessibility id`, `-android uiautomator`, `xpath`)
   * @param value the selector
   * @returns element ids, in document order
   */
  async findElements(using: string, value: string): Promise<string[]> {
    const found = await this.#request("POST", this.#s("/elements"), { using, value });
    if (!Array.isArray(found)) return [];
    return found.map((e) => elementId(e)).filter((e): e is string => e !== undefined);
  }

  /** @returns the focused element's id, or undefined when none is focused */
  async activeElement(): Promise<string | undefined> {
    try {
      return elementId(await this.#request("GET", this.#s("/element/active")));
    } catch (err) {
      if (err instanceof W3cError && err.error === "no such element") return undefined;
      throw err;
    }
  }

  /** @returns the element's rectangle */
  async elementRect(id: string): Promise<ElementRect> {
    return toRect(await this.#request("GET", this.#s(`/element/${enc(id)}/rect`)));
  }

  /** @returns an attribute of the element, or null when it has none */
  async elementAttribute(id: string, name: string): Promise<string | null> {
    const v = await this.#request("GET", this.#s(`/element/${enc(id)}/attribute/${enc(name)}`));
    return v === null || v === undefined ? null : String(v);
  }

  /** @returns the element's text */
  async elementText(id: string): Promise<string> {
    return String(await this.#request("GET", this.#s(`/element/${enc(id)}/text`)) ?? "");
  }

  /** Clears an editable element. */
  async elementClear(id: string): Promise<void> {
    await this.#request("POST", this.#s(`/element/${enc(id)}/clear`), {});
  }

  /** Types into an element (`POST /element/:id/value`). */
  async elementSendKeys(id: string, text: string): Promise<void> {
    await this.#request("POST", this.#s(`/element/${enc(id)}/value`), {
      text,
      value: [...text],
    });
  }

  /** Starts Appium's screen recording (`POST /appium/start_recording_screen`). */
  async startRecordingScreen(options: Record<string, unknown> = {}): Promise<void> {
    await this.#request("POST", this.#s("/appium/start_recording_screen"), { options });
  }

  /**
   * Stops Appium's screen recording (`POST /appium/stop_recording_screen`).
   *
   * @returns the recording (an MP4 file) as base64
   */
  async stopRecordingScreen(): Promise<string> {
    return String(await this.#request("POST", this.#s("/appium/stop_recording_screen"), {}));
  }

  /**
   * Runs a script (`POST /execute/sync`); on Appium, `mobile: <command>` with one argument object.
   *
   * @param script the script or `mobile:` command
   * @param args its arguments
   * @returns the command's value
   */
  async execute(script: string, args: unknown[] = []): Promise<unknown> {
    return await this.#request("POST", this.#s("/execute/sync"), { script, args });
  }

  #s(path: string): string {
    if (this.#sessionId === undefined) {
      throw new W3cError("invalid session id", "No WebDriver session is open", 404, path);
    }
    return `/session/${enc(this.#sessionId)}${path}`;
  }

  async #request(
    method: string,
    path: string,
    body?: unknown,
    timeoutMs = this.#timeoutMs,
  ): Promise<unknown> {
    const command = `${method} ${path}`;
    let res: Response;
    try {
      res = await fetch(this.#base + path, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json; charset=utf-8" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const why = err instanceof Error ? err.message.split("\n")[0] : String(err);
      throw new W3cConnectionError(`Cannot reach the WebDriver server at ${this.#base}: ${why}`, {
        cause: err,
      });
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text === "" ? {} : JSON.parse(text);
    } catch {
      throw new W3cError(
        "unknown error",
        `${command} answered HTTP ${res.status} with non-JSON: ${text.slice(0, 200)}`,
        res.status,
        command,
      );
    }
    const value = typeof parsed === "object" && parsed !== null && "value" in parsed
      ? (parsed as { value: unknown }).value
      : null;
    if (!res.ok || isErrorValue(value)) {
      const v = isErrorValue(value)
        ? value
        : { error: "unknown error", message: text.slice(0, 200) };
      throw new W3cError(v.error, firstLines(v.message), res.status, command);
    }
    return value;
  }
}

function isErrorValue(v: unknown): v is { error: string; message: string } {
  return typeof v === "object" && v !== null &&
    typeof (v as { error?: unknown }).error === "string" &&
    typeof (v as { message?: unknown }).message === "string";
}

function firstLines(message: string): string {
  // Appium appends the server-side stack to some messages; keep the sentence, drop the stack.
  return message.split(/\n\s+at /)[0]!.trim();
}

function elementId(v: unknown): string | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const r = v as Record<string, unknown>;
  const id = r[ELEMENT_KEY] ?? r.ELEMENT;
  return typeof id === "string" ? id : undefined;
}

function toRect(v: unknown): ElementRect {
  const r = asRecord(v);
  return {
    x: Number(r.x ?? 0),
    y: Number(r.y ?? 0),
    width: Number(r.width ?? 0),
    height: Number(r.height ?? 0),
  };
}

function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null ? v as Record<string, unknown> : {};
}

function enc(s: string): string {
  return encodeURIComponent(s);
}
