/**
 * Cairn as an MCP server: the agent's blaze tools, playbacks, the optimizer, validation, time
 * travel and slot analysis as typed MCP tools, and sessions, trails and screenshots as
 * resources. Every tool calls the HTTP API's route in process (`api`), so MCP and HTTP share one
 * implementation, one set of checks and one set of error codes: an HTTP error comes back as an
 * MCP tool error whose text starts with its code (`not_found: No live blaze session …`).
 *
 * @module
 */
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { TOOL_PARAMS, type ToolName } from "../runners/blaze/mod.ts";
import { HeuristicSlotAnalyzer, slotAnalyzerFromEnv } from "../engine/nl/mod.ts";
import { AnsweredPlaybackQueued, AnsweredPlaybackReport } from "../engine/playback/mod.ts";
import { AnsweredStateAt, AnsweredTimeline } from "../engine/timeline/mod.ts";
import {
  AnsweredValidationQueued,
  AnsweredValidationReport,
  AnsweredValidationStarted,
} from "../engine/validation/mod.ts";

/** Calls the HTTP API in process (the app's `fetch`). */
export type ApiFetch = (request: Request) => Response | Promise<Response>;

/** The version the server reports to clients. */
export const MCP_SERVER_VERSION = "1.0.0";

/** Options of {@linkcode createMcpServer}. */
export interface McpServerOptions {
  /** The bearer token the API wants (`serve` with `CAIRN_TOKEN`), sent with every inner call. */
  token?: string;
  /** Reads a trail file named by `playback_start`'s `trailFile` (stdio only: a local client). */
  readFile?: (path: string) => Promise<string>;
  /** The slot analyser (default: from the environment, else the heuristic one). */
  slotAnalyzer?: { analyze(steps: readonly string[]): Promise<unknown> };
}

/** An HTTP error answer, as an MCP tool error. */
class ApiCallError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

const SessionId = z.string().min(1).describe("The blaze session id blaze_start returned");

/** What every blaze tool answers (the HTTP tool result, plus the diff an action caused). */
const ToolResultSchema = z.object({
  ok: z.boolean(),
  output: z.string(),
  value: z.string().optional(),
  error: z.string().optional(),
  actionId: z.string().optional(),
  url: z.string().optional(),
  /** The snapshot diff the action caused (the whole snapshot when there was none before). */
  diff: z.string().optional(),
}).passthrough();

/**
 * The output schema of a tool that answers one of several objects (a report, or the stub of a
 * run queued on a shared log). MCP wants an object schema: an object whose JSON Schema lists the
 * answers (`oneOf`), checked against them here as well.
 *
 * @param options the objects it answers, exclusive of one another
 * @returns an object schema
 */
function oneOfObjects(options: readonly [z.ZodObject, z.ZodObject, ...z.ZodObject[]]): z.ZodType {
  const oneOf = options.map((o) => {
    const { $schema: _, ...json } = z.toJSONSchema(o, { io: "output", target: "draft-07" });
    return json;
  });
  return z.object({}).catchall(z.unknown()).superRefine((value, ctx) => {
    const errors = [];
    for (const option of options) {
      const r = option.strict().safeParse(value);
      if (r.success) return;
      errors.push(z.prettifyError(r.error));
    }
    ctx.addIssue({
      code: "custom",
      message: `fits none of its answers:\n${errors.join("\n--\n")}`,
    });
  }).meta({ oneOf });
}

/** What `playback_results` answers: the report, or (queued on a shared log) the queued stub. */
const PlaybackResultsOutput = oneOfObjects([AnsweredPlaybackReport, AnsweredPlaybackQueued]);

/** What `validation_results` answers: the report, or (queued on a shared log) the queued stub. */
const ValidationResultsOutput = oneOfObjects([AnsweredValidationReport, AnsweredValidationQueued]);

/** What `history` answers: a run's timeline, or with `at` its state at that position. */
const HistoryOutput = oneOfObjects([AnsweredTimeline, AnsweredStateAt]);

