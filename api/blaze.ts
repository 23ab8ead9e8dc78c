/**
 * Blaze sessions over HTTP: start a recorded agent run, call its tools, end it, and read it
 * back as a capture file. A registry per event store holds the live sessions and their
 * browsers; `blazeRegistry(store, { createDriver })` configures it before the app serves.
 *
 * @module
 */
import { type Context, Hono } from "hono";
import { z } from "zod";
import { ConcurrencyError, type EventStore } from "../events/mod.ts";
import { type Driver, DriverError } from "../drivers/mod.ts";
import {
  BlazeSession,
  DEFAULT_CALL_TIMEOUT_MS,
  isPageUrl,
  PAGE_URL_RULE,
  SessionEndedError,
  TOOL_NAMES,
  ToolInputError,
  ToolTimeoutError,
} from "../runners/blaze/mod.ts";
import { ChromeDriver } from "../drivers/chrome/mod.ts";
import { launchDefaultChrome, perStore } from "./per_store.ts";
import { AndroidDriver } from "../drivers/android/mod.ts";
import { AndroidStart, connectAndroid } from "../drivers/android/mod.ts";
import { readSession, sessionToCapture } from "../runners/record/mod.ts";
import { bareId, resolveId } from "./_ids.ts";
import type { ApiContext } from "./app.ts";
import { ApiError, invalidRequest, isHttpUrl, parseInput, readJson } from "./errors.ts";
import { describeRoute, describeSchema } from "./openapi.ts";
import { TOOL_PARAMS } from "../runners/blaze/mod.ts";
import { UNSAFE_URL, withDeadline } from "../drivers/mod.ts";

/** How the registry gets a driver for a new session. */
export interface BlazeRegistryOptions {
  /**
   * Creates the driver of a new session (default: a headless Chromium, or `CAIRN_BROWSER_WS`);
   * `localFiles` when the start may open `file:` and `data:` pages (a local client's flag).
   */
  createDriver?: (options: { localFiles?: boolean }) => Promise<Driver>;
  /** Record screenshots with every screen (default true). */
  screenshots?: boolean;
  /** DOM quiet time after an action (ms). */
  settleMs?: number;
  /** How long a tool call may take before it fails with 504 (ms). */
  callTimeoutMs?: number;
  /**
   * How long ending a session waits for its running call before it ends the session by force
   * and kills the browser under it (ms, default {@linkcode END_GRACE_MS}).
   */
  endGraceMs?: number;
  /**
   * Called whenever the registry's browsers change (a driver created for a starting session, a
   * session started, failed to start or ended): `serve` writes their profile folders down so
   * the next server can remove them when this one is killed.
   */
  onChange?: () => void | Promise<void>;
}

/** How long ending a session waits for its running call before ending it by force. */
export const END_GRACE_MS = 5_000;

/** How a session ended: `forced` when its call hung and its browser was killed to end it. */
export interface FinishResult {
  forced: boolean;
}

/** The graceful end did not finish within its grace. */
class EndGraceExceeded extends Error {
  override name = "EndGraceExceeded";
}

/** `POST /v1/blaze/sessions` body. */
export const StartBody = describeSchema(
  "BlazeStartRequest",
  z.strictObject({
    /** A page to load (http, https, data, file, about:blank); on Android an app or a deep link. */
    url: z.string().url(),
    prompt: z.string().min(1),
    /** Initial memory: names are not empty (the memory tool refuses an empty name). */
    memory: z.record(z.string(), z.string())
      .refine((m) => !Object.hasOwn(m, ""), "A memory name cannot be empty").optional(),
    /** Initial memory that is secret: stored as `[redacted]`, `memory get` gives the value. */
    secretMemory: z.record(z.string(), z.string())
      .refine((m) => !Object.hasOwn(m, ""), "A memory name cannot be empty").optional(),
    systemPrompt: z.string().optional(),
    /** `web` (Chrome, the default) or `android` (Appium UiAutomator2, Cairn's Android driver). */
    platform: z.enum(["web", "android"]).optional(),
    /** The device and app of an Android start (Appium URL, udid, package, activity, apk). */
    android: AndroidStart.optional(),
  }).refine((b) => b.platform === "android" || isPageUrl(b.url), {
    message: PAGE_URL_RULE,
    path: ["url"],
  }).refine(
    (b) => !Object.keys(b.secretMemory ?? {}).some((k) => Object.hasOwn(b.memory ?? {}, k)),
    {
      message: "A memory name cannot be in both memory and secretMemory",
      path: ["secretMemory"],
    },
  ),
);

