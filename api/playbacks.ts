/**
 * Playbacks over HTTP: `POST /v1/playbacks` starts one (a trail, a stored recording
 * or a synthetic action array) and answers at once with its id; `GET /v1/playbacks/:id` is
 * the partial or final report; `GET /v1/selectors/fragile` the fragile-selector statistics.
 * A registry per event store owns the browser playbacks run in; one runs at a time.
 *
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import type { EventStore } from "../events/mod.ts";
import { type Driver, DriverError } from "../drivers/mod.ts";
import { launchDefaultChrome, perStore } from "./per_store.ts";
import { AndroidStart, connectAndroid } from "../drivers/android/mod.ts";
import {
  ALREADY_RUNNING,
  MAX_ACTION_TIMEOUT_MS,
  PlaybackBusyError,
  readPlaybackReport,
  startPlayback,
} from "../runners/playback/mod.ts";
import { planMemoryKeys, type PlaybackPlan } from "../engine/playback/mod.ts";
import type { ActionResult, PlaybackReport } from "../engine/playback/mod.ts";
import { parseTrail } from "../engine/trail/mod.ts";
import { trailToPlan } from "../engine/playback/mod.ts";
import { syntheticToPlan } from "../engine/playback/mod.ts";
import { eventsToPlan, type SessionEvent } from "../engine/playback/mod.ts";
import { rebasePlan } from "../engine/playback/mod.ts";
import { overrideProblems } from "../engine/playback/mod.ts";
import { openingProblem, platformProblem } from "../engine/playback/mod.ts";
import { androidKeyProblem } from "../drivers/android/mod.ts";
import { fragileSelectors } from "../engine/playback/mod.ts";
import { AnsweredPlaybackQueued, AnsweredPlaybackReport } from "../engine/playback/mod.ts";
import type { ApiContext } from "./app.ts";
import {
  ApiError,
  httpUrl,
  invalidRequest,
  isHttpUrl,
  noQuery,
  parseInput,
  pathId,
  readJson,
} from "./errors.ts";
import { bareId, resolveId } from "./_ids.ts";
import { stopRun } from "./_stop_run.ts";
import { InvalidStreamError, NotFoundError } from "../events/mod.ts";
import { UnreadableEventError } from "../events/mod.ts";
import { describeRoute, describeSchema } from "./openapi.ts";
import { browserSecrets, freshTab, leaveBrowser } from "./_shared_browser.ts";
import { withDeadline } from "../drivers/mod.ts";
import { runQueueOf } from "../events/mod.ts";
import { FfmpegMissingError, findFfmpeg } from "../drivers/chrome/mod.ts";
import { playbackVideo } from "../runners/playback/mod.ts";
import { join } from "node:path";

/**
 * A file as the answer, whole or the one byte range `range` asks for (`bytes=a-b`, `bytes=a-`,
 * `bytes=-n`), as a video element seeks.
 *
 * @param path the file
 * @param size its size
 * @param type its media type
 * @param range the Range header
 * @returns the response (200, 206, or 416 for a range past the end)
 */
export async function serveFile(
  path: string,
  size: number,
  type: string,
  range: string | undefined,
): Promise<Response> {
  const headers: Record<string, string> = {
    "Content-Type": type,
    "Accept-Ranges": "bytes",
    "Cache-Control": "no-cache",
  };
  const m = range?.match(/^bytes=(\d*)-(\d*)$/);
  if (m && (m[1] || m[2])) {
    let start = m[1] ? Number(m[1]) : Math.max(size - Number(m[2]), 0);
    let end = m[1] && m[2] ? Math.min(Number(m[2]), size - 1) : size - 1;
    if (!m[1]) end = size - 1;
    if (start >= size || start > end) {
      return new Response(null, { status: 416, headers: { "Content-Range": `bytes */${size}` } });
    }
    start = Math.max(start, 0);
    const file = await Deno.open(path);
    await file.seek(start, Deno.SeekMode.Start);
    const length = end - start + 1;
    const body = file.readable.pipeThrough(limitBytes(length));
    return new Response(body, {
      status: 206,
      headers: {
        ...headers,
        "Content-Range": `bytes ${start}-${end}/${size}`,
        "Content-Length": String(length),
      },
    });
  }
  const file = await Deno.open(path);
  return new Response(file.readable, {
    status: 200,
    headers: { ...headers, "Content-Length": String(size) },
  });
}

