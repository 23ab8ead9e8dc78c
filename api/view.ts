/**
 * The run viewer: `GET /view/:id` serves a page (plain HTML, CSS and a JavaScript module from
 * `api/view_assets/`, no build step, nothing from a CDN) that shows a session, playback or
 * validation action by action — the timeline, the screenshot before and after with the point and
 * the target's box, the snapshot text, memory, the tool call and the replay report row.
 * `GET /v1/view/:id` is the data it reads (one request for the whole run), and
 * `GET /v1/view/:id/snapshot?at=N` the snapshot text at a position.
 *
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import type { ApiContext } from "./app.ts";
import { decimal, invalidRequest, parseInput, parseQuery, pathId } from "./errors.ts";
import { timelineStream } from "./sessions.ts";
import { ActionTarget, BlobRef, type EventStore, StepStability } from "../events/mod.ts";
import { stateAt } from "../engine/timeline/mod.ts";
import { streamInfo } from "../events/mod.ts";
import { runView } from "./_view_data.ts";
import { describeRoute } from "./openapi.ts";
import { snapshotAt } from "../engine/timeline/mod.ts";
import { diffSnapshots, formatSnapshotDiff } from "../engine/screens/mod.ts";

const Box = z.object({ x: z.number(), y: z.number(), w: z.number(), h: z.number() });

/** One action of the viewer (`runView` of `./_view_data.ts`). */
const ViewItem = z.object({
  position: z.number().int().positive().describe("The action's first event: the state before"),
  end: z.number().int().positive().describe("Its last event (its result)"),
  step: z.string().nullable(),
  label: z.string(),
  status: z.enum(["ok", "healed", "failed", "skipped", "pending"]),
  durationMs: z.number().nullable(),
  before: BlobRef.nullable().describe("The screenshot before"),
  after: BlobRef.nullable().describe("The screenshot after"),
  viewport: z.object({ width: z.number(), height: z.number() }).nullable(),
  point: z.union([Box, z.object({ x: z.number(), y: z.number() })]).nullable(),
  box: Box.nullable(),
  ref: z.string().nullable(),
  memory: z.record(z.string(), z.string()),
  changed: z.array(z.string()).describe("The memory names it wrote"),
  call: z.union([
    z.object({
      tool: z.string(),
      params: z.record(z.string(), z.unknown()).nullable(),
      target: ActionTarget.optional(),
    }),
    z.object({ action: z.string(), description: z.string().nullable() }),
  ]).nullable().describe("A capture's tool call, or a replayed action"),
  reason: z.string().nullable(),
  report: z.union([
    z.object({
      status: z.enum(["ok", "failed", "healed", "skipped"]),
      strategy: z.string().nullable(),
      selector: z.string().nullable(),
      selectorUsed: z.string().nullable(),
      healedSelector: z.string().nullable(),
      tried: z.array(
        z.object({ strategy: z.string(), selector: z.string(), matches: z.number() }),
      ),
      errorCode: z.string().nullable(),
      error: z.string().nullable(),
      likelyCause: z.string().nullable(),
      pageUrl: z.string().nullable(),
      warning: z.string().nullable(),
    }),
    z.object({ playbackId: z.string(), steps: z.array(StepStability) }),
  ]).nullable().describe("A replayed action's report row, or a validation iteration's verdicts"),
  error: z.string().nullable(),
  offsetMs: z.number().nullable().describe("Time since the playback started: where its video is"),
});

/** `GET /v1/view/:id` answer. */
export const RunViewResponse = z.object({
  streamId: z.string(),
  kind: z.enum(["session", "playback", "validation"]),
  title: z.string(),
  items: z.array(ViewItem),
  lastPosition: z.number().int().positive(),
  video: z.object({ url: z.string(), durationMs: z.number().nullable() }).nullable(),
});

/** `GET /v1/view/:id/snapshot` answer. */
export const ViewSnapshotResponse = z.object({
  streamId: z.string(),
  at: z.number().int(),
  screenPosition: z.number().int().nullable().describe("The screen shown at `at`"),
  text: z.string().nullable().describe("The snapshot text (null: no hierarchy)"),
});

/** `GET /v1/view/:id/diff` answer. */
export const ViewDiffResponse = z.object({
  streamId: z.string(),
  at: z.number().int(),
  screenPosition: z.number().int().nullable(),
  fromPosition: z.number().int().nullable().describe("The screen compared with"),
  text: z.string().nullable()
    .describe("The diff (null: no screen, or no earlier one, to compare)"),
  added: z.number().int().nonnegative(),
  removed: z.number().int().nonnegative(),
  changed: z.number().int().nonnegative(),
});

const ASSETS: Record<string, string> = {
  "viewer.js": "text/javascript; charset=utf-8",
  "viewer.css": "text/css; charset=utf-8",
};

async function asset(name: string): Promise<string> {
  return await Deno.readTextFile(new URL(`./view_assets/${name}`, import.meta.url));
}

const Id = pathId();

