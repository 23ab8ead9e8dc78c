/**
 * Reads any playable file into a plan: a trail (YAML), a Maestro flow (YAML: an `appId` header,
 * `---`, the commands), a `recording_v1`, a Chrome DevTools Recorder flow, a synthetic action array (`[…]` or `{ "actions": […] }`), or a Cairn capture
 * / events file (through the import, as session events). Also re-points a plan at another
 * base url (`cairn replay FILE --url URL`).
 *
 * @module
 */
import { CAPTURE_FORMAT } from "../formats/mod.ts";
import { parseTrail, trailSizeProblem } from "../trail/mod.ts";
import { looksLikeMaestroFlow, parseMaestroFlow } from "../formats/mod.ts";
import { parseChromeRecorder } from "../formats/mod.ts";
import { z } from "zod";
import { FormatError, zodToFormatError } from "../input/mod.ts";
import { detectImportFormat, prepareImport } from "../formats/mod.ts";
import type { PlaybackPlan } from "./actions.ts";
import { trailToPlan } from "./from_trail.ts";
import { recordingV1ToPlan } from "./from_recording_v1.ts";
import { chromeRecorderToPlan } from "./from_chrome_recorder.ts";
import { maestroToPlan } from "./from_maestro.ts";
import { maestroToTrail } from "../export/mod.ts";

const hasInlineCommands = (args: unknown): boolean =>
  typeof args === "object" && args !== null &&
  Array.isArray((args as { commands?: unknown }).commands);
import { syntheticToPlan } from "./from_synthetic.ts";
import { eventsToPlan, type SessionEvent } from "./from_events.ts";

/** Options of {@linkcode planFromText}. */
export interface LoadPlanOptions {
  /** The file name (errors and the plan's source name it). */
  file?: string;
  /** Reads a file referenced by a capture, relative to the loaded file. */
  readFile?: (relativePath: string) => Promise<Uint8Array>;
  /**
   * The memory keys the run supplies (`--memory`): given, a trail template reading a key nothing
   * can set is refused (see `unsetVariable` of `engine/trail/trail.ts`).
   */
  memoryKeys?: readonly string[];
}

/**
 * Parses a file's text into a plan, detecting its kind.
 *
 * @param text the file's text
 * @param options the file name and a reader for referenced files
 * @returns the plan
 * @throws {SyntaxError} (a `FormatError` or a YAML error) naming the file and the field or line
 */
export async function planFromText(
  text: string,
  options: LoadPlanOptions = {},
): Promise<PlaybackPlan> {
  const file = options.file;
  const trimmed = text.trimStart();
  const json = trimmed.startsWith("{") || trimmed.startsWith("[");
  // a trail or Maestro flow: the YAML library's time grows with the size, refuse what is too big
  const tooBig = json ? undefined : trailSizeProblem(text);
  if (tooBig) throw new SyntaxError(`${file ?? "trail"}: ${tooBig}`);
  if (!json && looksLikeMaestroFlow(text)) {
    const flow = parseMaestroFlow(text, file ?? "flow");
    // steps as inline runFlow blocks (`cairn export --format maestro`): played as the trail
    if (flow.commands.some((c) => c.name === "runFlow" && hasInlineCommands(c.args))) {
      try {
        return trailToPlan(maestroToTrail(text, file ?? "flow"), file ? { file } : {});
      } catch (err) {
        // a flow of Maestro's own (conditions, scripts) plays command by command, as before
        if (!(err instanceof SyntaxError)) throw err;
      }
    }
    return maestroToPlan(flow, file ? { file } : {});
  }
  if (!json) {
    const trail = parseTrail(
      text,
      file ?? "trail",
      options.memoryKeys ? { memoryKeys: options.memoryKeys } : {},
    );
    return trailToPlan(trail, file ? { file } : {});
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    detectImportFormat(text); // throws with line and column
  }
  if (Array.isArray(value)) return synthetic(value, file);
  const obj = value as Record<string, unknown>;
  // `{ actions: [...] }` is a synthetic action list, unless it says it is a capture
  if (obj && Array.isArray(obj.actions) && obj.format !== CAPTURE_FORMAT) {
    return synthetic(obj.actions, file, "actions");
  }
  if (obj && "schema_version" in obj) return recordingV1ToPlan(obj, file ? { file } : {});
  const { format } = detectImportFormat(text);
  if (format === "chrome-recorder") {
    let flows;
    try {
      flows = parseChromeRecorder(value);
    } catch (err) {
      throw err instanceof FormatError && file ? new FormatError(`${file}: ${err.message}`) : err;
    }
    const first = flows[0];
    if (!first) throw new FormatError(`${file ?? "flow"}: the file holds no flow`);
    return chromeRecorderToPlan(first.flow, file ? { file } : {});
  }
  let n = 0;
  const prepared = await prepareImport(text, {
    newSessionId: () => `replay-${++n}`,
    ...(file ? { file } : {}),
    readFile: options.readFile ??
      (() => Promise.reject(new Error("Referenced files cannot be read here"))),
  });
  const session = prepared.sessions[0];
  if (!session) throw new FormatError(`${file ?? "file"}: the file holds no session`);
  return eventsToPlan(session.events as SessionEvent[], {
    kind: "recording",
    ...(file ? { file } : {}),
  });
}