function limitBytes(length: number): TransformStream<Uint8Array, Uint8Array> {
  let left = length;
  return new TransformStream({
    transform(chunk, controller) {
      if (left <= 0) return;
      const part = chunk.subarray(0, left);
      left -= part.length;
      controller.enqueue(part);
      if (left <= 0) controller.terminate();
    },
  });
}

/**
 * The `memory` of a playback or validation body: values of the plan's memory keys (a secret the
 * trail keeps as `pin: null`), as `--memory KEY=VALUE` gives them. A key is what `--memory` takes
 * before its `=`: not empty, no `=`. A bad key is a 400 naming `body.memory.<key>`; a value is never
 * echoed (it may be the secret itself).
 */
export const MemoryValues = z.record(z.string().regex(/^[^=]+$/), z.string(), {
  error: (issue) =>
    issue.code === "invalid_key"
      ? "a memory key is not empty and has no = (as --memory KEY=VALUE)"
      : undefined,
}).describe(
  "Values of the plan's memory keys for its {{…}} templates (a secret the trail keeps as null); " +
    "never stored: taken out of every event as [redacted]",
);

/**
 * The 400 for `memory` keys the plan has no use for (neither a memory default nor a variable one of
 * its templates reads), as `--memory` refuses them; each named `body.memory.<key>`.
 *
 * @param known the plan's keys ({@linkcode planMemoryKeys})
 * @param memory the body's `memory`
 * @returns the error to throw, or undefined when every key is known
 */
export function unknownMemoryKeys(
  known: readonly string[],
  memory: Readonly<Record<string, string>> | undefined,
): ApiError | undefined {
  const unknown = Object.keys(memory ?? {}).filter((k) => !known.includes(k));
  if (unknown.length === 0) return undefined;
  const message = `not a memory key of the trail (keys: ${known.join(", ") || "none"})`;
  const issues = unknown.map((k) => ({ path: `body.memory.${k}`, message }));
  return invalidRequest(issues.map((i) => `${i.path}: ${i.message}`).join("; "), issues);
}

/**
 * `POST /v1/playbacks` body (exactly one of `trail`, `recordingId`, `actions`), by the
 * old snake_case names the handler reads: clients send the camelCase ones (api/_casing.ts).
 */
export const StartPlaybackBody = z.strictObject({
  trail: z.string().min(1).optional(),
  recording_id: z.string().min(1).max(200).optional(),
  actions: z.array(z.unknown()).optional(),
  timing: z.enum(["fast", "recorded"]).default("fast"),
  on_error: z.enum(["continue", "skip_dependent", "stop"]).default("continue"),
  test_id: z.string().min(1).optional(),
  auto_boundary: z.boolean().optional(),
  value_overrides: z.record(z.string().regex(/^\d+$/, "an action index"), z.string()).optional(),
  /**
   * Values of the plan's memory keys (`replay --memory`): used for its `{{…}}` templates and
   * taken out of every event the playback stores, as `[redacted]`.
   */
  memory: MemoryValues.optional(),
  tab: z.string().min(1).optional(),
  /** Re-point recorded navigations at this app url. */
  url: httpUrl().optional(),
  timeout_ms: z.number().int().min(1).max(MAX_ACTION_TIMEOUT_MS).optional(),
  /** Device and app of an Android plan (Appium URL, udid, package, activity, apk). */
  android: AndroidStart.optional(),
  /**
   * Record a WebM video of the playback (Chromium's screencast with the subtitles; Android: the
   * device's screen recording), served at `/v1/playbacks/:id/video`; needs ffmpeg on the server.
   */
  video: z.boolean().optional(),
}).refine(
  (b) => [b.trail, b.recording_id, b.actions].filter((x) => x !== undefined).length === 1,
  { message: "give exactly one of trail, recordingId or actions" },
);

