/**
 * The OpenAPI 3.1 document of the HTTP API, built from a registry each router fills with
 * {@linkcode describeRoute} when its module loads, so a new route is listed by describing it
 * next to its handler.
 *
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import { camelBodySchema, camelResponseSchema } from "./_casing.ts";

/** One route of the API as the OpenAPI document lists it. */
export interface RouteDescription {
  method: "get" | "post" | "put" | "patch" | "delete";
  /** Unique name of the operation (default: from the method and path, `getPlaybacksById`). */
  operationId?: string;
  /** OpenAPI path template: `/v1/streams/{id}/events`. */
  path: string;
  summary: string;
  tags?: string[];
  /** Path/query/header parameters. */
  parameters?: {
    name: string;
    in: "path" | "query" | "header";
    required?: boolean;
    description?: string;
    /** Its JSON Schema type (default string). */
    type?: "string" | "integer";
    /** The values it takes. */
    enum?: readonly string[];
    /** Its value when absent. */
    default?: string | number;
  }[];
  /** JSON request body schema. */
  body?: z.ZodType;
  /** The body may be left out (every field optional: an empty body is `{}`). */
  bodyOptional?: boolean;
  /** A request body that is not JSON: its media type (any type: the wildcard). */
  rawBody?: string;
  /**
   * Responses by status: a description and an optional JSON schema or media type, or `content`:
   * several media types, each with its schema (or none).
   */
  responses?: Record<
    string,
    {
      description: string;
      schema?: z.ZodType;
      mediaType?: string;
      content?: Record<string, z.ZodType | undefined>;
    }
  >;
}

const routes: RouteDescription[] = [];

/**
 * Adds a route to the OpenAPI document (call at module top level, beside the router).
 *
 * @param route the route
 * @example
 * ```ts
 * describeRoute({ method: "get", path: "/v1/ping", summary: "Liveness" });
 * ```
 */
export function describeRoute(route: RouteDescription): void {
  const dup = routes.findIndex((r) => r.method === route.method && r.path === route.path);
  if (dup >= 0) routes.splice(dup, 1);
  routes.push(route);
}

/** Every described route (a copy). */
export function describedRoutes(): RouteDescription[] {
  return [...routes];
}

const ErrorBody = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  }),
});

/** Schemas shared by name in `components.schemas`, by the zod schema they are made from. */
const shared = new Map<z.ZodType, { name: string; io: "input" | "output" }>();

/**
 * Names a schema in `components.schemas`: wherever a route's body or response uses this very
 * schema, the document refers to it (`#/components/schemas/<name>`).
 *
 * @param name the component's name (`PlaybackReport`)
 * @param schema the zod schema
 * @param io whether it describes what is sent (input, the default) or what is answered
 * @returns the schema, for chaining
 * @example
 * ```ts
 * import { z } from "zod";
 * const Ping = describeSchema("Ping", z.object({ ok: z.boolean() }));
 * if (!Ping.parse({ ok: true }).ok) throw new Error();
 * ```
 */
export function describeSchema<T extends z.ZodType>(
  name: string,
  schema: T,
  io: "input" | "output" = "input",
): T {
  shared.set(schema, { name, io });
  return schema;
}
describeSchema("Error", ErrorBody, "output");

/**
 * Converts schemas to JSON Schema for one document: a shared schema becomes a `$ref`, and the
 * `$defs` a conversion nests (recursive schemas) are moved to `components.schemas` under
 * unique names, their `$ref`s rewritten, so every pointer resolves from the document's root.
 */
class SchemaSet {
  readonly components: Record<string, unknown> = {};
  #n = 0;

  ref(schema: z.ZodType, io: "input" | "output" = "input"): unknown {
    const named = shared.get(schema);
    if (!named) {
      // a union of shared schemas: one of their refs
      const options = schema instanceof z.ZodUnion ? schema.options as z.ZodType[] : [];
      if (options.length > 0 && options.every((o) => shared.has(o))) {
        return {
          oneOf: options.map((o) => this.ref(o, io)),
          ...(schema.description ? { description: schema.description } : {}),
        };
      }
      return this.#convert(schema, io);
    }
    if (!(named.name in this.components)) {
      this.components[named.name] = {}; // a placeholder first: a recursion refers to it
      const converted = this.#convert(schema, named.io) as Record<string, unknown>;
      if (schema instanceof z.ZodDiscriminatedUnion && Array.isArray(converted.oneOf)) {
        converted.discriminator = { propertyName: schema.def.discriminator };
      }
      this.components[named.name] = converted;
    }
    return { $ref: `#/components/schemas/${named.name}` };
  }

  #convert(schema: z.ZodType, io: "input" | "output"): unknown {
    const out = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
    delete out.$schema;
    const defs = (out.$defs ?? {}) as Record<string, unknown>;
    delete out.$defs;
    const renamed = new Map<string, string>();
    for (const key of Object.keys(defs)) renamed.set(key, `Def${++this.#n}`);
    const fix = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(fix);
      if (v === null || typeof v !== "object") return v;
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        if (k === "$ref" && typeof x === "string" && x.startsWith("#/$defs/")) {
          o[k] = `#/components/schemas/${renamed.get(x.slice(8)) ?? x.slice(8)}`;
        } else if (k === "$ref" && x === "#") {
          o[k] = "#/components/schemas/" + (renamed.get("__root") ?? "__root");
        } else o[k] = fix(x);
      }
      return o;
    };
    // what is answered: with the camelCase names the API answers with (api/_casing.ts)
    const named = io === "output" ? camelResponseSchema : (v: unknown) => v;
    for (const [key, def] of Object.entries(defs)) {
      this.components[renamed.get(key)!] = named(fix(def));
    }
    return named(fix(out));
  }
}