/** The actions: each answers with the snapshot diff it caused. */
const ACTIONS = [
  "tap",
  "type",
  "select",
  "check",
  "press",
  "scroll",
  "navigate",
  "read",
  "assert",
] as const satisfies readonly ToolName[];

const DESCRIPTIONS: Record<(typeof ACTIONS)[number], string> = {
  tap: "Tap (click) an element by its ref from the latest snapshot, or a point x,y",
  type: 'Type text into a field by ref (clear: replace its value; text "" clears it)',
  select: "Pick an option of a <select> by its value or text",
  check: "Check or uncheck a checkbox or switch (checked: false unchecks)",
  press: "Press a key (Enter, Tab, Escape, ArrowDown, …)",
  scroll: "Scroll the page or an element (ref) up, down, left or right",
  navigate: "Open a url in the session's browser",
  read: "Read an element's text into memory under storeAs (captured ground truth)",
  assert: "Assert an element (ref) is visible or has a text; recorded as a check",
};

/**
 * The MCP input shape of a blaze tool: its HTTP parameters plus the session id. The tool's
 * cross-field rules (ref or x,y; memory set needs a value) are the HTTP route's, answered as
 * `invalid_request` tool errors.
 */
function toolShape(tool: ToolName): z.ZodRawShape {
  const shape: Record<string, z.ZodType> = { sessionId: SessionId };
  for (const [name, schema] of Object.entries(TOOL_PARAMS[tool].shape)) {
    const about = name === "reason" && tool !== "end"
      ? "Why you take this action: stored with the decision, shown in the viewer"
      : PARAM_DESCRIPTIONS[name];
    shape[name] = about ? (schema as z.ZodType).describe(about) : schema as z.ZodType;
  }
  return shape;
}

/** What each blaze tool parameter means, for the agent reading the tool list. */
const PARAM_DESCRIPTIONS: Record<string, string> = {
  step: "The NL step this call serves (starts it when it is not the current one)",
  notes: "Why: kept on the recorded decision",
  confidence: "0..1, kept on the recorded decision",
  ref: "An element's ref from the latest snapshot (y778, k42b)",
  x: "A point's x (CSS px), with y, instead of a ref",
  y: "A point's y (CSS px), with x, instead of a ref",
  text: "The text",
  clear: "Replace the field's value instead of appending",
  key: "A key name: Enter, Tab, Escape, ArrowDown, …",
  direction: "up, down, left or right",
  distance: "How far to scroll (px)",
  url: "The page to open",
  visible: "Assert the element is visible (true) or not (false)",
  storeAs: "The memory name to store the value under",
  value: "The option's value or text",
  checked: "true checks, false unchecks (default true)",
  bounds: "Show each element's bounds",
  offscreen: "Include elements outside the viewport",
  depth: "Show at most this many levels",
  root: "Render only this ref's subtree",
  diff: "Only what changed since the previous snapshot with the same options",
  marks: "Draw the snapshot's refs on the image (set-of-mark)",
  reason: "completed (default), failed or clarification",
  error: "What failed, when the run failed",
};

/** The camelCase MCP names of `POST /v1/playbacks` body fields. */
const PlaybackStartInput = {
  trail: z.string().min(1).optional().describe("The trail YAML to play"),
  trailFile: z.string().min(1).optional().describe("A trail file to play (cairn mcp over stdio)"),
  recordingId: z.string().min(1).optional().describe("A stored session (recording) to play"),
  actions: z.array(z.unknown()).optional().describe("Synthetic actions to play"),
  timing: z.enum(["fast", "recorded"]).optional(),
  onError: z.enum(["continue", "skip_dependent", "stop"]).optional(),
  testId: z.string().min(1).optional(),
  autoBoundary: z.boolean().optional(),
  valueOverrides: z.record(z.string(), z.string()).optional()
    .describe("Values by action index, replacing what the plan types"),
  memory: z.record(z.string(), z.string().nullable()).optional()
    .describe("Values of the plan's memory keys"),
  url: z.string().optional().describe("Re-point recorded navigations at this app url"),
  tab: z.string().optional(),
  timeoutMs: z.number().int().positive().optional(),
  video: z.boolean().optional()
    .describe("Record a WebM video with the action subtitles (the report names its url)"),
};

