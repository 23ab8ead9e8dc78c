/**
 * A blaze session: an agent drives any {@linkcode Driver} through Cairn's tools and every call
 * records itself as ground truth (capture only ground truth, like an agent recording): before
 * each action a `ScreenCaptured` (hierarchy and screenshot blobs), then `ActionPerformed` with
 * the resolved point and node and the raw tool call, `ActionCompleted`, navigations and a
 * `MemorySnapshotted`. A ref names a node of the latest snapshot; the recording keeps the point
 * and the node, never the ref as the target. Platform-agnostic: Chrome and Android drivers alike.
 *
 * @module
 */
import {
  describeDialogs,
  type Driver,
  DriverError,
  type HandledDialog,
} from "../../drivers/mod.ts";
import type { EventStore } from "../../events/mod.ts";
import type { BlobRef, EventData, NewEvent } from "../../events/mod.ts";
import type { Point, Screen, UiNode } from "../../engine/screens/mod.ts";
import { isToolName, type ToolName, type ToolParams, toolParams } from "./params.ts";
import { renderSnapshot } from "../../engine/screens/mod.ts";
import {
  actionOf,
  ancestorsOf,
  carriedRef,
  describeNode,
  isSensitiveNode,
  optionOfSelect,
  REDACTED,
  resolveTarget,
  targetOf,
  textOf,
} from "./actions.ts";
import {
  diffSnapshots,
  formatSnapshotDiff,
  type HierarchyFormat,
  parsedScreenBytes,
  parsedScreenKind,
} from "../../engine/screens/mod.ts";
import { withDeadline } from "../../drivers/mod.ts";
import { zodIssueList } from "../../engine/input/mod.ts";
import { SecretScrubber } from "../../drivers/mod.ts";
import { fieldAt, focusedNode, notEditable } from "./editable.ts";
import { NO_OUTCOME } from "./no_outcome.ts";
import { STATUS_CODES } from "node:http";

export { NO_OUTCOME };

export { isPageUrl, isToolName, PAGE_URL_RULE, TOOL_NAMES, type ToolName } from "./params.ts";

/** Options of {@linkcode BlazeSession.start}. */
export interface BlazeStartOptions {
  url: string;
  prompt: string;
  /** Session id (default a random UUID). */
  sessionId?: string;
  /** Memory at the start of the run (input slots). */
  memory?: Record<string, string> | undefined;
  /**
   * Memory at the start of the run whose values are secrets (a password, a PIN): stored as
   * `[redacted]` (`SessionStarted.memory`, every `MemorySnapshotted`), as `memory set … secret`
   * stores them, while `memory get` gives the agent the value. A key here wins over `memory`'s.
   */
  secretMemory?: Record<string, string> | undefined;
  systemPrompt?: string | undefined;
  /** Driver names and versions to record (`{ chrome: "156.0…" }`). */
  drivers?: Record<string, string>;
  /** Record a screenshot with every screen (default true). */
  screenshots?: boolean;
  /** DOM quiet time after an action before the next screen is read (default 300 ms). */
  settleMs?: number;
  /**
   * How long a tool call may take, waiting for the calls before it included, before it fails
   * with {@linkcode ToolTimeoutError} (default {@linkcode DEFAULT_CALL_TIMEOUT_MS}).
   */
  callTimeoutMs?: number;
}

/** The first line of a `snapshot --diff` that has no earlier snapshot to compare with. */
export const NO_EARLIER_SNAPSHOT =
  "(no earlier snapshot with these options to diff against: the full snapshot follows)";

/** How many of the latest snapshots the agent was shown keep their refs usable. */
const SHOWN_SCREENS = 4;

/** Default bound of one tool call: a page that stops answering (an endless script) fails it. */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

/** What a tool call returns to the agent. */
export interface ToolResult {
  ok: boolean;
  /** Text for the agent: the snapshot, the value read, or what happened. */
  output: string;
  /** Value read (`read`, `memory get`). */
  value?: string;
  error?: string;
  /** Id of the recorded action (absent for `snapshot` and `step`). */
  actionId?: string;
  url?: string;
  /** JavaScript dialogs the browser answered since the last action (recorded with it). */
  dialogs?: HandledDialog[];
}

