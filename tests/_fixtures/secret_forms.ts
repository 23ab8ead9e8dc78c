/**
 * Test helper: the forms a secret takes in stored text, to scan events, blobs and exports for.
 *
 * @module
 */
import { assert } from "./assert.ts";

/**
 * A secret raw, JSON-escaped, XML-escaped, `encodeURIComponent`-encoded and form-encoded (both
 * as `URLSearchParams` writes it and with every one of `!'()*~` percent-encoded).
 *
 * @param secret the value typed
 * @returns its forms, by name
 */
export function secretForms(secret: string): Record<string, string> {
  const uri = encodeURIComponent(secret);
  return {
    raw: secret,
    json: JSON.stringify(secret).slice(1, -1),
    xml: secret.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&apos;"),
    uri,
    form: new URLSearchParams({ v: secret }).toString().slice(2),
    formAll: uri.replace(/%20/g, "+").replace(
      /[!'()*~]/g,
      (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
    ),
  };
}

/**
 * Asserts that a text holds a secret in none of its forms.
 *
 * @param text what was stored or printed
 * @param secret the value typed
 * @param where what the text is, for the message
 */
export function assertNoSecret(text: string, secret: string, where: string): void {
  for (const [name, form] of Object.entries(secretForms(secret))) {
    assert(!text.includes(form), `${where} holds the secret (${name}: ${form})`);
  }
}

/**
 * Every byte of an SQLite database's files (main, WAL, shared memory, journal) as latin1 text,
 * to search for what must not be stored.
 *
 * @param path the database file
 * @returns the bytes of the files that exist, as text
 */
export async function dbBytes(path: string): Promise<string> {
  let out = "";
  for (const p of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    try {
      out += new TextDecoder("latin1").decode(await Deno.readFile(p));
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  return out;
}