/**
 * The operation id of a route: its method, then its path's words, `By` each parameter
 * (`post /v1/playbacks/{id}/stop` → `postPlaybacksByIdStop`).
 *
 * @param method the method
 * @param path the OpenAPI path
 * @returns the id
 */
export function operationIdOf(method: string, path: string): string {
  const words = path.replace(/^\/v1\//, "/").split(/[/._-]+/).filter(Boolean).map((w) => {
    const param = /^\{(\w+)\}$/.exec(w);
    const word = param ? `By${param[1]![0]!.toUpperCase()}${param[1]!.slice(1)}` : w;
    return word[0]!.toUpperCase() + word.slice(1);
  });
  return method.toLowerCase() + words.join("");
}

/** A route as the app serves it (hono's `app.routes` entries). */
export interface ServedRoute {
  method: string;
  path: string;
}

const METHODS = new Set(["get", "post", "put", "patch", "delete"]);

/**
 * Builds the OpenAPI 3.1 document from the registry. Served routes that nobody described are
 * listed too (summary "Undocumented route"), so the document names every route.
 *
 * @param served the app's routes (`app.routes`)
 * @returns the document
 */
export function openApiDocument(served: readonly ServedRoute[] = []): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas = new SchemaSet();
  const jsonSchema = (schema: z.ZodType, io: "input" | "output" = "input") =>
    schemas.ref(schema, io);
  const all = [...routes];
  for (const r of served) {
    const method = r.method.toLowerCase();
    if (!METHODS.has(method)) continue;
    const path = r.path.replace(/:(\w+)/g, "{$1}");
    if (all.some((d) => d.method === method && d.path === path)) continue;
    all.push({ method: method as RouteDescription["method"], path, summary: "Undocumented route" });
  }
  for (const r of all.sort((a, b) => a.path.localeCompare(b.path))) {
    const responses: Record<string, unknown> = {};
    for (const [status, res] of Object.entries(r.responses ?? { "200": { description: "OK" } })) {
      const content: Record<string, z.ZodType | undefined> = res.content ??
        (res.schema || res.mediaType ? { [res.mediaType ?? "application/json"]: res.schema } : {});
      responses[status] = {
        description: res.description,
        ...(Object.keys(content).length
          ? {
            content: Object.fromEntries(
              Object.entries(content).map(([type, schema]) => [
                type,
                schema ? { schema: jsonSchema(schema, "output") } : {},
              ]),
            ),
          }
          : {}),
      };
    }
    responses["default"] = {
      description: "Error",
      content: { "application/json": { schema: jsonSchema(ErrorBody) } },
    };
    const pathParams = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const declared = new Set((r.parameters ?? []).map((p) => p.name));
    const parameters = [
      ...pathParams.filter((p) => !declared.has(p)).map((name) => ({
        name,
        in: "path",
        required: true,
        schema: { type: "string" },
      })),
      ...(r.parameters ?? []).map(({ type, enum: values, default: dflt, ...p }) => ({
        ...p,
        required: p.in === "path" ? true : p.required ?? false,
        schema: {
          type: type ?? "string",
          ...(values ? { enum: values } : {}),
          ...(dflt !== undefined ? { default: dflt } : {}),
        },
      })),
    ];
    (paths[r.path] ??= {})[r.method] = {
      operationId: r.operationId ?? operationIdOf(r.method, r.path),
      summary: r.summary,
      ...(r.tags ? { tags: r.tags } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(r.body
        ? {
          requestBody: {
            required: !r.bodyOptional,
            content: {
              "application/json": { schema: camelBodySchema(r.path, jsonSchema(r.body)) },
            },
          },
        }
        : r.rawBody
        ? {
          requestBody: {
            required: true,
            content: { [r.rawBody]: { schema: { type: "string", contentMediaType: r.rawBody } } },
          },
        }
        : {}),
      responses,
    };
  }
  // a listed path asked with a method it does not take answers 405 (api/app.ts): the path item
  // names the methods its Allow header lists (GET brings HEAD, as hono answers HEAD with it)
  for (const item of Object.values(paths)) {
    const allow = new Set(Object.keys(item).map((m) => m.toUpperCase()));
    if (allow.has("GET")) allow.add("HEAD");
    item.description = `Any other method answers 405 method_not_allowed ` +
      `(#/components/responses/MethodNotAllowed) with Allow: ${[...allow].sort().join(", ")}`;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Cairn",
      version: "0.1.0",
      description: "Cairn's event log, sessions and projections. A listed path asked with a " +
        "method it does not take answers 405 method_not_allowed with an Allow header naming the " +
        "methods it takes (each path item's description lists them); an unlisted path 404 not_found",
    },
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: schemas.components,
      responses: {
        MethodNotAllowed: {
          description: "The path is served, not with this method (`method_not_allowed`, " +
            "`<METHOD> is not allowed on <path> (allowed: …)`)",
          headers: {
            Allow: {
              description: "The methods the path takes, comma-separated (`GET, HEAD, POST`)",
              schema: { type: "string" },
            },
          },
          content: { "application/json": { schema: jsonSchema(ErrorBody) } },
        },
      },
    },
    security: [{}, { bearer: [] }],
    paths,
  };
}

describeRoute({
  method: "get",
  path: "/openapi.json",
  summary: "This OpenAPI 3.1 document",
  tags: ["meta"],
});

/**
 * The router serving `GET /openapi.json`.
 *
 * @param served the app's routes, read at request time (`() => app.routes`)
 * @returns a hono router
 */
export function openApiRouter(served: () => readonly ServedRoute[] = () => []): Hono {
  return new Hono().get("/openapi.json", (c) => c.json(openApiDocument(served())));
}