/** Raised when a tool call is malformed (unknown tool, bad parameters): nothing is recorded. */
export class ToolInputError extends Error {
  override name = "ToolInputError";
  constructor(message: string, readonly issues: { path: string; message: string }[] = []) {
    super(message);
  }
}

/** Raised when a tool call does not finish in time: the page or device stopped answering. */
export class ToolTimeoutError extends DriverError {
  override name = "ToolTimeoutError";
  /**
   * @param what what did not finish (`Tool tap`)
   * @param ms the bound it exceeded
   */
  constructor(what: string, ms: number) {
    super(`${what} did not finish within ${ms} ms: the page is not responding`, "tool_timeout");
  }
}

/** Raised when a call reaches a session that has ended. */
export class SessionEndedError extends Error {
  override name = "SessionEndedError";
}

interface Latest {
  screen: Screen;
  /** The screenshot taken with it, when one was. */
  png?: Uint8Array;
  /** Its stored blob. */
  screenshot?: BlobRef;
}

/** One agent run, recorded to the stream `session-<id>`. */
export class BlazeSession {
  readonly id: string;
  readonly streamId: string;
  #driver: Driver;
  #store: EventStore;
  #version = 0;
  /** The last `ScreenCaptured` appended (its data) and the stream version it made. */
  #lastCapture: { key: string; version: number } | undefined;
  /** Hierarchies whose parsed screen this session kept already ({@linkcode #keepParsed}). */
  readonly #kept = new Set<string>();
  #memory = new Map<string, string>();
  #writtenBy = new Map<string, string>();
  #step: number | undefined;
  #stepText: string | undefined;
  #nextStep = 0;
  #actions = 0;
  #latest: Latest | undefined;
  #ended: EventData<"SessionEnded">["reason"] | undefined;
  /** True once `SessionEnded` is stored: nothing more is appended. */
  #closed = false;
  #startWarning: string | undefined;
  /** The action whose `ActionPerformed` is stored and whose `ActionCompleted` is not yet. */
  #pending: { actionId: string; started: number } | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #screenshots: boolean;
  #settleMs: number;
  #callTimeoutMs: number;
  #lastUrl = "";
  #lastTab = "";
  /** Values typed into password or sensitive fields: never stored (events, blobs) nor printed. */
  #secrets = new SecretScrubber();
  /** The last text the snapshot tool returned and the options it was rendered with. */
  #rendered: { key: string; text: string } | undefined;
  /** The screens of the latest snapshots the agent was shown, newest last: their refs are its. */
  #shown: Screen[] = [];

  private constructor(driver: Driver, store: EventStore, id: string, options: BlazeStartOptions) {
    this.#driver = driver;
    this.#store = store;
    this.id = id;
    this.streamId = `session-${id}`;
    this.#screenshots = options.screenshots ?? true;
    this.#settleMs = options.settleMs ?? 300;
    this.#callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    for (const [k, v] of Object.entries(options.memory ?? {})) this.#memory.set(k, v);
    for (const [k, v] of Object.entries(options.secretMemory ?? {})) {
      this.#memory.set(k, v);
      this.#secrets.add(v);
    }
    driver.addSecrets?.(Object.values(options.secretMemory ?? {}));
  }