/**
 * Why a playback stopped by `POST /v1/playbacks/:id/stop` ended (after "Stopped before action N: ",
 * or "Stopped during action N: " when the stop failed the action running).
 */
export const STOPPED_BY_REQUEST = "stopped by request";

/**
 * How long a stop waits for the playback to end before its next action; past it, the browser
 * (or device session) is closed under the action still running, as at shutdown.
 */
export const STOP_GRACE_MS = 3_000;
/** How long a stop waits in all before it answers that the run is still stopping. */
export const STOP_WAIT_MS = 15_000;

/** How the registry gets its browser. */
export interface PlaybackRegistryOptions {
  /** Creates the driver playbacks run in (default: a headless Chromium, or `CAIRN_BROWSER_WS`). */
  createDriver?: () => Promise<Driver>;
  /** Folder screenshots are written to (default `.cairn/screenshots`; `serve` gives the one beside its database). */
  screenshotDir?: string;
  /** How long a lookup waits for the page before healing gives up (ms). */
  locateWaitMs?: number;
}

/** The browser of one store's playbacks and the playbacks it runs. */
export class PlaybackRegistry {
  #store: EventStore;
  #options: PlaybackRegistryOptions;
  #driver: Promise<Driver> | undefined;
  #running = new Set<Promise<unknown>>();
  /** The running playbacks by id: how to stop each, and its end. */
  #runs = new Map<string, { stop: AbortController; done: Promise<unknown>; driver: Driver }>();
  /** An Android playback holds the device. */
  #device = false;
  /** The close of the last Android playback's session. */
  #closing: Promise<void> | undefined;
  /** Aborted by `close`: the running playbacks stop. */
  #stop = new AbortController();
  constructor(store: EventStore, options: PlaybackRegistryOptions = {}) {
    this.#store = store;
    this.#options = options;
  }

  /** Replaces the options (a test's driver, a remote browser). */
  configure(options: PlaybackRegistryOptions): void {
    this.#options = { ...this.#options, ...options };
  }