/** The live blaze sessions of one store, each with its own driver. */
export class BlazeRegistry {
  #store: EventStore;
  #options: BlazeRegistryOptions;
  #sessions = new Map<string, BlazeSession>();
  /** Every driver this registry created and has not let go of yet (starting sessions' too). */
  #drivers = new Set<Driver>();

  constructor(store: EventStore, options: BlazeRegistryOptions = {}) {
    this.#store = store;
    this.#options = options;
  }

  /** Replaces how drivers are created (e.g. a remote browser, or a test's). */
  configure(options: BlazeRegistryOptions): void {
    this.#options = { ...this.#options, ...options };
  }

  /**
   * Starts a session on a fresh driver.
   *
   * @param body url, prompt, optional memory and system prompt
   * @param options `localFiles`: the browser may open `file:` and `data:` pages (only ever from
   *   a command-line flag of a local client)
   * @returns the running session
   * @throws {ToolTimeoutError} when the page does not load and answer within the call timeout
   *   (its browser is closed)
   * @throws {DriverError} `navigation_failed` or `unsafe_url` when the url cannot be opened
   */
  async start(
    body: z.infer<typeof StartBody>,
    options: { localFiles?: boolean } = {},
  ): Promise<BlazeSession> {
    const { platform, android, ...start } = body;
    const callTimeoutMs = this.#options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    const local = options.localFiles ? { localFiles: true } : {};
    const driver = platform === "android"
      ? await connectAndroid(android ?? {})
      : await (this.#options.createDriver ?? launchDefaultChrome)(local);
    this.#drivers.add(driver);
    await this.#changed();
    try {
      const drivers = driver instanceof ChromeDriver
        ? { chrome: await driver.browser.version() }
        : driver instanceof AndroidDriver
        ? await driver.versions()
        : undefined;
      const starting = BlazeSession.start(driver, this.#store, {
        ...start,
        ...(drivers ? { drivers } : {}),
        ...(this.#options.screenshots !== undefined
          ? { screenshots: this.#options.screenshots }
          : {}),
        ...(this.#options.settleMs !== undefined ? { settleMs: this.#options.settleMs } : {}),
        callTimeoutMs,
      });
      // past the bound, closing the browser fails the start, which records the session as failed
      const session = await withDeadline(
        starting,
        callTimeoutMs,
        () => new ToolTimeoutError(`Opening ${start.url}`, callTimeoutMs),
      );
      this.#sessions.set(session.id, session);
      await this.#changed(); // serve and the daemon note the session as theirs at once
      return session;
    } catch (err) {
      await driver.close();
      this.#drivers.delete(driver);
      await this.#changed();
      throw err;
    }
  }

  /**
   * The temporary profile folders of the browsers this registry launched and has not closed
   * (a starting session's included).
   */
  profiles(): string[] {
    return [...this.#drivers].flatMap((d) =>
      d instanceof ChromeDriver && d.userDataDir !== undefined ? [d.userDataDir] : []
    );
  }

  async #changed(): Promise<void> {
    try {
      await this.#options.onChange?.();
    } catch { /* a note for later recovery: never fails the session */ }
  }

  /** The live session with this id, if any. */
  get(id: string): BlazeSession | undefined {
    return this.#sessions.get(id);
  }

  /** Ids of the live sessions. */
  ids(): string[] {
    return [...this.#sessions.keys()];
  }

  /**
   * Ends a live session and lets go of its driver; the session is freed whatever its page does.
   * The end waits for a running call for the registry's end grace (default 5 s); when that call
   * hangs (a page whose script never returns), the session is ended by force: `SessionEnded`
   * is recorded at once, with an error saying so, and the browser is killed under the call.
   *
   * @param id the session
   * @param reason why the run ended
   * @param error what failed, when it did
   * @returns whether the end was forced; undefined when no live session has this id
   */
  async finish(
    id: string,
    reason: "completed" | "failed" | "clarification" | "interrupted",
    error?: string,
  ): Promise<FinishResult | undefined> {
    const session = this.#sessions.get(id);
    if (!session) return undefined;
    this.#sessions.delete(id);
    try {
      return await this.#finish(session, reason, error);
    } finally {
      this.#drivers.delete(session.driver);
      await this.#changed();
    }
  }

  async #finish(
    session: BlazeSession,
    reason: "completed" | "failed" | "clarification" | "interrupted",
    error?: string,
  ): Promise<FinishResult> {
    const graceMs = this.#options.endGraceMs ?? END_GRACE_MS;
    const ended = session.end(reason, error);
    try {
      await withDeadline(ended, graceMs, () => new EndGraceExceeded());
    } catch (err) {
      if (!(err instanceof EndGraceExceeded)) {
        await session.driver.close();
        throw err;
      }
      const why = `ended by force: a call did not finish within ${graceMs} ms, so the browser ` +
        "was killed";
      try {
        await session.forceEnd(reason, error ? `${error}; ${why}` : why);
      } finally {
        await (session.driver.kill?.() ?? session.driver.close());
      }
      return { forced: true };
    }
    await session.driver.close();
    return { forced: false };
  }

  /** Ends every live session as interrupted (by force when a call hangs) and frees the drivers. */
  async closeAll(): Promise<void> {
    await Promise.all(this.ids().map((id) => this.finish(id, "interrupted")));
  }
}

/**
 * The blaze registry of a store (created on first use).
 *
 * @param store the event store the sessions record to
 * @param options applied when given
 * @returns the registry
 */
export const blazeRegistry: (store: EventStore, options?: BlazeRegistryOptions) => BlazeRegistry =
  perStore(
    (store, options?: BlazeRegistryOptions) => new BlazeRegistry(store, options),
  );

const SessionId = z.string().min(1).max(100).regex(/^[A-Za-z0-9._-]+$/);

describeRoute({
  method: "post",
  path: "/v1/blaze/sessions",
  summary: "Start a recorded agent run: opens the url in a new browser",
  tags: ["blaze"],
  body: StartBody,
  responses: {
    "201": {
      description: "Started: the session id and the url; warning (`HTTP 404 Not Found`) when " +
        "the page answered an HTTP error (it opened all the same)",
    },
    "400": {
      description: "Invalid body (invalid_request), or a web url that is not http(s) " +
        "(issues name body.url)",
    },
    "422": {
      description: "The url could not be opened: navigation_failed (the page is unreachable, " +
        "refused the connection, its name does not resolve, …; the message names the url and " +
        "the browser's reason) or unsafe_url (a redirect to another scheme; the scheme named). " +
        "The session is recorded as failed and its browser closed",
    },
    "502": { description: "No browser or device to run in (the browser failed to launch)" },
    "504": {
      description: "The page did not load and answer within the call timeout (tool_timeout)",
    },
  },
});
describeRoute({
  method: "get",
  path: "/v1/blaze/sessions",
  summary: "The live blaze sessions",
  tags: ["blaze"],
});
/** Each tool's parameters, named in the OpenAPI document (`BlazeTapParams`). */
const TOOL_SCHEMAS = TOOL_NAMES.map((tool) =>
  describeSchema(`Blaze${tool[0]!.toUpperCase()}${tool.slice(1)}Params`, TOOL_PARAMS[tool])
);

/** `POST /v1/blaze/sessions/:id/tools` body: the tool named in the body, with its parameters. */
export const ToolCallBody = describeSchema(
  "BlazeToolCall",
  z.discriminatedUnion(
    "tool",
    TOOL_NAMES.map((tool) =>
      z.strictObject({ tool: z.literal(tool), ...TOOL_PARAMS[tool].shape })
    ) as unknown as [z.ZodObject, ...z.ZodObject[]],
  ),
);

/** What a tool call answers. */
const ToolResultBody = describeSchema(
  "BlazeToolResult",
  z.object({
    ok: z.boolean(),
    output: z.string(),
    value: z.string().optional(),
    error: z.string().optional(),
    actionId: z.string().optional(),
    url: z.string().optional(),
    dialogs: z.array(z.unknown()).optional(),
    forced: z.boolean().optional().describe("end: whether the browser had to be killed"),
  }),
  "output",
);

const TOOL_RESPONSES = {
  "200": { description: "The tool result", schema: ToolResultBody },
  "400": { description: "Bad parameters or an unknown tool (invalid_request), issues naming each" },
  "404": { description: "No live session with this id (not_found)" },
  "409": {
    description: "The session has ended (session_ended), or, for end, a session this server " +
      "does not hold may be held by another process that has the log open (not_owned)",
  },
  "502": { description: "The browser or device failed the call" },
  "504": {
    description:
      "The call did not finish in time (tool_timeout): the page hangs. Never for end, which " +
      "frees the session and answers 200 with forced: true when it had to kill the browser",
  },
};
describeRoute({
  method: "post",
  path: "/v1/blaze/sessions/{id}/tools/{tool}",
  operationId: "callBlazeTool",
  summary: `Call a tool (${TOOL_NAMES.join(", ")}); the call is recorded`,
  tags: ["blaze"],
  parameters: [
    { name: "tool", in: "path", description: "The tool", enum: TOOL_NAMES },
  ],
  body: z.union(TOOL_SCHEMAS as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]]).describe(
    "The parameters of the tool the path names (an empty body is {})",
  ),
  bodyOptional: true,
  responses: TOOL_RESPONSES,
});
describeRoute({
  method: "post",
  path: "/v1/blaze/sessions/{id}/tools",
  operationId: "callBlazeToolByBody",
  summary: "Call a tool named in the body (`tool`), with its parameters; as tools/{tool}",
  tags: ["blaze"],
  body: ToolCallBody,
  responses: TOOL_RESPONSES,
});
describeRoute({
  method: "get",
  path: "/v1/blaze/sessions/{id}/capture",
  summary: "A recorded session (live or ended) as a cairn.capture/v1 file",
  tags: ["blaze"],
});

