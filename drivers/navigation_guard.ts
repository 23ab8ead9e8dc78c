/**
 * Which pages a browser run may open, checked in one place: by the Chrome driver at the moment it
 * navigates, after every template was expanded (a `{{target}}` that memory fills with
 * `file:///etc/passwd` is seen as what it is). Replay, validate, HTTP playbacks and blaze all
 * navigate through it.
 *
 * A run opens `http:` and `https:` pages and `about:blank`. `file:` (and `data:`) pages open only
 * when the driver was launched for local files: an explicit command-line flag
 * (`--allow-file-urls`), never a run started over HTTP. A redirect that ends on another scheme is
 * refused as well (the driver checks where the navigation ended).
 *
 * @module
 */
import { DriverError } from "./driver.ts";

/** The error code of a refused navigation (a playback step's `errorCode`). */
export const UNSAFE_URL = "unsafe_url";

/** Which pages a run may open: web pages only, or local files too (a CLI flag). */
export interface NavigationPolicy {
  /** `file:` and `data:` pages too (only ever set from a command-line flag). */
  localFiles?: boolean;
}

const WEB = new Set(["http:", "https:"]);
const LOCAL = new Set(["file:", "data:"]);

/**
 * The scheme of a url, lower-cased with its colon (`file:`), or `undefined` for text that is
 * not a url.
 */
function schemeOf(url: string): string | undefined {
  const parsed = URL.parse(url);
  if (parsed) return parsed.protocol.toLowerCase();
  const m = /^([a-z][a-z0-9+.-]*):/i.exec(url.trim());
  return m ? `${m[1]!.toLowerCase()}:` : undefined;
}

/**
 * Why a run may not open a url, or `undefined` when it may.
 *
 * @param url the url as it will be opened (templates expanded)
 * @param policy whether local files are allowed
 * @returns a one-line reason naming the scheme, or undefined
 * @example
 * ```ts
 * if (unsafeNavigation("https://example.com/") !== undefined) throw new Error();
 * if (!unsafeNavigation("file:///etc/passwd")?.includes("file:")) throw new Error();
 * if (unsafeNavigation("file:///tmp/a.html", { localFiles: true }) !== undefined) throw new Error();
 * ```
 */
export function unsafeNavigation(url: string, policy: NavigationPolicy = {}): string | undefined {
  if (url === "about:blank") return undefined;
  const scheme = schemeOf(url);
  if (scheme && WEB.has(scheme)) return undefined;
  if (scheme && LOCAL.has(scheme) && policy.localFiles) return undefined;
  const what = scheme ? `a ${scheme} url` : "text that is not a url";
  const allowed = policy.localFiles
    ? "http, https, file and data pages and about:blank"
    : "http and https pages and about:blank" +
      (scheme === "file:" ? " (a local file needs --allow-file-urls on the command line)" : "");
  return `${UNSAFE_URL}: refused to open ${what} (${short(url)}): only ${allowed} are opened`;
}

/**
 * Throws when a run may not open a url ({@linkcode unsafeNavigation}).
 *
 * @param url the url as it will be opened
 * @param policy whether local files are allowed
 * @throws {DriverError} code `unsafe_url`, naming the scheme
 */
export function checkNavigation(url: string, policy: NavigationPolicy = {}): void {
  const problem = unsafeNavigation(url, policy);
  if (problem) throw new DriverError(problem, UNSAFE_URL);
}

/**
 * Whether an error is a refused navigation ({@linkcode checkNavigation}).
 *
 * @param err what was thrown
 * @returns true for a `DriverError` with code `unsafe_url`
 */
export function isUnsafeUrl(err: unknown): boolean {
  return err instanceof DriverError && err.code === UNSAFE_URL;
}

/** A url cut for a message (a data: url can be long). */
function short(url: string): string {
  return url.length > 80 ? `${url.slice(0, 77)}...` : url;
}
