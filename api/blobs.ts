/**
 * Blobs over HTTP: read stored bytes by hash, and store bytes (so an HTTP client can append
 * `ScreenCaptured` events that reference them).
 *
 * A blob is whatever a client or an imported file put there, so it is served as data, never as
 * a page of the API's origin: `nosniff`, a sandboxing CSP, and `attachment` for every type but
 * raster images, JSON, XML and plain text (an HTML blob opened in a browser would otherwise run
 * its script with the API's origin and could drive the API).
 *
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import type { ApiContext } from "./app.ts";
import { invalidRequest, noQuery, parseInput } from "./errors.ts";
import { describeRoute } from "./openapi.ts";
import { BlobRef } from "../events/mod.ts";
import { NotFoundError } from "../events/mod.ts";

/** A sha256 hex digest, or the start of one (8+ digits, as timelines print 12). */
const HashOrShort = z.string().regex(
  /^[0-9a-f]{8,64}$/,
  "expected a sha256 hex digest or its first 8 or more digits",
);

/** The full hash a short one starts (the only stored blob it starts); a full hash as given. */
async function fullHash(ctx: ApiContext, hash: string): Promise<string> {
  if (hash.length === 64 || !ctx.store.blobHashes) return hash;
  const found = await ctx.store.blobHashes(hash, 2);
  if (found.length === 1) return found[0]!;
  if (found.length === 0) throw new NotFoundError(`No blob with hash ${hash}`);
  const message = `${hash} is the start of several blobs' hashes: give more of it`;
  throw invalidRequest(message, [{ path: "path.hash", message }]);
}

/** RFC 9110 `token`. */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
/** RFC 9110 `media-type`: type "/" subtype, then `; name=value` parameters (value a token or quoted). */
const MEDIA_TYPE = new RegExp(
  `^${TOKEN}/${TOKEN}(?:[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|"(?:[^"\\\\\\x00-\\x08\\x0a-\\x1f\\x7f]|\\\\[\\t\\x20-\\x7e\\x80-\\xff])*"))*$`,
);

/**
 * Whether a string is a media type as RFC 9110 writes it (`image/png`,
 * `text/plain; charset=utf-8`), not `../../x; evil`.
 *
 * @param type the string
 * @returns true for a syntactically valid media type
 * @example
 * ```ts
 * if (!isMediaType("text/plain; charset=utf-8") || isMediaType("../../x; evil")) throw new Error();
 * ```
 */
export function isMediaType(type: string): boolean {
  return type.length <= 255 && MEDIA_TYPE.test(type);
}

/** Types a browser may show inline: they run no script (and the CSP sandbox stops any). */
const INLINE =
  /^(image\/(png|jpeg|gif|webp|avif|bmp)|application\/json|application\/[\w.-]+\+json|application\/xml|text\/xml|text\/plain)$/;

/**
 * The headers a blob is served with: its media type (`application/octet-stream` for one stored
 * before types were checked), `nosniff`, `Content-Security-Policy: sandbox`, and
 * `Content-Disposition: attachment` unless the type is a raster image, JSON, XML or plain text.
 *
 * @param ref the blob's ref
 * @returns the headers (without length and caching)
 * @example
 * ```ts
 * const h = blobHeaders({ hash: "0".repeat(64), mediaType: "text/html", size: 1 });
 * if (h["Content-Disposition"] !== "attachment") throw new Error();
 * ```
 */
export function blobHeaders(ref: BlobRef): Record<string, string> {
  const type = isMediaType(ref.mediaType) ? ref.mediaType : "application/octet-stream";
  const essence = type.split(";")[0]!.trim().toLowerCase();
  return {
    "Content-Type": type,
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "sandbox; default-src 'none'",
    ...(INLINE.test(essence) ? {} : { "Content-Disposition": "attachment" }),
  };
}

/** Whether an `If-None-Match` header names this ETag (or `*`); weak tags compare equal. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(",").some((t) => {
    const tag = t.trim().replace(/^W\//, "");
    return tag === "*" || tag === etag;
  });
}

/** `POST /v1/blobs` answer: the stored ref, and why it differs from what was sent. */
export const PutBlobResponse = BlobRef.extend({
  /** Present when the bytes were stored before under another media type (the first is kept). */
  warnings: z.array(z.string()).optional(),
});

describeRoute({
  method: "get",
  path: "/v1/blobs/{hash}",
  summary:
    "A stored blob's bytes, with its media type (served nosniff, sandboxed, as an attachment unless an image, JSON, XML or plain text)",
  tags: ["blobs"],
  parameters: [{
    name: "If-None-Match",
    in: "header",
    description: "The blob's ETag (its hash in quotes): 304, no body",
  }],
  responses: {
    "200": { description: "The bytes", mediaType: "application/octet-stream" },
    "304": { description: "Not modified: If-None-Match names this blob" },
    "404": { description: "No blob with this hash" },
  },
});
describeRoute({
  method: "post",
  path: "/v1/blobs",
  summary:
    "Store the request body as a blob (Content-Type, a valid media type, is kept); returns its ref. The same bytes keep the media type they were first stored with: the answer then names the kept type and says so in `warnings`",
  tags: ["blobs"],
  rawBody: "*/*",
  responses: {
    "201": { description: "Stored (or already stored)", schema: PutBlobResponse },
    "400": { description: "No Content-Type, or one that is not a media type (type/subtype)" },
  },
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
    const hash = await fullHash(ctx, parseInput(HashOrShort, c.req.param("hash"), "path.hash"));
    noQuery(c);
    const etag = `"${hash}"`;
    const blob = await ctx.store.getBlob(hash);
    const caching = { "ETag": etag, "Cache-Control": "public, max-age=31536000, immutable" };
    if (matchesEtag(c.req.header("if-none-match"), etag)) return c.body(null, 304, caching);
    return c.body(blob.bytes as Uint8Array<ArrayBuffer>, 200, {
      ...blobHeaders(blob.ref),
      "Content-Length": String(blob.ref.size),
      ...caching,
    });
  });
  app.post("/blobs", async (c) => {
    const mediaType = c.req.header("content-type")?.trim();
    if (!mediaType) {
      const message = "required: the blob's media type (type/subtype)";
      throw invalidRequest(`header Content-Type: ${message}`, [
        { path: "header.Content-Type", message },
      ]);
    }
    if (!isMediaType(mediaType)) {
      const message = "expected a media type, type/subtype (image/png, text/plain; charset=utf-8)";
      throw invalidRequest(`header Content-Type: ${message}, not ${JSON.stringify(mediaType)}`, [
        { path: "header.Content-Type", message },
      ]);
    }
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    const ref = await ctx.store.putBlob(bytes, mediaType);
    if (ref.mediaType === mediaType) return c.json(ref, 201);
    return c.json({
      ...ref,
      warnings: [
        `These bytes were stored before as ${ref.mediaType}; a blob keeps its first media type, ` +
        `so ${mediaType} was not recorded`,
      ],
    }, 201);
  });
  return app;
}