describeRoute({
  method: "get",
  path: "/v1/view/{id}",
  summary:
    "The run viewer's data: a session's, playback's or validation's actions with step, status, duration, screenshots before and after, point, box, memory, call and report row",
  tags: ["sessions"],
  responses: {
    "200": {
      description: "`{ streamId, kind, title, items, lastPosition, video }`",
      schema: RunViewResponse,
    },
    "400": { description: "The id starts several runs' ids" },
    "404": { description: "No such session, playback or validation" },
  },
});
describeRoute({
  method: "get",
  path: "/v1/view/{id}/snapshot",
  summary: "The snapshot text (elements, refs and bounds) of the screen at global position `at`",
  tags: ["sessions"],
  parameters: [{ name: "at", in: "query", type: "integer", description: "Global position" }],
  responses: {
    "200": {
      description: "`{ streamId, at, screenPosition, text }` (text null: no hierarchy)",
      schema: ViewSnapshotResponse,
    },
    "400": { description: "`at` missing, not a position, or before the run's first event" },
    "404": { description: "No such session, playback or validation" },
  },
});
describeRoute({
  method: "get",
  path: "/v1/view/{id}/diff",
  summary:
    "What changed on screen: the snapshot at global position `at` against the one at `from` (default: the screen captured before it)",
  tags: ["sessions"],
  parameters: [
    { name: "at", in: "query", type: "integer", description: "Global position" },
    {
      name: "from",
      in: "query",
      type: "integer",
      description: "Global position to compare with (default: the previous screen's)",
    },
  ],
  responses: {
    "200": {
      description:
        "`{ streamId, at, screenPosition, fromPosition, text, added, removed, changed }` (text null: no screen, or no earlier one, to compare)",
      schema: ViewDiffResponse,
    },
    "400": {
      description: "`at` or `from` missing, not a position, or before the run's first event",
    },
    "404": { description: "No such session, playback or validation" },
  },
});
describeRoute({
  method: "get",
  path: "/view/{id}",
  operationId: "getViewerPage", // `/v1/view/{id}` is getViewById
  summary: "The run viewer: an HTML page for a session, playback or validation (`?at=` a position)",
  tags: ["sessions"],
  responses: {
    "200": { description: "The viewer's HTML page" },
    "400": { description: "The id is not a valid id" },
  },
});
const AtQuery = z.object({ at: decimal() });
const DiffQuery = z.object({ at: decimal(), from: decimal().optional() });

/**
 * The viewer router (mounted at `/`).
 *
 * @param ctx the shared API context
 * @returns a hono router
 */
export function viewRouter(ctx: ApiContext): Hono {
  const app = new Hono();
  app.get("/view/:id", async (c) => {
    parseInput(Id, c.req.param("id"), "path.id");
    return c.html(await asset("viewer.html"));
  });
  app.get("/view-assets/:name", async (c) => {
    const name = c.req.param("name");
    const type = ASSETS[name];
    if (!type) return c.json({ error: { code: "not_found", message: `No asset ${name}` } }, 404);
    return c.body(await asset(name), 200, { "Content-Type": type, "Cache-Control": "no-cache" });
  });
  app.get("/v1/view/:id", async (c) => {
    const given = parseInput(Id, c.req.param("id"), "path.id");
    const streamId = await timelineStream(ctx.store, given);
    return c.json(await runView(ctx.store, streamId));
  });
  app.get("/v1/view/:id/snapshot", async (c) => {
    const given = parseInput(Id, c.req.param("id"), "path.id");
    const q = parseQuery(AtQuery, c);
    const streamId = await timelineStream(ctx.store, given);
    const info = await streamInfo(ctx.store, streamId);
    if (info && q.at < info.firstPosition) {
      const message =
        `at ${q.at} is before this run's first event (position ${info.firstPosition})`;
      throw invalidRequest(message, [{ path: "query.at", message }]);
    }
    const state = await stateAt(ctx.store, streamId, q.at);
    const text = await snapshotAt(ctx.store as EventStore, state, { bounds: true });
    return c.json({ streamId, at: q.at, screenPosition: state.screen?.position ?? null, text });
  });
  app.get("/v1/view/:id/diff", async (c) => {
    const given = parseInput(Id, c.req.param("id"), "path.id");
    const q = parseQuery(DiffQuery, c);
    const streamId = await timelineStream(ctx.store, given);
    const info = await streamInfo(ctx.store, streamId);
    for (const [name, at] of [["at", q.at], ["from", q.from]] as const) {
      if (info && at !== undefined && at < info.firstPosition) {
        const message =
          `${name} ${at} is before this run's first event (position ${info.firstPosition})`;
        throw invalidRequest(message, [{ path: `query.${name}`, message }]);
      }
    }
    const store = ctx.store as EventStore;
    const state = await stateAt(store, streamId, q.at);
    const screenPosition = state.screen?.position ?? null;
    // the screen to compare with: the one at `from`, or the one captured before this one
    const earlier = q.from !== undefined
      ? await stateAt(store, streamId, q.from)
      : screenPosition !== null && screenPosition - 1 >= (info?.firstPosition ?? 0)
      ? await stateAt(store, streamId, screenPosition - 1)
      : undefined;
    const fromPosition = earlier?.screen?.position ?? null;
    const [before, after] = await Promise.all([
      earlier ? snapshotAt(store, earlier) : Promise.resolve(null),
      snapshotAt(store, state),
    ]);
    const base = { streamId, at: q.at, screenPosition, fromPosition };
    if (before === null || after === null) {
      return c.json({ ...base, text: null, added: 0, removed: 0, changed: 0 });
    }
    const diff = diffSnapshots(before, after);
    return c.json({
      ...base,
      text: fromPosition === screenPosition ? "unchanged\n" : formatSnapshotDiff(diff),
      added: diff.added.length,
      removed: diff.removed.length,
      changed: diff.changed.length,
    });
  });
  return app;
}