/**
 * The blaze router (mounted under `/v1`).
 *
 * @param ctx the shared API context
 * @returns a hono router
 */
export function blazeRouter(ctx: ApiContext): Hono {
  const registry = blazeRegistry(ctx.store);
  const app = new Hono();
  app.post("/blaze/sessions", async (c) => {
    const body = parseInput(StartBody, await readJson(c), "body");
    if (body.platform !== "android") httpPagesOnly(ctx, body.url);
    const localFiles = typeof ctx.localPages === "function"
      ? ctx.localPages(c.req.raw)
      : ctx.localPages === true;
    const session = await registry.start(body, localFiles ? { localFiles } : {}).catch((err) => {
      // a url the run cannot open is the client's input, not the server's failure
      if (err instanceof DriverError && UNOPENABLE.has(err.code)) {
        throw new ApiError(422, err.code, err.message);
      }
      throw asDriverFailure(err);
    });
    const warning = session.startWarning;
    return c.json({
      sessionId: session.id,
      streamId: session.streamId,
      url: body.url,
      ...(warning ? { warning } : {}),
    }, 201);
  });
  app.get("/blaze/sessions", (c) =>
    c.json({
      sessions: registry.ids().map((id) => {
        const s = registry.get(id)!;
        // secrets as stored ([redacted]): the agent reads its values through memory get
        return { sessionId: id, actionCount: s.actionCount, memory: s.shownMemory };
      }),
    }));
  app.post("/blaze/sessions/:id/tools/:tool", async (c) => {
    const params = await readJson(c, {});
    if (typeof params !== "object" || params === null || Array.isArray(params)) {
      throw invalidRequest("Body must be a JSON object of tool parameters");
    }
    return await callTool(c, c.req.param("tool"), params as Record<string, unknown>);
  });
  app.post("/blaze/sessions/:id/tools", async (c) => {
    const body = await readJson(c);
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw invalidRequest("Body must be a JSON object: the tool and its parameters");
    }
    const { tool, ...params } = body as Record<string, unknown>;
    if (typeof tool !== "string") {
      const message = `expected the tool's name (${TOOL_NAMES.join(", ")})`;
      throw invalidRequest(`tool: ${message}`, [{ path: "body.tool", message }]);
    }
    return await callTool(c, tool, params);
  });
  async function callTool(
    c: Context,
    tool: string,
    params: Record<string, unknown>,
  ): Promise<Response> {
    const given = parseInput(SessionId, c.req.param("id"), "path.id");
    // bare or with its stream's prefix (`session-abc`), as every route takes a session id
    const id = registry.get(given) ? given : bareId("session", given);
    const session = registry.get(id);
    if (!session) {
      const state = await loggedState(ctx.store, id);
      if (state === "ended") {
        throw new ApiError(409, "session_ended", `Blaze session ${id} has ended`);
      }
      if (state === "open" && tool === "end") return c.json(await endNotLive(ctx, id), 200);
      throw new ApiError(
        404,
        "not_found",
        state === "open"
          ? `No live blaze session ${id}: no process of this server holds it (end it with tools/end)`
          : `No live blaze session ${id}`,
      );
    }
    if (tool === "navigate" && session.driver.platform === "web") {
      httpPagesOnly(ctx, (params as Record<string, unknown>).url);
    }
    try {
      if (tool === "end") {
        // always frees the session: a call stuck on a hung page does not hold it (forced)
        const p = session.endParams(params as Record<string, unknown>);
        const reason = p.reason ?? "completed";
        const { forced } = (await registry.finish(id, reason, p.error)) ?? { forced: false };
        const output = `Session ended (${reason})${
          forced
            ? ", by force: a call was still running on a page that does not answer, " +
              "so its browser was killed"
            : ""
        }`;
        return c.json({ ok: true, output, forced }, 200);
      }
      const result = await session.call(tool, params as Record<string, unknown>);
      return c.json(result, 200);
    } catch (err) {
      if (err instanceof ToolInputError) {
        throw invalidRequest(
          err.message,
          err.issues.length > 0
            ? err.issues.map((i) => ({ path: `body.${i.path}`, message: i.message }))
            : [{ path: "path.tool", message: `unknown tool (tools: ${TOOL_NAMES.join(", ")})` }],
        );
      }
      if (err instanceof SessionEndedError) {
        throw new ApiError(409, "session_ended", err.message);
      }
      throw asDriverFailure(err);
    }
  }
  app.get("/blaze/sessions/:id/capture", async (c) => {
    const given = parseInput(SessionId, c.req.param("id"), "path.id");
    const id = await resolveId(ctx.store, "session", given);
    return c.json(sessionToCapture(await readSession(ctx.store, id)));
  });
  return app;
}

