/**
 * Blobs over HTTP: read stored bytes by hash, and store bytes (so an HTTP client can append
 * `ScreenCaptured` events that reference them).
 *
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import type { ApiContext } from "./app.ts";
import { invalidRequest, parseInput } from "./errors.ts";
import { describeRoute } from "./openapi.ts";
import { BlobRef } from "../events/schemas.ts";

const Hash = z.string().regex(/^[0-9a-f]{64}$/, "expected a sha256 hex digest");

describeRoute({
  method: "get",
  path: "/v1/blobs/{hash}",
  summary: "A stored blob's bytes, with its media type",
  tags: ["blobs"],
  responses: { "200": { description: "The bytes", mediaType: "application/octet-stream" } },
});
describeRoute({
  method: "post",
  path: "/v1/blobs",
  summary: "Store the request body as a blob (Content-Type is kept); returns its ref",
  tags: ["blobs"],
  rawBody: "*/*",
  responses: { "201": { description: "Stored (or already stored)", schema: BlobRef } },
});

/**
 * The blobs router (mounted under `/v1`).
 *
 * @param ctx the shared API context
 * @returns a hono router
 */
export function blobsRouter(ctx: ApiContext): Hono {
  const app = new Hono();
  app.get("/blobs/:hash", async (c) => {
    const hash = parseInput(Hash, c.req.param("hash"), "path.hash");
    const blob = await ctx.store.getBlob(hash);
    return c.body(blob.bytes as Uint8Array<ArrayBuffer>, 200, {
      "Content-Type": blob.ref.mediaType,
      "Content-Length": String(blob.ref.size),
      "ETag": `"${hash}"`,
      "Cache-Control": "public, max-age=31536000, immutable",
    });
  });
  app.post("/blobs", async (c) => {
    const mediaType = c.req.header("content-type");
    if (!mediaType) throw invalidRequest("Content-Type header is required for a blob");
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    const ref = await ctx.store.putBlob(bytes, mediaType);
    return c.json(ref, 201);
  });
  return app;
}