/** The tool names, in the order tools/list gives them. */
export const MCP_TOOL_NAMES = [
  "blaze_start",
  "blaze_end",
  "blaze_step",
  "blaze_snapshot",
  ...ACTIONS.map((a) => `blaze_${a}`),
  "blaze_memory_get",
  "blaze_memory_set",
  "blaze_screenshot",
  "blaze_sessions",
  "playback_start",
  "playback_results",
  "playback_stop",
  "optimize",
  "validate",
  "validation_results",
  "history",
  "slot_analysis",
] as const;

/**
 * Creates the MCP server over the HTTP API.
 *
 * @param api the API's fetch (in process)
 * @param options token, file reader, slot analyser
 * @returns the server, to connect to a transport
 */
export function createMcpServer(api: ApiFetch, options: McpServerOptions = {}): McpServer {
  const server = new McpServer(
    { name: "cairn", version: MCP_SERVER_VERSION },
    {
      instructions:
        "Cairn records what you do in a browser as a durable test trail. Start with blaze_start " +
        "(a url and the task), take blaze_snapshot, act by ref (blaze_tap, blaze_type, …: each " +
        "answers with the snapshot diff it caused), read values into memory, assert, then " +
        "blaze_end. optimize turns the session into a trail; playback_start replays it.",
    },
  );

  async function call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: unknown; text: string; headers: Headers }> {
    const headers = new Headers();
    if (options.token !== undefined) headers.set("authorization", `Bearer ${options.token}`);
    if (body !== undefined) headers.set("content-type", "application/json");
    const res = await api(
      new Request(`http://127.0.0.1${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
    );
    const text = await res.text();
    let json: unknown = undefined;
    if ((res.headers.get("content-type") ?? "").includes("json")) json = JSON.parse(text);
    if (res.status >= 400) {
      const err = (json as { error?: { code?: string; message?: string; issues?: unknown } })
        ?.error;
      const issues = Array.isArray(err?.issues)
        ? ` (${
          (err.issues as { path: string; message: string }[]).map((i) => `${i.path}: ${i.message}`)
            .join("; ")
        })`
        : "";
      throw new ApiCallError(
        res.status,
        err?.code ?? `http_${res.status}`,
        `${err?.message ?? text}${issues && !(err?.message ?? "").includes(":") ? issues : ""}`,
      );
    }
    return { status: res.status, json, text, headers: res.headers };
  }

  /** Runs a handler; an API error becomes an MCP tool error naming its code and status. */
  /**
   * Registers a tool. (The SDK's own handler typing does not infer its arguments under Deno, so
   * they are typed here from the input shape.)
   */
  function register<S extends z.ZodRawShape>(
    name: string,
    config: {
      title: string;
      description: string;
      inputSchema: S;
      outputSchema?: z.ZodRawShape | z.ZodType;
    },
    handler: (args: z.output<z.ZodObject<S>>) => Promise<CallToolResult>,
  ): void {
    server.registerTool(name, config, handler as never);
  }

  async function attempt(fn: () => Promise<CallToolResult>): Promise<CallToolResult> {
    {
      try {
        return await fn();
      } catch (err) {
        if (err instanceof ApiCallError) {
          return {
            isError: true,
            content: [{ type: "text", text: `${err.code}: ${err.message}` }],
            // no structuredContent: a client checks it against the tool's output schema
            _meta: { "cairn/error": { code: err.code, status: err.status } },
          };
        }
        return {
          isError: true,
          content: [{ type: "text", text: err instanceof Error ? err.message : String(err) }],
        };
      }
    }
  }

  const json = (value: Record<string, unknown>, text?: string): CallToolResult => ({
    content: [{ type: "text", text: text ?? JSON.stringify(value, null, 2) }],
    structuredContent: value,
  });

  const tool = (id: string, name: string, params: Record<string, unknown>) =>
    call("POST", `/v1/blaze/sessions/${encodeURIComponent(id)}/tools/${name}`, params);

  // ---- blaze ----
  register(
    "blaze_start",
    {
      title: "Start a blaze session",
      description: "Open a url in a new browser and start recording an agent run for a task " +
        "(prompt). Answers the sessionId every other blaze tool takes.",
      inputSchema: {
        url: z.string().describe("The page to open (on Android an app or a deep link)"),
        prompt: z.string().min(1).describe("The task, in natural language"),
        memory: z.record(z.string(), z.string()).optional(),
        secretMemory: z.record(z.string(), z.string()).optional()
          .describe("Initial memory that is secret: stored as [redacted]"),
        systemPrompt: z.string().optional(),
        platform: z.enum(["web", "android"]).optional(),
        android: z.record(z.string(), z.unknown()).optional()
          .describe("Appium URL, udid, appPackage, appActivity, apk of an Android start"),
      },
      outputSchema: {
        sessionId: z.string(),
        streamId: z.string(),
        url: z.string(),
        warning: z.string().optional(),
      },
    },
    async (args) =>
      await attempt(async () => {
        const r = await call("POST", "/v1/blaze/sessions", args);
        return json(r.json as Record<string, unknown>);
      }),
  );

  register(
    "blaze_end",
    {
      title: "End a blaze session",
      description: "End the run (completed, failed or clarification) and close its browser",
      inputSchema: toolShape("end"),
      outputSchema: z.object({ ok: z.boolean(), output: z.string(), forced: z.boolean() })
        .passthrough(),
    },
    async ({ sessionId, ...params }) =>
      await attempt(async () => {
        const r = await tool(sessionId as string, "end", params);
        const v = r.json as Record<string, unknown>;
        return json(v, String(v.output));
      }),
  );

  const plain = (name: "step" | "snapshot", title: string, description: string) =>
    register(
      `blaze_${name}`,
      {
        title,
        description,
        inputSchema: toolShape(name),
        outputSchema: ToolResultSchema,
      },
      async ({ sessionId, ...params }) =>
        await attempt(async () => {
          const r = await tool(sessionId as string, name, params);
          return asToolResult(r.json as Record<string, unknown>);
        }),
    );
  plain("step", "Start an NL step", "Start the next natural-language step of the task");
  plain(
    "snapshot",
    "Snapshot the page",
    "The page as text with a ref per element (bounds, offscreen, depth, root: a subtree; " +
      "diff: only what changed since the previous snapshot with the same options)",
  );

  for (const action of ACTIONS) {
    register(
      `blaze_${action}`,
      {
        title: `blaze ${action}`,
        description: `${DESCRIPTIONS[action]}. Answers with the snapshot diff the action caused.`,
        inputSchema: toolShape(action),
        outputSchema: ToolResultSchema,
      },
      async ({ sessionId, ...params }) =>
        await attempt(async () => {
          const r = await tool(sessionId as string, action, params);
          const result = r.json as Record<string, unknown>;
          // the page after the action, as a diff against the agent's latest plain snapshot
          const after = await tool(sessionId as string, "snapshot", { diff: true });
          const diff = String((after.json as { output?: unknown }).output ?? "");
          return asToolResult({ ...result, diff });
        }),
    );
  }

  register(
    "blaze_memory_get",
    {
      title: "Read memory",
      description: "A value in the session's memory (a secret's value too)",
      inputSchema: {
        sessionId: SessionId,
        name: z.string().regex(/^[A-Za-z_][\w]*$/),
        step: z.string().min(1).optional(),
      },
      outputSchema: ToolResultSchema,
    },
    async ({ sessionId, ...params }) =>
      await attempt(async () => {
        const r = await tool(sessionId, "memory", { op: "get", ...params });
        return asToolResult(r.json as Record<string, unknown>);
      }),
  );
  register(
    "blaze_memory_set",
    {
      title: "Write memory",
      description: "Set a value in memory; secret: true stores it as [redacted] (a password)",
      inputSchema: {
        sessionId: SessionId,
        name: z.string().regex(/^[A-Za-z_][\w]*$/),
        value: z.string(),
        secret: z.boolean().optional(),
        step: z.string().min(1).optional(),
        reason: z.string().trim().min(1).max(4000).optional()
          .describe("Why you take this action: stored with the decision, shown in the viewer"),
      },
      outputSchema: ToolResultSchema,
    },
    async ({ sessionId, ...params }) =>
      await attempt(async () => {
        const r = await tool(sessionId, "memory", { op: "set", ...params });
        return asToolResult(r.json as Record<string, unknown>);
      }),
  );

  register(
    "blaze_screenshot",
    {
      title: "Screenshot",
      description: "A PNG of the page; marks: the snapshot's refs drawn on it (set-of-mark)",
      inputSchema: toolShape("screenshot"),
    },
    async ({ sessionId, ...params }) =>
      await attempt(async () => {
        const r = await tool(sessionId as string, "screenshot", params);
        const result = r.json as { ok: boolean; output: string; value?: string };
        if (!result.ok || !result.value) {
          return { isError: true, content: [{ type: "text", text: result.output }] };
        }
        const png = await blob(result.value);
        return {
          content: [
            { type: "image", data: png, mimeType: "image/png" },
            { type: "text", text: result.output },
          ],
        };
      }),
  );

  register(
    "blaze_sessions",
    {
      title: "Live blaze sessions",
      description: "The blaze sessions this server holds: id, action count, memory",
      inputSchema: {},
    },
    async () =>
      await attempt(async () => {
        const r = await call("GET", "/v1/blaze/sessions");
        return json(r.json as Record<string, unknown>);
      }),
  );

  async function blob(hash: string): Promise<string> {
    const headers = new Headers();
    if (options.token !== undefined) headers.set("authorization", `Bearer ${options.token}`);
    const res = await api(new Request(`http://127.0.0.1/v1/blobs/${hash}`, { headers }));
    if (!res.ok) throw new ApiCallError(res.status, "not_found", `No blob ${hash}`);
    return base64(new Uint8Array(await res.arrayBuffer()));
  }

  // ---- playbacks ----
  register(
    "playback_start",
    {
      title: "Start a playback",
      description: "Replay a trail (YAML or file), a stored recording or synthetic actions. " +
        "Answers at once with {status: running, playbackId}; read the report with " +
        "playback_results. One playback at a time: a second answers playback_running.",
      inputSchema: PlaybackStartInput,
      outputSchema: { status: z.string(), playbackId: z.string() },
    },
    async (args) =>
      await attempt(async () => {
        let trail = args.trail;
        if (args.trailFile !== undefined) {
          if (!options.readFile) {
            throw new ApiCallError(
              400,
              "invalid_request",
              "trailFile: give the trail as YAML here",
            );
          }
          if (trail !== undefined) {
            throw new ApiCallError(400, "invalid_request", "give trail or trailFile, not both");
          }
          trail = await options.readFile(args.trailFile).catch((err) => {
            throw new ApiCallError(400, "invalid_request", `trailFile: ${(err as Error).message}`);
          });
        }
        const body = {
          ...(trail !== undefined ? { trail } : {}),
          ...(args.recordingId !== undefined ? { recordingId: args.recordingId } : {}),
          ...(args.actions !== undefined ? { actions: args.actions } : {}),
          ...(args.timing !== undefined ? { timing: args.timing } : {}),
          ...(args.onError !== undefined ? { onError: args.onError } : {}),
          ...(args.testId !== undefined ? { testId: args.testId } : {}),
          ...(args.autoBoundary !== undefined ? { autoBoundary: args.autoBoundary } : {}),
          ...(args.valueOverrides !== undefined ? { valueOverrides: args.valueOverrides } : {}),
          ...(args.memory !== undefined ? { memory: args.memory } : {}),
          ...(args.url !== undefined ? { url: args.url } : {}),
          ...(args.tab !== undefined ? { tab: args.tab } : {}),
          ...(args.timeoutMs !== undefined ? { timeoutMs: args.timeoutMs } : {}),
          ...(args.video !== undefined ? { video: args.video } : {}),
        };
        const r = await call("POST", "/v1/playbacks", body);
        const v = r.json as { status: string; playbackId: string };
        return json({ status: v.status, playbackId: v.playbackId });
      }),
  );

  register(
    "playback_results",
    {
      title: "Playback report",
      description: "The playback's report: partial (status running) while it runs, final after",
      inputSchema: { playbackId: z.string().min(1) },
      outputSchema: PlaybackResultsOutput,
    },
    async ({ playbackId }) =>
      await attempt(async () => {
        const r = await call("GET", `/v1/playbacks/${encodeURIComponent(playbackId)}`);
        return json(r.json as Record<string, unknown>);
      }),
  );

  register(
    "playback_stop",
    {
      title: "Stop a playback",
      description: "Stop a running playback before its next action; answers the final report",
      inputSchema: { playbackId: z.string().min(1) },
    },
    async ({ playbackId }) =>
      await attempt(async () => {
        const r = await call("POST", `/v1/playbacks/${encodeURIComponent(playbackId)}/stop`);
        return json(r.json as Record<string, unknown>);
      }),
  );

  // ---- optimizer, validation, time travel, slots ----
  register(
    "optimize",
    {
      title: "Optimize a session into a trail",
      description: "Project a session (ended blaze run, recording or ingested capture) into a " +
        "trail: durable selectors, slots, expressions. explain: why each selector was chosen.",
      inputSchema: {
        sessionId: SessionId,
        mode: z.enum(["strict", "flexible", "adaptive"]).optional(),
        heuristics: z.string().optional(),
        explain: z.boolean().optional(),
      },
      outputSchema: {
        sessionId: z.string(),
        yaml: z.string(),
        warnings: z.array(z.string()),
        explain: z.unknown().optional(),
      },
    },
    async ({ sessionId, mode, heuristics, explain }) =>
      await attempt(async () => {
        const q = new URLSearchParams({ format: "json" });
        if (mode) q.set("mode", mode);
        if (heuristics) q.set("heuristics", heuristics);
        const r = await call("GET", `/v1/sessions/${encodeURIComponent(sessionId)}/trail?${q}`);
        const v = r.json as {
          sessionId: string;
          yaml: string;
          warnings: string[];
          explain: unknown;
        };
        return json(
          {
            sessionId: v.sessionId,
            yaml: v.yaml,
            warnings: v.warnings,
            ...(explain ? { explain: v.explain } : {}),
          },
          v.yaml + (v.warnings.length ? `\n# warnings:\n# ${v.warnings.join("\n# ")}` : ""),
        );
      }),
  );

  register(
    "validate",
    {
      title: "Validate a session's trail",
      description: "Replay the session's trail, compare with its capture and refine until stable " +
        "(policy authoring, dev or ci); answers {status: running, validationId} at once, read " +
        "it with validation_results",
      inputSchema: {
        sessionId: SessionId,
        url: z.string().optional(),
        policy: z.enum(["authoring", "dev", "ci"]).optional(),
        maxIterations: z.number().int().positive().optional(),
        mode: z.enum(["strict", "flexible", "adaptive"]).optional(),
        memory: z.record(z.string(), z.string().nullable()).optional(),
      },
      outputSchema: AnsweredValidationStarted,
    },
    async ({ sessionId, maxIterations, ...rest }) =>
      await attempt(async () => {
        const body = {
          ...rest,
          ...(maxIterations !== undefined ? { maxIterations } : {}),
        };
        const r = await call(
          "POST",
          `/v1/sessions/${encodeURIComponent(sessionId)}/validations`,
          body,
        );
        const v = r.json as { status: string; validationId: string };
        return json({ status: v.status, validationId: v.validationId });
      }),
  );
  register(
    "validation_results",
    {
      title: "Validation report",
      description: "A validation's report: iterations so far while it runs, the final one after",
      inputSchema: { validationId: z.string().min(1) },
      outputSchema: ValidationResultsOutput,
    },
    async ({ validationId }) =>
      await attempt(async () => {
        const r = await call("GET", `/v1/validations/${encodeURIComponent(validationId)}`);
        return json(r.json as Record<string, unknown>);
      }),
  );

  register(
    "history",
    {
      title: "Session history",
      description: "A session's timeline, or with at: its state at that position (time travel)",
      inputSchema: {
        sessionId: SessionId,
        at: z.number().int().positive().optional().describe("A position in the session"),
        from: z.number().int().positive().optional(),
        limit: z.number().int().positive().max(10_000).optional(),
      },
      outputSchema: HistoryOutput,
    },
    async ({ sessionId, at, from, limit }) =>
      await attempt(async () => {
        const id = encodeURIComponent(sessionId);
        if (at !== undefined) {
          const r = await call("GET", `/v1/sessions/${id}/state?at=${at}`);
          return json(r.json as Record<string, unknown>);
        }
        const q = new URLSearchParams();
        if (from !== undefined) q.set("from", String(from));
        if (limit !== undefined) q.set("limit", String(limit));
        const r = await call("GET", `/v1/sessions/${id}/timeline${q.size ? `?${q}` : ""}`);
        return json(r.json as Record<string, unknown>);
      }),
  );

  register(
    "slot_analysis",
    {
      title: "Slot analysis of NL steps",
      description: "Which values the steps read, type or compare: memory names to use before " +
        "blazing (read … into storeAs), their relationships, and instructions for the agent",
      inputSchema: { steps: z.array(z.string().min(1)).min(1) },
    },
    async ({ steps }) =>
      await attempt(async () => {
        const analyzer = options.slotAnalyzer ?? safeAnalyzer();
        const analysis = await analyzer.analyze(steps) as Record<string, unknown>;
        return json(analysis);
      }),
  );

  // ---- resources ----
  server.registerResource(
    "sessions",
    "cairn://sessions",
    { title: "Sessions", description: "Every stored session", mimeType: "application/json" },
    async (uri: URL) => {
      const r = await call("GET", "/v1/sessions");
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: r.text }] };
    },
  );
  server.registerResource(
    "session",
    new ResourceTemplate("cairn://sessions/{id}", { list: undefined }),
    { title: "A session", description: "A session as a cairn.capture/v1 file" },
    async (uri: URL, { id }: Record<string, unknown>) => {
      const r = await call("GET", `/v1/blaze/sessions/${encodeURIComponent(String(id))}/capture`);
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: r.text }] };
    },
  );
  server.registerResource(
    "trail",
    new ResourceTemplate("cairn://trails/{id}", { list: undefined }),
    { title: "A session's trail", description: "The session projected into a trail (YAML)" },
    async (uri: URL, { id }: Record<string, unknown>) => {
      const r = await call("GET", `/v1/sessions/${encodeURIComponent(String(id))}/trail`);
      return { contents: [{ uri: uri.href, mimeType: "application/yaml", text: r.text }] };
    },
  );
  server.registerResource(
    "screenshot",
    new ResourceTemplate("cairn://screenshots/{hash}", { list: undefined }),
    { title: "A screenshot", description: "A stored screenshot (PNG) by its blob hash" },
    async (uri: URL, { hash }: Record<string, unknown>) => ({
      contents: [{ uri: uri.href, mimeType: "image/png", blob: await blob(String(hash)) }],
    }),
  );
  return server;
}

/** A blaze tool result as MCP content: the output, the error, then the diff. */
function asToolResult(result: Record<string, unknown>): CallToolResult {
  const parts = [String(result.output ?? "")];
  if (result.error && !parts[0]!.includes(String(result.error))) {
    parts.push(`Error: ${result.error}`);
  }
  if (result.value !== undefined && !parts[0]!.includes(String(result.value))) {
    parts.push(`Value: ${result.value}`);
  }
  if (typeof result.diff === "string" && result.diff !== "") {
    parts.push(`Snapshot diff after the action:\n${result.diff}`);
  }
  return {
    ...(result.ok === false ? { isError: true } : {}),
    content: [{ type: "text", text: parts.join("\n\n") }],
    structuredContent: result,
  };
}

function safeAnalyzer(): { analyze(steps: readonly string[]): Promise<unknown> } {
  try {
    return slotAnalyzerFromEnv();
  } catch {
    return new HeuristicSlotAnalyzer();
  }
}

function base64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}