/**
 * Over HTTP a web session opens http(s) pages only, as playbacks do (`file:` would hand the
 * server's files to the caller). A local client's app (`localPages`: the blaze daemon, `cairn
 * mcp`) leaves the url to the browser's navigation rule, which opens `file:` only in a browser
 * launched for the command-line flag, and refuses anything else as `unsafe_url`. A url the
 * tool's own check refuses is left to it.
 */
function httpPagesOnly(ctx: ApiContext, url: unknown): void {
  if (ctx.localPages || typeof url !== "string" || !isPageUrl(url) || isHttpUrl(url)) return;
  const message = "expected an http(s) url: over HTTP a browser session opens only http(s) pages";
  throw invalidRequest(`url: ${message}, not ${url}`, [{ path: "body.url", message }]);
}

/**
 * Where the log has this session: `ended` (its `SessionEnded` is stored), `open` (a blaze
 * session started and not ended), or `none` (no such session, or not an agent run).
 */
async function loggedState(store: EventStore, id: string): Promise<"ended" | "open" | "none"> {
  let started = false;
  for await (const e of store.readStream(`session-${id}`)) {
    if (e.type === "SessionEnded") return "ended";
    if (e.type === "SessionStarted" && e.data.mode === "agent") started = true;
  }
  return started ? "open" : "none";
}

