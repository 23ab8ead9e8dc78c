/**
 * Trails over HTTP: `GET /v1/sessions/:id/trail?mode=&heuristics=` projects a stored capture
 * into trail YAML (the same bytes `cairn optimize` prints); `&format=json` returns the trail
 * with the optimizer's explanation and warnings.
 *
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import { HEURISTICS_VERSION, HEURISTICS_VERSIONS } from "../engine/trail/mod.ts";
import { RecentMap, type ScreenTable } from "../engine/screens/mod.ts";
import { projectSessionTrail } from "../engine/optimizer/mod.ts";
import { SelectorMode, Trail } from "../engine/trail/mod.ts";
import type { Screen } from "../engine/screens/mod.ts";
import type { ApiContext } from "./app.ts";
import { parseInput, parseQuery } from "./errors.ts";
import { resolveId } from "./_ids.ts";
import { describeRoute } from "./openapi.ts";

const SessionId = z.string().min(1).max(200).regex(
  /^[A-Za-z0-9._:-]+$/,
  "letters, digits, . _ : -",
);
const TrailQuery = z.object({
  mode: SelectorMode.default("adaptive"),
  heuristics: z.enum(HEURISTICS_VERSIONS as [string, ...string[]]).default(HEURISTICS_VERSION),
  format: z.enum(["yaml", "json"]).default("yaml"),
});
const CACHE_LIMIT = 256; // parsed screens and tables kept across requests, the last used

/** `GET /v1/sessions/:id/trail?format=json` answer. */
export const TrailJson = z.object({
  sessionId: z.string(),
  /** The same YAML `format=yaml` answers. */
  yaml: z.string(),
  trail: Trail,
  /** Why each selector was chosen (as `cairn optimize --explain`). */
  explain: z.unknown(),
  warnings: z.array(z.string()),
});

describeRoute({
  method: "get",
  path: "/v1/sessions/{id}/trail",
  summary: "The session's capture projected into a trail (YAML; format=json adds the explanation)",
  tags: ["trails"],
  parameters: [
    {
      name: "mode",
      in: "query",
      description: "Selector mode",
      enum: SelectorMode.options,
      default: "adaptive",
    },
    {
      name: "heuristics",
      in: "query",
      description: "Optimizer heuristics version",
      enum: HEURISTICS_VERSIONS,
      default: HEURISTICS_VERSION,
    },
    {
      name: "format",
      in: "query",
      description: "yaml: the trail YAML; json: the trail with the explanation and warnings",
      enum: ["yaml", "json"],
      default: "yaml",
    },
  ],
  responses: {
    "200": {
      description:
        "The trail as YAML (application/yaml), or with format=json the trail, its YAML, the explanation and warnings (application/json); headers X-Cairn-Heuristics and X-Cairn-Selector-Mode name what was used",
      content: { "application/yaml": z.string(), "application/json": TrailJson },
    },
    "404": { description: "No such session (`No session <id>`)" },
  },
});

/**
 * The trails router (mounted under `/v1`).
 *
 * @param ctx the shared API context
 * @returns a hono router
 */
export function trailsRouter(ctx: ApiContext): Hono {
  const app = new Hono();
  const screens = new RecentMap<string, Screen>(CACHE_LIMIT);
  const tables = new RecentMap<string, ScreenTable>(CACHE_LIMIT);
  app.get("/sessions/:id/trail", async (c) => {
    const given = parseInput(SessionId, c.req.param("id"), "path.id");
    const q = parseQuery(TrailQuery, c);
    const id = await resolveId(ctx.store, "session", given);
    const p = await projectSessionTrail(ctx.store, id, {
      mode: q.mode,
      heuristics: q.heuristics,
      screens,
      tables,
    });
    c.header("X-Cairn-Heuristics", p.heuristics);
    c.header("X-Cairn-Selector-Mode", p.mode);
    if (q.format === "json") {
      return c.json({
        sessionId: id,
        yaml: p.yaml,
        trail: p.trail,
        explain: p.explain,
        warnings: p.warnings,
      });
    }
    return c.body(p.yaml, 200, { "Content-Type": "application/yaml; charset=utf-8" });
  });
  return app;
}