/** A synthetic action array as a plan; a bad field is a `FormatError` naming the file and path. */
function synthetic(value: unknown, file: string | undefined, prefix?: string): PlaybackPlan {
  try {
    return syntheticToPlan(value);
  } catch (err) {
    if (!(err instanceof z.ZodError)) throw err;
    const e = zodToFormatError(err, prefix);
    throw new FormatError(file ? `${file}: ${e.message}` : e.message, e.where);
  }
}

/** `scheme://authority`: the origin of a url, also when its host or port is not one. */
const ORIGIN_PART = /^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i;

/**
 * Re-points a plan at another base url: every navigate keeps its path, query and fragment
 * but takes the base's origin; a plan that does not start with a navigate opens `base` first.
 * A base with a path, a query or a fragment (`http://b.test/shop?v=3`) names the page to open:
 * it replaces the plan's first url (its opening navigate, when that is a url) whole, and the
 * later navigates take only its origin; a first url with a placeholder origin or none is
 * re-pointed as any other (its path kept).
 * A recorded url whose origin is a placeholder (Chrome DevTools' own flows record
 * `https://localhost:<test-port>/…`) or otherwise not a url's is re-pointed the same way: what
 * follows its origin is the path, as the person who recorded it on their own server meant.
 *
 * @param plan the plan
 * @param base the app's url
 * @returns a new plan
 * @throws {TypeError} when `base` is not an absolute url
 * @example
 * ```ts
 * const p = rebasePlan({ source: { kind: "actions" }, platform: "web", actions: [{ type: "navigate", url: "http://a.test/x?y=1" }] }, "http://b.test:8080/");
 * if (p.actions[0]!.url !== "http://b.test:8080/x?y=1") throw new Error();
 * const q = rebasePlan({ source: { kind: "flow" }, platform: "web", actions: [{ type: "navigate", url: "https://localhost:<test-port>/r.html" }] }, "http://b.test:8080/");
 * if (q.actions[0]!.url !== "http://b.test:8080/r.html") throw new Error();
 * const w = rebasePlan({ source: { kind: "trail" }, platform: "web", actions: [{ type: "navigate", url: "http://a.test/shop?v=0" }] }, "http://b.test/shop?v=3");
 * if (w.actions[0]!.url !== "http://b.test/shop?v=3") throw new Error();
 * ```
 */
export function rebasePlan(plan: PlaybackPlan, base: string): PlaybackPlan {
  const origin = new URL(base);
  // a base with a path, query or fragment names the page itself: it replaces the first url whole
  const whole = origin.pathname !== "/" || origin.search !== "" || origin.hash !== "";
  const actions = plan.actions.map((a, i) => {
    const tab = a.type === "switch_tab"; // the url a tab shows is re-pointed as a navigate's
    if ((a.type !== "navigate" && !tab) || !a.url) return a;
    if (i === 0 && !tab && whole && URL.canParse(a.url)) return { ...a, url: origin.href };
    if (a.url.includes("{{")) return a;
    return { ...a, url: rebaseUrl(a.url, origin) };
  });
  if (actions[0]?.type !== "navigate") {
    actions.unshift({ type: "navigate", url: origin.href, label: "Open the app", added: true });
  }
  return { ...plan, actions };
}

/**
 * A recorded url moved to another origin: the base's origin with the url's path, query and hash.
 * A placeholder origin (`https://localhost:<test-port>`, DevTools' own flows) is cut off and what
 * follows it is the path; a url without an origin is relative to the base. On a local site (a
 * `file:` base) the base page's folder stands for the origin's root; a `data:` base moves nothing.
 *
 * @param url the recorded url
 * @param base the origin to play on
 * @returns the url on the base's origin
 * @example
 * ```ts
 * if (rebaseUrl("https://localhost:<test-port>/r.html", new URL("http://b.test/")) !== "http://b.test/r.html") throw new Error();
 * // a local site: the base page's folder is the root
 * if (rebaseUrl("https://a.test/shop/cart.html", new URL("file:///srv/site/index.html")) !== "file:///srv/site/shop/cart.html") throw new Error();
 * ```
 */
export function rebaseUrl(url: string, base: URL): string {
  if (base.protocol === "data:") return url; // a data: page has no origin to move to
  // a local site (`file:`): the base page's folder stands for the root of the recorded origin
  const root = base.protocol === "file:" ? new URL("./", base) : undefined;
  if (URL.canParse(url)) {
    const u = new URL(url);
    const rest = u.pathname + u.search + u.hash;
    return root ? new URL(rest.replace(/^\/+/, ""), root).href : base.origin + rest;
  }
  const at = ORIGIN_PART.exec(url);
  const rest = at ? url.slice(at[0].length) : url;
  const path = at && !rest.startsWith("/") ? `/${rest}` : rest;
  return root ? new URL(path.replace(/^\/+/, ""), root).href : new URL(path, base).href;
}