/**
 * `end` on a session the log has open but this server does not hold (its server was killed):
 * ended `interrupted` when its process is gone (`SessionEnded.error` says why), whatever reason
 * the call gave — the run did not finish as it says; 409 `not_owned` while another process that
 * may hold it has the log open, 409 `session_ended` when another end got there first.
 */
async function endNotLive(
  ctx: ApiContext,
  id: string,
): Promise<{ ok: true; output: string; forced: false }> {
  let ended = false;
  try {
    ended = (await ctx.endOrphanedSession?.(id)) ?? false;
  } catch (err) {
    if (!(err instanceof ConcurrencyError)) throw err;
  }
  if (!ended) {
    if ((await loggedState(ctx.store, id)) === "ended") {
      throw new ApiError(409, "session_ended", `Blaze session ${id} has ended`);
    }
    throw new ApiError(
      409,
      "not_owned",
      `Blaze session ${id} is not held by this server, and another process that may hold it ` +
        "has the log open: end it there",
    );
  }
  return {
    ok: true,
    output: `Session ended (interrupted): the process that held it had stopped`,
    forced: false,
  };
}

/** The codes of a start whose url could not be opened (422, not the server's failure). */
const UNOPENABLE = new Set(["navigation_failed", UNSAFE_URL]);

function asDriverFailure(err: unknown): unknown {
  if (!(err instanceof DriverError)) return err;
  return new ApiError(err instanceof ToolTimeoutError ? 504 : 502, err.code, err.message);
}