  /**
   * Starts a run: records `SessionStarted`, opens the url and records the first screen.
   *
   * @param driver the browser or device
   * @param store where the events go
   * @param options url, prompt and what else to record
   * @returns the running session
   * @throws {DriverError} when the url cannot be opened (the session then ends as failed)
   */
  static async start(
    driver: Driver,
    store: EventStore,
    options: BlazeStartOptions,
  ): Promise<BlazeSession> {
    const session = new BlazeSession(
      driver,
      store,
      options.sessionId ?? crypto.randomUUID(),
      options,
    );
    const vp = await driver.viewport();
    await session.#append([{
      type: "SessionStarted",
      data: {
        sessionId: session.id,
        mode: "agent",
        platform: driver.platform,
        prompt: options.prompt,
        url: options.url,
        viewport: { width: vp.width, height: vp.height },
        devicePixelRatio: vp.devicePixelRatio,
        ...(options.systemPrompt ? { systemPrompt: options.systemPrompt } : {}),
        ...(options.drivers ? { drivers: options.drivers } : {}),
        ...(options.memory || options.secretMemory
          ? { memory: session.#startMemory(options) }
          : {}),
      },
    }], "no_stream");
    try {
      const nav = await driver.navigate(options.url);
      await driver.waitForSettle({ quietMs: session.#settleMs });
      const tab = await session.#activeTab();
      // an error page still opens (as a playback's navigate), but the caller is told
      const warning = httpWarning(nav.status, nav.statusText);
      session.#startWarning = warning;
      await session.#append([{
        type: "NavigationOccurred",
        data: {
          url: nav.finalUrl,
          reason: "navigate",
          ...(tab ? { tabId: tab } : {}),
          ...(warning ? { status: nav.status!, warning } : {}),
        },
      }]);
      session.#lastUrl = nav.finalUrl;
      session.#lastTab = tab;
      await session.#capture();
    } catch (err) {
      await session.end("failed", err instanceof Error ? err.message : String(err));
      throw err;
    }
    return session;
  }

  /**
   * What the start's page load warns of: `HTTP 404 Not Found` when the url answered an HTTP
   * error (the page opened all the same), as a playback's navigate warns.
   */
  get startWarning(): string | undefined {
    return this.#startWarning;
  }

  /** True once `end` ran. */
  get ended(): boolean {
    return this.#ended !== undefined;
  }

  /** The memory map as it stands (secrets in clear: the agent's own values). */
  get memory(): Record<string, string> {
    return Object.fromEntries(this.#memory);
  }

  /**
   * The memory map as it may be shown outside the agent's own calls: secret values (marked
   * secret, or equal to a secret typed into a sensitive field) as `[redacted]`, as it is stored.
   */
  get shownMemory(): Record<string, string> {
    return this.#secrets.value(this.memory);
  }

  /** `SessionStarted.memory`: the initial memory with each secret value as `[redacted]`. */
  #startMemory(options: BlazeStartOptions): Record<string, string> {
    const secret = Object.keys(options.secretMemory ?? {}).map((k) => [k, REDACTED]);
    return { ...options.memory, ...Object.fromEntries(secret) };
  }

  /** How many actions were recorded. */
  get actionCount(): number {
    return this.#actions;
  }

  /** The driver this session drives. */
  get driver(): Driver {
    return this.#driver;
  }

  /**
   * Runs one tool call and records it. Calls run one at a time, in arrival order.
   *
   * @param tool the tool name (`tap`, `type`, …)
   * @param params its parameters (strings from the CLI are coerced)
   * @returns what the agent sees
   * @throws {ToolInputError} for an unknown tool or bad parameters (nothing recorded)
   * @throws {SessionEndedError} after `end`
   * @throws {ToolTimeoutError} when the call (the calls queued before it included) takes longer
   *   than the session's call timeout
   */
  async call(tool: string, params: Record<string, unknown>): Promise<ToolResult> {
    if (!isToolName(tool)) {
      throw new ToolInputError(`Unknown tool ${JSON.stringify(tool)}`);
    }
    const parsed = this.#parse(tool, params);
    const run = this.#queue.then(() => this.#run(tool, parsed as never, params));
    this.#queue = run.catch(() => {});
    return await withDeadline(
      run,
      this.#callTimeoutMs,
      () => new ToolTimeoutError(`Tool ${tool}`, this.#callTimeoutMs),
    );
  }

  /**
   * Checks the parameters of the `end` tool, which the owner of the session's driver runs (it
   * may have to close the driver under a call that hangs), not {@linkcode BlazeSession.call}.
   *
   * @param params the tool's parameters
   * @returns the reason and error to end with
   * @throws {ToolInputError} for bad parameters
   */
  endParams(params: Record<string, unknown>): ToolParams<"end"> {
    return this.#parse("end", params);
  }

  #parse<T extends ToolName>(tool: T, params: Record<string, unknown>): ToolParams<T> {
    const parsed = toolParams(this.#driver.platform)[tool].safeParse(params);
    if (parsed.success) return parsed.data as ToolParams<T>;
    // an unknown parameter is named (`intent`), not the parameters as a whole
    const issues = zodIssueList(parsed.error).map((i) => ({
      path: i.path.join(".") || "(params)",
      message: i.message,
    }));
    throw new ToolInputError(
      `Bad parameters for ${tool}: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
      issues,
    );
  }

  /**
   * Ends the run after the calls queued before it: closes an open step and records
   * `SessionEnded`. Idempotent.
   *
   * @param reason completed, failed, clarification or interrupted
   * @param error what failed, when it did
   */
  async end(
    reason: EventData<"SessionEnded">["reason"] = "completed",
    error?: string,
  ): Promise<void> {
    await this.#queue;
    await this.#endNow(reason, error);
  }

  /**
   * Ends the run now, not after the calls queued before it: for a call stuck on a page that
   * stopped answering. `SessionEnded` is the stream's last event: what the stuck call would
   * record when it fails later is not stored. Idempotent (a no-op once an end has begun).
   *
   * @param reason completed, failed, clarification or interrupted
   * @param error why the end was forced
   */
  async forceEnd(reason: EventData<"SessionEnded">["reason"], error: string): Promise<void> {
    await this.#endNow(reason, error);
  }

  async #endNow(reason: EventData<"SessionEnded">["reason"], error?: string): Promise<void> {
    if (this.#ended) return;
    this.#ended = reason;
    const events: NewEvent[] = [];
    const pending = this.#pending;
    if (pending) {
      // a call still running (ended by force): its outcome is unknown, it is no done step
      events.push({
        type: "ActionCompleted",
        data: {
          actionId: pending.actionId,
          ok: false,
          durationMs: Math.round(performance.now() - pending.started),
          error: NO_OUTCOME,
        },
      });
    }
    if (this.#step !== undefined) {
      events.push({
        type: "StepEnded",
        data: { index: this.#step, ok: reason === "completed" && !pending },
      });
    }
    events.push({ type: "SessionEnded", data: { reason, ...(error ? { error } : {}) } });
    await this.#append(events);
    this.#closed = true;
  }

  async #run<T extends ToolName>(
    tool: T,
    p: ToolParams<T>,
    raw: Record<string, unknown>,
  ): Promise<ToolResult> {
    if (this.#ended) throw new SessionEndedError(`Session ${this.id} has ended`);
    const any = p as Record<string, unknown>;
    switch (tool) {
      case "snapshot": {
        const q = p as ToolParams<"snapshot">;
        const latest = await this.#capture();
        const options = {
          bounds: q.bounds === true,
          offscreen: q.offscreen === true,
          ...(q.depth !== undefined ? { depth: q.depth } : {}),
          ...(q.root !== undefined ? { root: q.root } : {}),
        };
        let text: string;
        try {
          text = renderSnapshot(latest.screen, options);
        } catch (err) {
          if (err instanceof RangeError) {
            return fail(`Ref ${q.root} is not on the current screen (take a new snapshot)`);
          }
          throw err;
        }
        const key = JSON.stringify(options);
        const previous = this.#rendered?.key === key ? this.#rendered.text : undefined;
        this.#rendered = { key, text };
        this.#shown = [...this.#shown.slice(1 - SHOWN_SCREENS), latest.screen];
        // a first --diff has nothing to compare with: it says so, then gives the whole snapshot
        const output = !q.diff
          ? text
          : previous === undefined
          ? `${NO_EARLIER_SNAPSHOT}\n${text}`
          : formatSnapshotDiff(diffSnapshots(previous, text));
        return {
          ok: true,
          output: this.#secrets.text(output),
          url: this.#secrets.text(latest.screen.url ?? ""),
        };
      }
      case "screenshot": {
        const q = p as ToolParams<"screenshot">;
        const latest = await this.#capture(true);
        if (!latest.png || !latest.screenshot) return fail("The driver took no screenshot");
        if (q.marks !== true) {
          return {
            ok: true,
            output: `Screenshot ${latest.screenshot.hash}`,
            value: latest.screenshot.hash,
          };
        }
        // set-of-mark: the same refs as the text snapshot, drawn on the image
        const { drawMarks } = await import("../../engine/screens/marks.ts");
        const marked = await drawMarks(latest.png, latest.screen, {
          offscreen: q.offscreen === true,
        });
        const ref = await this.#store.putBlob(marked.png, "image/png");
        return {
          ok: true,
          output: `Screenshot ${ref.hash} with ${marked.refs.length} marks`,
          value: ref.hash,
        };
      }
      case "step": {
        await this.#startStep(String(any.text));
        return { ok: true, output: `Step ${this.#step! + 1}: ${String(any.text)}` };
      }
      case "end": {
        const q = p as ToolParams<"end">;
        await this.#endNow(q.reason ?? "completed", q.error);
        return { ok: true, output: `Session ended (${q.reason ?? "completed"})` };
      }
      default:
        return await this.#act(tool, p, raw);
    }
  }

  async #act(
    tool: ToolName,
    p: Record<string, unknown>,
    raw: Record<string, unknown>,
  ): Promise<ToolResult> {
    const needsScreen = tool !== "memory";
    const latest = needsScreen ? await this.#capture() : undefined;
    const actionId = crypto.randomUUID();
    let { node, point, onScreen, problem } = resolveTarget(latest?.screen, tool, p);
    // a ref whose element's text changed since the agent's snapshot: the same element's new ref
    let carried: string | undefined;
    if (problem && !node && typeof p.ref === "string" && latest) {
      for (const shown of this.#shown.toReversed()) {
        carried = carriedRef(shown, latest.screen, p.ref);
        if (carried) break;
      }
      if (carried) {
        ({ node, point, onScreen, problem } = resolveTarget(latest.screen, tool, {
          ...p,
          ref: carried,
        }));
      }
    }
    // a tap on an option of a closed <select> picks it: a select of the option's text in its
    // select (the option itself has no box to tap)
    const picked = tool === "tap" && node && latest
      ? optionOfSelect(latest.screen.root, node)
      : undefined;
    if (picked) {
      tool = "select";
      p = { ...p, value: picked.value };
      raw = { ...raw, value: picked.value };
      ({ node, point, onScreen, problem } = resolveTarget(latest!.screen, "select", {
        x: Math.round(picked.select.bounds.x + picked.select.bounds.w / 2),
        y: Math.round(picked.select.bounds.y + picked.select.bounds.h / 2),
      }));
      node = picked.select;
      if (!picked.select.visible) {
        problem = `Ref ${p.ref} is in a hidden <select>: scroll to it first`;
      }
    }
    // what `type` types into: the ref's node, the field a bare point is in, or with neither the
    // focused element
    const field = tool === "type" && latest ? typedField(latest.screen.root, p, node) : node;
    // a value typed into a password or sensitive field is stored nowhere
    const secret = tool === "type" && field !== undefined && latest !== undefined &&
      isSensitiveNode(field, ancestorsOf(latest.screen.root, field));
    if (secret) this.#secrets.add(String(p.text));
    // a memory value marked secret is stored as [redacted] from this call on (the input
    // slots hold passwords); the session keeps it for `memory get`
    if (tool === "memory" && p.op === "set" && p.secret === true) {
      this.#secrets.add(String(p.value));
      this.#driver.addSecrets?.([String(p.value)]);
    }
    // `memory get` gives the agent back what it stored, secret or not (it is scrubbed in the log)
    const hide = <T>(v: T): T => tool === "memory" ? v : this.#secrets.value(v);
    if (typeof p.step === "string" && p.step !== this.#stepText) await this.#startStep(p.step);
    const { kind, performed } = actionOf(tool, p);
    const tab = this.#lastTab;
    await this.#append([{
      type: "ActionPerformed",
      data: {
        actionId,
        kind,
        ...performed,
        ...(secret ? { text: REDACTED } : {}),
        ...(point ? { point } : {}),
        toolName: tool,
        toolParams: secret ? { ...raw, text: REDACTED } : raw,
        ...(node ? { target: targetOf(node) } : {}),
        source: "agent",
        ...(this.#step !== undefined ? { stepIndex: this.#step } : {}),
        ...(tab ? { tabId: tab } : {}),
      },
    }]);
    this.#actions++;
    const started = performance.now();
    this.#pending = { actionId, started };
    let outcome: { ok: boolean; output: string; value?: string; error?: string };
    try {
      outcome = problem
        ? fail(problem)
        : await this.#execute(tool, p, { point, node, field, onScreen, secret });
    } catch (err) {
      outcome = fail(err instanceof Error ? err.message : String(err));
    }
    const durationMs = Math.round(performance.now() - started);
    let nav: NewEvent | undefined;
    if (tool !== "memory" && tool !== "read" && tool !== "assert") {
      await this.#driver.waitForSettle({ quietMs: this.#settleMs }).catch(() => {});
      nav = await this.#navigation(tool === "navigate");
    }
    const dialogs = hide(this.#driver.takeDialogs?.() ?? []);
    if (this.#closed) throw new SessionEndedError(`Session ${this.id} has ended`);
    this.#pending = undefined;
    await this.#append([
      {
        type: "ActionCompleted",
        data: {
          actionId,
          ok: outcome.ok,
          durationMs,
          ...(outcome.error ? { error: outcome.error } : {}),
          ...(outcome.value !== undefined ? { value: outcome.value } : {}),
          ...(dialogs.length > 0 ? { dialogs } : {}),
        },
      },
      ...(nav ? [nav] : []),
      {
        type: "MemorySnapshotted",
        data: { memory: this.memory, writtenBy: Object.fromEntries(this.#writtenBy) },
      },
    ]);
    // what the agent is told is scrubbed too: printed output ends up in transcripts and logs
    outcome = hide(outcome);
    if (dialogs.length > 0) {
      outcome = { ...outcome, output: `${outcome.output}\n${describeDialogs(dialogs)}` };
    }
    if (carried) {
      const note = `(ref ${String(p.ref)} is now ${carried}: its text changed)`;
      outcome = { ...outcome, output: `${outcome.output}\n${note}` };
    }
    return {
      ...outcome,
      actionId,
      ...(this.#lastUrl ? { url: this.#secrets.text(this.#lastUrl) } : {}),
      ...(dialogs.length > 0 ? { dialogs } : {}),
    };
  }

  async #execute(
    tool: ToolName,
    p: Record<string, unknown>,
    target: {
      point?: Point | undefined;
      node?: UiNode | undefined;
      /** What `type` types into (see `#act`). */
      field?: UiNode | undefined;
      onScreen: boolean;
      secret: boolean;
    },
  ): Promise<{ ok: boolean; output: string; value?: string; error?: string }> {
    const { point, node, field, onScreen, secret } = target;
    const where = point ? ` at (${point.x}, ${point.y})` : "";
    const label = node ? describeNode(node) : "";
    switch (tool) {
      case "tap":
        await this.#driver.tap(point!);
        return ok(`Tapped ${label || "the point"}${where}`);
      case "type": {
        // typing into a heading types nothing: what a ref names, what a bare point is in, or
        // else the focused element must be a text field
        if (point && !field) {
          return fail(`Cannot type at (${point.x}, ${point.y}): nothing is there`);
        }
        const into = field && describeNode(field);
        const refused = notEditable(field, point ? into! : `the focused ${into}`);
        if (refused) return fail(refused);
        await this.#driver.type(String(p.text), {
          ...(point ? { point } : {}),
          clear: p.clear !== false,
        });
        return ok(
          `Typed ${JSON.stringify(secret ? REDACTED : p.text)} into ${
            point ? into : "the focused field"
          }${where}`,
        );
      }
      case "press":
        await this.#driver.press(String(p.key));
        return ok(`Pressed ${p.key}`);
      case "scroll":
        await this.#driver.scroll(p.direction as "down", {
          ...(point ? { point } : {}),
          ...(typeof p.distance === "number" ? { distance: p.distance } : {}),
        });
        return ok(`Scrolled ${p.direction}${where}`);
      case "navigate": {
        const nav = await this.#driver.navigate(String(p.url));
        return ok(
          `Navigated to ${nav.finalUrl}${
            nav.finalUrl !== nav.requestedUrl ? ` (from ${nav.requestedUrl})` : ""
          } after ${nav.waitedFor}`,
        );
      }
      case "select":
        await this.#driver.select(point!, String(p.value));
        return ok(`Selected ${JSON.stringify(p.value)} in ${label}`);
      case "check":
        await this.#driver.check(point!, p.checked !== false);
        return ok(`${p.checked === false ? "Unchecked" : "Checked"} ${label}`);
      case "assert": {
        const n = node!;
        if (p.text !== undefined) {
          const actual = textOf(n);
          return actual === p.text ? ok(`${label} has text ${JSON.stringify(actual)}`) : fail(
            `Expected ${label} to have text ${JSON.stringify(p.text)}, got ${
              JSON.stringify(actual)
            }`,
          );
        }
        const visible = onScreen && n.visible && n.bounds.w > 0 && n.bounds.h > 0;
        return visible === (p.visible !== false)
          ? ok(`${label} is ${visible ? "visible" : "not visible"}`)
          : fail(`Expected ${label} to be ${p.visible === false ? "hidden" : "visible"}`);
      }
      case "read": {
        // a sensitive field's value, or a known secret the page shows, is read as [redacted]: the
        // agent typed it (it needs no copy), and memory is recorded and exported
        const shown = textOf(node!);
        const value = this.#secrets.holds(shown) ||
            isSensitiveNode(node!, ancestorsOf(this.#latest!.screen.root, node!))
          ? REDACTED
          : shown;
        const name = String(p.storeAs);
        this.#memory.set(name, value);
        this.#writtenBy.set(name, "readText");
        return { ok: true, output: `${name} = ${JSON.stringify(value)}`, value };
      }
      case "memory": {
        const name = String(p.name);
        if (p.op === "set") {
          this.#memory.set(name, String(p.value));
          this.#writtenBy.set(name, "memorySet");
          // a secret (marked so, or typed into a sensitive field) is not echoed
          return ok(`${name} = ${JSON.stringify(this.#secrets.text(String(p.value)))}`);
        }
        const value = this.#memory.get(name);
        if (value === undefined) return fail(`Memory has no ${name}`);
        return { ok: true, output: value, value };
      }
      default:
        return fail(`Tool ${tool} cannot act`);
    }
  }

  /** Ends the open step (if any) and starts the next one (its stored text is scrubbed). */
  async #startStep(text: string): Promise<void> {
    const events: NewEvent[] = [];
    if (this.#step !== undefined) events.push({ type: "StepEnded", data: { index: this.#step } });
    this.#step = this.#nextStep++;
    this.#stepText = text;
    events.push({ type: "StepStarted", data: { index: this.#step, text } });
    await this.#append(events);
  }

  /** Records the current screen (hierarchy and screenshot blobs) and makes it the latest. */
  async #capture(withScreenshot = this.#screenshots): Promise<Latest> {
    const [snap, png, vp] = await Promise.all([
      this.#driver.snapshot(),
      withScreenshot ? this.#driver.screenshot() : Promise.resolve(undefined),
      this.#driver.viewport(),
    ]);
    const stored = this.#secrets.hierarchy(snap.raw.bytes, snap.raw.mediaType);
    const [hierarchy, screenshot] = await Promise.all([
      this.#store.putBlob(stored, snap.raw.mediaType),
      png ? this.#store.putBlob(png, "image/png") : Promise.resolve(undefined),
    ]);
    await this.#keepParsed(hierarchy.hash, stored, snap.raw.format);
    const tab = this.#lastTab;
    const data = {
      hierarchy,
      format: snap.raw.format,
      ...(screenshot ? { screenshot } : {}),
      ...(snap.screen.url ? { url: snap.screen.url } : {}),
      viewport: { width: vp.width, height: vp.height },
      devicePixelRatio: vp.devicePixelRatio,
      ...(tab ? { tabId: tab } : {}),
    };
    // the same screen captured again with nothing in between (a second `snapshot`) is the
    // stream's last event already: stored once, the state at every position is the same
    const key = JSON.stringify(data);
    if (this.#lastCapture?.key !== key || this.#lastCapture.version !== this.#version) {
      await this.#append([{ type: "ScreenCaptured", data }]);
      this.#lastCapture = { key, version: this.#version };
    }
    redactSensitiveValues(snap.screen.root);
    this.#latest = {
      screen: snap.screen,
      ...(png ? { png } : {}),
      ...(screenshot ? { screenshot } : {}),
    };
    return this.#latest;
  }

  /**
   * Keeps the stored hierarchy's parsed screen beside its blob (`putDerived`), as an import does,
   * so a projection of the session decodes it instead of parsing it. The stored bytes are parsed,
   * not the live screen taken: they are what a projection would parse (secrets scrubbed). Once per
   * hierarchy in a session; a hierarchy that does not parse is left to the projection to report.
   */
  async #keepParsed(hash: string, bytes: Uint8Array, format: HierarchyFormat): Promise<void> {
    if (!this.#store.putDerived || this.#kept.has(hash)) return;
    this.#kept.add(hash);
    const encoded = parsedScreenBytes(bytes, format);
    if (encoded) await this.#store.putDerived(hash, parsedScreenKind(format), encoded);
  }

  /** A `NavigationOccurred` when the url or the active tab changed since the last look. */
  async #navigation(navigated: boolean): Promise<NewEvent | undefined> {
    const [url, tab] = await Promise.all([this.#driver.url(), this.#activeTab()]);
    const from = this.#lastUrl;
    const tabChanged = tab !== this.#lastTab;
    this.#lastUrl = url;
    this.#lastTab = tab;
    if (!navigated && !tabChanged && url === from) return undefined;
    return {
      type: "NavigationOccurred",
      data: {
        url,
        ...(from ? { from } : {}),
        reason: tabChanged ? "new_tab" : navigated ? "navigate" : "load",
        ...(tab ? { tabId: tab } : {}),
      },
    };
  }

  async #activeTab(): Promise<string> {
    const tabs = await this.#driver.tabs().catch(() => []);
    return tabs.find((t) => t.active)?.id ?? "";
  }

  async #append(events: NewEvent[], expected?: "no_stream"): Promise<void> {
    // nothing follows SessionEnded (a call that outlived a forced end records nothing)
    if (this.#closed) throw new SessionEndedError(`Session ${this.id} has ended`);
    const r = await this.#store.append(this.streamId, events.map((e) => this.#secrets.event(e)), {
      expectedVersion: expected ?? this.#version,
    });
    this.#version = r.streamVersion;
  }
}