  #browser(): Promise<Driver> {
    this.#driver ??= (this.#options.createDriver ?? launchDefaultChrome)().catch((err) => {
      this.#driver = undefined;
      throw err;
    });
    return this.#driver;
  }

  /**
   * Starts a playback.
   *
   * @param plan the actions
   * @param body the request's options
   * @param playbackId the id to run it under (a queued playback's; default a new one)
   * @returns the playback id
   * @throws {PlaybackBusyError} while another playback runs
   */
  async start(
    plan: PlaybackPlan,
    body: z.infer<typeof StartPlaybackBody>,
    playbackId?: string,
  ): Promise<string> {
    // Android: a device session per playback (one at a time), closed when it ends.
    const android = plan.platform === "android";
    if (android && this.#device) throw new PlaybackBusyError();
    if (android) {
      this.#device = true;
      await this.#closing; // the previous session's close, if it is still under way
    }
    let driver: Driver;
    try {
      driver = android ? await connectAndroid(body.android ?? {}) : await this.#browser();
    } catch (err) {
      if (android) this.#device = false;
      throw err;
    }
    let started;
    const stop = new AbortController();
    try {
      started = await this.#play(driver, plan, body, stop.signal, playbackId);
    } catch (err) {
      if (android) {
        this.#device = false;
        await driver.close();
      }
      throw err;
    }
    const done = (android
      ? started.done.finally(() => {
        // The report is final: the next Android playback may start (after this close).
        this.#closing = driver.close().catch(() => {});
        this.#device = false;
        return this.#closing;
      })
      : started.done).catch((err) => console.error("cairn playback:", err));
    this.#running.add(done);
    const id = started.playbackId;
    this.#runs.set(id, { stop, done, driver });
    done.finally(() => {
      this.#running.delete(done);
      this.#runs.delete(id);
    });
    return id;
  }

  /**
   * Stops a running playback, as shutdown does: it ends `failed` before its next action, with
   * the error `Stopped before action N: stopped by request` (`Stopped during action N: …` when
   * the action running failed as it stopped, as the report lists it). An action still running after
   * {@linkcode STOP_GRACE_MS} fails as the browser (or device session) it runs in is closed.
   *
   * @param id the playback id
   * @returns false when this registry runs no playback with this id; true once the playback
   *   has ended, or is still ending after 15 s
   */
  async stop(id: string): Promise<boolean> {
    const run = this.#runs.get(id);
    if (!run) return false;
    run.stop.abort(new Error(STOPPED_BY_REQUEST));
    if (await endsWithin(run.done, STOP_GRACE_MS)) return true;
    if (run.driver.platform === "android") await run.driver.close().catch(() => {});
    else await this.#closeBrowser();
    await endsWithin(run.done, STOP_WAIT_MS - STOP_GRACE_MS);
    return true;
  }

  /** The end of a playback this registry runs (undefined: it runs none with this id). */
  finished(id: string): Promise<unknown> | undefined {
    return this.#runs.get(id)?.done;
  }

  /** Closes the shared browser (the next playback launches another). */
  async #closeBrowser(): Promise<void> {
    const d = this.#driver;
    this.#driver = undefined;
    const driver = await d?.catch(() => undefined);
    if (!driver) return;
    leaveBrowser(driver);
    await driver.close();
  }

  #play(
    driver: Driver,
    plan: PlaybackPlan,
    body: z.infer<typeof StartPlaybackBody>,
    stop: AbortSignal,
    playbackId?: string,
  ) {
    const given = Object.values(body.memory ?? {});
    // an Android playback has a device session of its own; in the shared browser each playback
    // starts in a fresh tab, in a browser Cairn launched in a fresh browser context (one given a
    // tab plays on in the page, and the context, the playback before it left)
    const shared = driver.platform !== "android";
    const secrets = shared ? browserSecrets(driver, given) : given;
    return startPlayback(driver, this.#store, plan, {
      // once the browser is this playback's (a second start gets 409 with the page untouched)
      ...(shared && !body.tab ? { prepare: () => freshTab(driver) } : {}),
      timing: body.timing,
      onError: body.on_error,
      ...(body.test_id ? { testId: body.test_id } : {}),
      ...(body.auto_boundary ? { autoBoundary: true } : {}),
      ...(body.value_overrides ? { valueOverrides: body.value_overrides } : {}),
      // as replay --memory: the values are secrets, used for the templates and scrubbed from
      // every event stored (with those of the earlier runs in this browser)
      ...(body.memory && given.length > 0 ? { memory: body.memory } : {}),
      ...(secrets.length > 0 ? { secrets } : {}),
      ...(body.tab ? { tab: body.tab } : {}),
      ...(body.timeout_ms ? { actionTimeoutMs: body.timeout_ms } : {}),
      ...(this.#options.locateWaitMs !== undefined
        ? { locateWaitMs: this.#options.locateWaitMs }
        : {}),
      screenshotDir: this.#options.screenshotDir ?? ".cairn/screenshots",
      // beside its screenshots: <dir>/<playback id>/replay.webm
      ...(body.video
        ? {
          video: playbackVideo({
            path: (id) =>
              join(this.#options.screenshotDir ?? ".cairn/screenshots", id, "replay.webm"),
            ffmpeg: findFfmpeg(),
          }),
        }
        : {}),
      signal: AbortSignal.any([this.#stop.signal, stop]),
      ...(playbackId === undefined ? {} : { playbackId }),
    });
  }

  /**
   * Stops the running playbacks (each ends `failed` before its next action), closes the
   * browser (failing an action still running in it) and waits for them to end.
   */
  async close(): Promise<void> {
    this.#stop.abort(new Error("the server is shutting down"));
    this.#stop = new AbortController();
    await this.#closeBrowser();
    await Promise.all([...this.#running]);
  }
}

/**
 * Whether a promise settles (resolves or rejects) within `ms`.
 *
 * @param work the promise
 * @param ms how long to wait at most
 * @returns true when it settled in time
 */
export async function endsWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  return await withDeadline(work.then(() => true, () => true), ms, () => new Error("slow"))
    .catch(() => false);
}

/**
 * The playback registry of a store (created on first use).
 *
 * @param store the event store playbacks record to
 * @param options applied when given
 * @returns the registry
 */
export const playbackRegistry: (
  store: EventStore,
  options?: PlaybackRegistryOptions,
) => PlaybackRegistry = perStore(
  (store, options?: PlaybackRegistryOptions) => new PlaybackRegistry(store, options),
);

const PlaybackId = pathId(100, false);

/** `POST /v1/playbacks` answer. */
export const PlaybackStartedResponse = z.object({
  status: z.enum(["running", "queued"]),
  playbackId: z.string(),
});

/** `GET /v1/playbacks/:id` (and its stop's) answer: the playback report, camelCase. */
export const PlaybackReportResponse = describeSchema(
  "PlaybackReport",
  AnsweredPlaybackReport,
  "output",
);

/** `GET /v1/playbacks/:id` of a playback queued on a shared (PostgreSQL) log, not started yet. */
const PlaybackQueuedResponse = describeSchema("PlaybackQueued", AnsweredPlaybackQueued, "output");

/** A playback report as HTTP (and MCP) answers it. */
export type PlaybackReportAnswer = z.output<typeof PlaybackReportResponse>;

/** The 404 of `GET /v1/playbacks/:id`: a report's shape, with the error. */
const PlaybackNotFound = z.object({
  status: z.literal("not_found"),
  playbackId: z.string(),
  error: z.object({ code: z.literal("not_found"), message: z.string() }),
});

describeRoute({
  method: "post",
  path: "/v1/playbacks",
  summary: "Start a playback of a trail, a stored recording or an action array; answers at once",
  tags: ["playbacks"],
  body: StartPlaybackBody,
  responses: {
    "202": { description: "Started", schema: PlaybackStartedResponse },
    "400": {
      description:
        "Invalid body, a memory key that is empty, has an = or is neither in the plan's memory nor read by its templates (issues name body.memory.<key>), a url that is not http(s), a tab that is not open, a web plan that opens no page (no navigate first, no url, no tab) or navigates to a placeholder (https://localhost:<test-port>/…) without url",
    },
    "404": { description: "No session recordingId (`No session <id>`)" },
    "409": { description: "Another playback is running (PLAYBACK: Already running. …)" },
    "501": { description: "video: true, and the server has no ffmpeg (video_unavailable)" },
    "502": { description: "No browser or device to play in" },
  },
});
describeRoute({
  method: "get",
  path: "/v1/playbacks",
  summary: "Every playback, oldest first: id, status, counts and duration",
  tags: ["playbacks"],
  responses: {
    "200": {
      description:
        "`{ playbacks }`; with `unreadable: [{ streamId, code, message }]` when a stored playback stream cannot be read (invalid_stream, unreadable_event): it is left out, the others listed",
    },
  },
});
describeRoute({
  method: "get",
  path: "/v1/playbacks/{id}",
  summary:
    "The playback's report: partial while running, final after; screenshotBlobs and each result's screenshotUrl name the screenshots' blobs",
  tags: ["playbacks"],
  responses: {
    "200": {
      description:
        "The report (or, queued on a shared log, `{ status: queued, playbackId, attempts }`)",
      schema: z.union([PlaybackReportResponse, PlaybackQueuedResponse]),
    },
    "404": { description: "No such playback", schema: PlaybackNotFound },
  },
});
describeRoute({
  method: "get",
  path: "/v1/playbacks/{id}/video",
  summary:
    "The playback's video (WebM, asked for with video: true), with byte ranges for seeking; the report's videoUrl names it",
  tags: ["playbacks"],
  responses: {
    "200": { description: "The video", mediaType: "video/webm" },
    "206": { description: "The byte range asked for", mediaType: "video/webm" },
    "404": {
      description:
        "No such playback, or it has no video (no_video: not asked for, still running, or why it could not be recorded)",
    },
  },
});
describeRoute({
  method: "post",
  path: "/v1/playbacks/{id}/stop",
  summary:
    'Stop a running playback as shutdown does: it ends failed before its next action, error "Stopped before action N: stopped by request" (an action still running after 3 s fails as its browser is closed: "Stopped during action N: …", naming the action the report lists failed); answers with the final report',
  tags: ["playbacks"],
  responses: {
    "200": {
      description: "Stopped: the final report (status failed, error)",
      schema: PlaybackReportResponse,
    },
    "202": {
      description: "Still stopping after 15 s: the report so far (status running)",
      schema: PlaybackReportResponse,
    },
    "404": { description: "No such playback" },
    "409": {
      description:
        "The playback has already ended (playback_ended), or this server does not run it: a validation's replay or another process's playback (not_owned)",
    },
  },
});
describeRoute({
  method: "get",
  path: "/v1/selectors/fragile",
  summary:
    "Every selector tried by any playback: failures / total, fragile above 50 % over ≥ 2 runs",
  tags: ["playbacks"],
});

/** A screenshot of a playback as HTTP serves it: its action, blob and where to GET it. */
export interface ScreenshotBlob {
  index: number;
  hash: string;
  /** `/v1/blobs/<hash>`, relative to the API's base. */
  url: string;
  /** Where the server wrote the file (a path on the server), when it did. */
  path?: string;
}

/**
 * The report as HTTP answers it: each result with a screenshot also names its blob's url
 * (`screenshot_url`), and `screenshot_blobs` lists every screenshot with its action, hash and
 * url (the `screenshots` paths are the server's files, which a client cannot read). The response
 * layer answers it with camelCase names ({@linkcode PlaybackReportResponse}: `screenshotUrl`,
 * `screenshotBlobs`, `playbackId`, …).
 *
 * @param report the report
 * @returns the report with the screenshots' blobs
 */
export function httpReport(
  report: PlaybackReport,
): PlaybackReport & { results: (ActionResult & { screenshot_url?: string })[] } & {
  screenshot_blobs: ScreenshotBlob[];
  video_url?: string;
} {
  const url = (hash: string) => `/v1/blobs/${hash}`;
  return {
    ...report,
    ...(report.video
      ? { video_url: `/v1/playbacks/${encodeURIComponent(report.playback_id)}/video` }
      : {}),
    results: report.results.map((r) =>
      r.screenshot_hash ? { ...r, screenshot_url: url(r.screenshot_hash) } : r
    ),
    screenshot_blobs: report.results.flatMap((r) =>
      r.screenshot_hash
        ? [{
          index: r.index,
          hash: r.screenshot_hash,
          url: url(r.screenshot_hash),
          ...(r.screenshot_path ? { path: r.screenshot_path } : {}),
        }]
        : []
    ),
  };
}

async function planOf(
  ctx: ApiContext,
  body: z.infer<typeof StartPlaybackBody>,
): Promise<PlaybackPlan> {
  if (body.trail !== undefined) {
    // as replay: a template reading a key nothing can set is refused before a browser starts
    const trail = parseTrail(body.trail, "body.trail", {
      memoryKeys: Object.keys(body.memory ?? {}),
      memorySource: "body.memory",
    });
    return trailToPlan(trail);
  }
  if (body.actions !== undefined) {
    const r = z.array(z.unknown()).safeParse(body.actions);
    if (!r.success) throw invalidRequest("actions must be an array");
    try {
      return syntheticToPlan(body.actions);
    } catch (err) {
      if (err instanceof z.ZodError) {
        const issues = err.issues.map((i) => ({
          path: ["body", "actions", ...i.path.map(String)].join("."),
          message: i.message,
        }));
        throw invalidRequest(
          `Invalid body: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
          issues,
        );
      }
      throw err;
    }
  }
  const id = await resolveId(ctx.store, "session", body.recording_id!);
  const events: SessionEvent[] = [];
  for await (const e of ctx.store.readStream(`session-${id}`)) events.push(e as SessionEvent);
  return eventsToPlan(events, { kind: "recording", recordingId: id });
}

/**
 * The playbacks router (mounted under `/v1`).
 *
 * @param ctx the shared API context
 * @returns a hono router
 */
export function playbacksRouter(ctx: ApiContext): Hono {
  const app = new Hono();
  const registry = playbackRegistry(ctx.store);

  app.post("/playbacks", async (c) => {
    const body = parseInput(StartPlaybackBody, await readJson(c), "body");
    let plan = await planOf(ctx, body);
    if (plan.platform === "ios") {
      throw invalidRequest("An ios plan cannot be played: Cairn drives Chromium and Android");
    }
    if (body.url && plan.platform === "web") plan = rebasePlan(plan, body.url);
    // as --override: checked on the final plan, with the numbers the report shows
    const unusable = overrideProblems(plan, Object.keys(body.value_overrides ?? {}));
    if (unusable.length > 0) {
      const issues = unusable.map((p) => ({
        path: `body.value_overrides.${p.key}`,
        message: p.message,
      }));
      throw invalidRequest(issues.map((i) => `${i.path}: ${i.message}`).join("; "), issues);
    }
    // as replay --memory: a key the plan neither holds nor reads is refused before a browser starts
    const badMemory = unknownMemoryKeys(planMemoryKeys(plan), body.memory);
    if (badMemory) throw badMemory;
    // as replay --video: without ffmpeg nothing starts
    if (body.video) {
      try {
        findFfmpeg();
      } catch (err) {
        if (err instanceof FfmpegMissingError) {
          throw new ApiError(501, "video_unavailable", err.message);
        }
        throw err;
      }
    }
    // as replay: a placeholder navigate (a Recorder flow's https://localhost:<test-port>/…) could
    // only fail, and a plan that opens no page would play on the page the last playback left
    const opening = openingProblem(plan, { pageOpen: body.tab !== undefined });
    if (opening) {
      const message = opening.kind === "no_page"
        ? `${opening.message}: give url (the page to open first), or tab to play in an open tab`
        : `${opening.message}: give url to re-point it at your server`;
      throw invalidRequest(`url: ${message}`, [{ path: "body.url", message }]);
    }
    const keyProblem = plan.platform === "android" ? androidKeyProblem(plan.actions) : undefined;
    if (keyProblem) throw invalidRequest(keyProblem, [{ path: "body", message: keyProblem }]);
    // as replay: an action the platform can never play is refused, not skipped as if it passed
    const unplayable = platformProblem(plan);
    if (unplayable && plan.platform !== "ios") {
      throw invalidRequest(unplayable, [{ path: "body", message: unplayable }]);
    }
    for (const [i, a] of plan.actions.entries()) {
      if (a.type !== "navigate" || !a.url || !URL.canParse(a.url) || isHttpUrl(a.url)) continue;
      // a file: or other local url would hand the server's files to the caller
      throw invalidRequest(`url: action ${i} opens ${a.url}: only http(s) pages are played`, [
        { path: "body.url", message: "expected an http(s) url" },
      ]);
    }
    // on a log shared by several nodes (PostgreSQL) a `serve --worker` node runs it
    const queue = runQueueOf(ctx.store);
    if (queue) {
      const id = `pb-${crypto.randomUUID().slice(0, 12)}`;
      await queue.enqueue("playback", id, { plan, body });
      return c.json({ status: "queued", playbackId: id }, 202);
    }
    try {
      const id = await registry.start(plan, body);
      return c.json({ status: "running", playbackId: id }, 202);
    } catch (err) {
      if (err instanceof PlaybackBusyError) {
        throw new ApiError(409, "playback_running", ALREADY_RUNNING);
      }
      if (err instanceof DriverError && err.code === "no_tab") {
        throw invalidRequest(`tab: ${err.message}`, [{ path: "body.tab", message: err.message }]);
      }
      if (err instanceof DriverError) throw new ApiError(502, err.code, err.message); // no device
      throw err;
    }
  });

  app.get("/playbacks", async (c) => {
    noQuery(c);
    const playbacks = [];
    // a stream the report cannot be read from (written before appends were held to the playback
    // rules, or by another writer) is left out and named, not the whole list failed
    const unreadable: { streamId: string; code: string; message: string }[] = [];
    for (const s of await ctx.store.streams("playback-")) {
      let r;
      try {
        r = await readPlaybackReport(ctx.store, s.streamId.slice("playback-".length));
      } catch (err) {
        if (!(err instanceof InvalidStreamError) && !(err instanceof UnreadableEventError)) {
          throw err;
        }
        const code = err instanceof InvalidStreamError ? "invalid_stream" : "unreadable_event";
        unreadable.push({ streamId: s.streamId, code, message: err.message });
        continue;
      }
      if (!r) continue;
      const { results: _results, screenshots: _screenshots, ...summary } = r;
      playbacks.push(summary);
    }
    return c.json(unreadable.length > 0 ? { playbacks, unreadable } : { playbacks });
  });

  app.get("/playbacks/:id", async (c) => {
    const given = parseInput(PlaybackId, c.req.param("id"), "path.id");
    noQuery(c);
    const id = await resolveId(ctx.store, "playback", given).catch((err) => {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    });
    const report = id === undefined ? undefined : await readPlaybackReport(ctx.store, id);
    const queued = report ? undefined : await runQueueOf(ctx.store)?.get(bareId("playback", given));
    if (queued?.status === "queued" || queued?.status === "running") {
      return c.json({ status: "queued", playbackId: queued.id, attempts: queued.attempts });
    }
    if (!report) {
      const bare = bareId("playback", given);
      return c.json({
        status: "not_found",
        playbackId: bare,
        error: { code: "not_found", message: `No playback ${bare}` },
      }, 404);
    }
    return c.json(httpReport(report));
  });

  app.get("/playbacks/:id/video", async (c) => {
    const given = parseInput(PlaybackId, c.req.param("id"), "path.id");
    noQuery(c);
    const id = await resolveId(ctx.store, "playback", given);
    const report = await readPlaybackReport(ctx.store, id);
    const path = report?.video?.path;
    const info = path === undefined ? undefined : await Deno.stat(path).catch(() => undefined);
    if (!report || !path || !info?.isFile) {
      const why = report?.video_error ??
        (report?.status === "running"
          ? "it is still running"
          : path
          ? "its file is gone"
          : "none was asked for (video: true)");
      throw new ApiError(404, "no_video", `Playback ${id} has no video: ${why}`);
    }
    return await serveFile(path, info.size, "video/webm", c.req.header("range"));
  });

  app.post("/playbacks/:id/stop", async (c) => {
    const given = parseInput(PlaybackId, c.req.param("id"), "path.id");
    noQuery(c);
    const id = await resolveId(ctx.store, "playback", given);
    const report = await stopRun(id, {
      kind: "playback",
      read: () => readPlaybackReport(ctx.store, id),
      stop: () => registry.stop(id),
      runByOthers: "this server's playbacks (a validation's replay, or another process's)",
      endOrphan: async () => (await ctx.endOrphanedRun?.("playback", id)) ?? false,
    });
    return c.json(httpReport(report), report.status === "running" ? 202 : 200);
  });

  app.get("/selectors/fragile", async (c) => {
    noQuery(c);
    const all = [];
    for (const s of await ctx.store.streams("playback-")) {
      for await (const e of ctx.store.readStream(s.streamId)) all.push(e);
    }
    const stats = await fragileSelectors(all);
    return c.json({
      selectors: stats,
      fragile: stats.filter((s) => s.fragile).map((s) => s.selector),
    });
  });

  return app;
}
