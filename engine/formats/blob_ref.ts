/**
 * The content address of a blob, computed the way the event store computes it (sha256 hex),
 * so an importer can build its events before anything is stored.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { BlobRef } from "../../events/mod.ts";

/** Bytes to store and their media type. */
export interface PendingBlob {
  bytes: Uint8Array;
  mediaType: string;
}

/** The hash of byte arrays hashed already (an import asks twice: to dedupe and to refer). */
const HASHES = new WeakMap<Uint8Array, string>();

/**
 * The reference a blob will have once stored.
 *
 * @param blob the bytes and media type
 * @returns sha256 hex, media type and size
 * @example
 * ```ts
 * const r = blobRefOf({ bytes: new Uint8Array(), mediaType: "text/plain" });
 * if (r.hash !== "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") throw new Error();
 * ```
 */
export function blobRefOf(blob: PendingBlob): BlobRef {
  let hash = HASHES.get(blob.bytes);
  if (hash === undefined) {
    hash = createHash("sha256").update(blob.bytes).digest("hex");
    HASHES.set(blob.bytes, hash);
  }
  return { hash, mediaType: blob.mediaType, size: blob.bytes.length };
}