/**
 * The warning of a page that answered an HTTP error (≥ 400), as a playback's: `HTTP 404 Not Found`.
 *
 * @param status the page's HTTP status
 * @param statusText its reason phrase as sent (empty over HTTP/2: the standard one is used)
 * @returns the warning, or undefined for a page that did not answer an error
 */
export function httpWarning(status: number | undefined, statusText?: string): string | undefined {
  if (status === undefined || status < 400) return undefined;
  const reason = statusText || STATUS_CODES[status] || "";
  return `HTTP ${status}${reason ? ` ${reason}` : ""}`;
}

/**
 * What `type` types into: the node a ref names, the field a bare point is in (the node there or
 * its nearest text-field ancestor), or with neither the focused element.
 */
function typedField(
  root: UiNode,
  p: Record<string, unknown>,
  node: UiNode | undefined,
): UiNode | undefined {
  if (p.ref !== undefined) return node;
  if (node) return fieldAt([...ancestorsOf(root, node), node]);
  return p.x === undefined ? focusedNode(root) : undefined;
}

/**
 * Replaces the value of every sensitive field on a screen with `[redacted]`, so that no snapshot,
 * read or assert the agent is given shows it (a card number is not masked by the platform).
 */
function redactSensitiveValues(node: UiNode, ancestors: UiNode[] = []): void {
  if (node.value !== undefined && node.value !== "" && isSensitiveNode(node, ancestors)) {
    node.value = REDACTED;
  }
  for (const c of node.children) redactSensitiveValues(c, [...ancestors, node]);
}

function ok(output: string) {
  return { ok: true, output };
}

function fail(error: string) {
  return { ok: false, output: error, error };
}
