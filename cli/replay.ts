/**
 * `cairn replay FILE --url URL`: plays a trail, a `recording_v1`, a Chrome DevTools Recorder
 * flow, a capture file, a synthetic action array or a stored session (by id) in headless Chromium,
 * or an Android one on a device through Appium, with the self-healing cascade, stores the playback
 * events, and prints the report (a table, or JSON with `--json`). Exits 1 when an action failed.
 *
 * @module
 */
import { resolve } from "node:path";
import { bool, type CommandSpec, list, num, type ParsedArgs, str } from "./args.ts";
import { DB_FLAGS, matchStream, openStore } from "./context.ts";
import { InputError } from "./errors.ts";
import { parseMemory } from "./_memory_flag.ts";
import type { EventStore } from "../events/mod.ts";
import { planMemoryKeys, type PlaybackPlan } from "../engine/playback/mod.ts";
import { openingProblem, platformProblem } from "../engine/playback/mod.ts";
import { overrideProblems } from "../engine/playback/mod.ts";
import { androidKeyProblem } from "../drivers/android/mod.ts";
import { planFromText, rebasePlan } from "../engine/playback/mod.ts";
import { eventsToPlan, type SessionEvent } from "../engine/playback/mod.ts";
import { type PlaybackReport, sourceNumber } from "../engine/playback/mod.ts";
import {
  DEFAULT_ACTION_TIMEOUT_MS,
  MAX_ACTION_TIMEOUT_MS,
  runPlayback,
} from "../runners/playback/mod.ts";
import { ChromeDriver } from "../drivers/chrome/mod.ts";
import { closeLaunchedBrowsers } from "../drivers/chrome/mod.ts";
import { withDeadline } from "../drivers/mod.ts";
import type { Driver } from "../drivers/mod.ts";
import { connectAndroid } from "../drivers/android/mod.ts";
import { FfmpegMissingError, findFfmpeg } from "../drivers/chrome/mod.ts";
import { playbackVideo } from "../runners/playback/mod.ts";
import { ANDROID_FLAGS, androidStartFromArgs } from "./_android_flags.ts";
import { browserWsFlag } from "./_browser_ws_flag.ts";
import { checkUrlFlag, FILE_URLS_FLAG, fileUrlsOption } from "./_file_urls_flag.ts";
import {
  CAPTURE_FILE_FLAGS,
  captureFileReader,
  type CaptureFileRules,
  captureFileRules,
  readNamedFile,
} from "./_capture_files.ts";
import { interruptOnSignals } from "./_interrupt.ts";
import {
  isSuite,
  liveProgress,
  runSuite,
  screenshotsDir,
  SUITE_FLAGS,
  SUITE_HELP,
} from "./_suite.ts";

function ffmpegOrInputError(): string {
  try {
    return findFfmpeg();
  } catch (err) {
    if (err instanceof FfmpegMissingError) throw new InputError(`--video: ${err.message}`);
    throw err;
  }
}

/** Longest wait for the browser to close after a playback before it is killed. */
const CLOSE_CAP_MS = 5_000;

/** The command's flags and help. */
export const spec: CommandSpec = {
  name: "replay",
  summary:
    "Replay a trail, recording or flow in Chromium or on Android (Appium) with self-healing selectors",
  positionals: ["FILE..."],
  flags: {
    url: {
      type: "string",
      value: "URL",
      description: "App url: recorded navigations are re-pointed at its origin",
    },
    timing: {
      type: "string",
      choices: ["fast", "recorded"],
      default: "fast",
      description: "Inter-action delays",
    },
    "on-error": {
      type: "string",
      choices: ["continue", "skip_dependent", "stop"],
      default: "continue",
      description: "What a failed action does to the rest",
    },
    override: {
      type: "list",
      value: "N=VALUE",
      description:
        "Text typed by action N (its number in the file, as the table shows) instead of the recorded (redacted) value; repeatable",
    },
    memory: {
      type: "list",
      value: "KEY=VALUE",
      description:
        "Value of memory KEY for the {{KEY}} templates (a secret the trail keeps as null, e.g. pin: null); never stored; repeatable",
    },
    "test-id": {
      type: "string",
      value: "ID",
      description: "Test boundary id carried by every event",
    },
    "auto-boundary": { type: "boolean", description: "Record the test boundary's start and end" },
    ...ANDROID_FLAGS,
    timeout: {
      type: "integer",
      value: "MS",
      default: DEFAULT_ACTION_TIMEOUT_MS,
      min: 1,
      max: MAX_ACTION_TIMEOUT_MS,
      description: "Per-action timeout",
    },
    viewport: {
      type: "string",
      value: "WxH",
      description: "Browser viewport (default: the recording's, else 1280x800)",
    },
    screenshots: {
      type: "string",
      value: "DIR",
      description:
        "Where screenshots of failed and healed actions go (default: screenshots/ beside the database)",
    },
    "browser-ws": {
      type: "string",
      value: "URL",
      description: "Connect to a running browser instead of launching one",
    },
    video: {
      type: "string",
      value: "FILE.webm",
      description:
        "Record the replay as a WebM video with the action subtitles (Chromium's screencast; Android: the device's screen recording), encoded by ffmpeg",
    },
    json: { type: "boolean", description: "Print the report as JSON" },
    ...FILE_URLS_FLAG,
    ...CAPTURE_FILE_FLAGS,
    "max-file-size": {
      ...CAPTURE_FILE_FLAGS["max-file-size"]!,
      description:
        "Largest file read (each file named, and each file a capture references), in MiB",
    },
    ...SUITE_FLAGS,
    ...DB_FLAGS,
  },
  details: `
FILE is a trail (.yaml), a Maestro flow (.yaml with an appId header; Android), a
recording_v1 or Chrome Recorder JSON, a JSON action array
([{"action":"click","selector":"#go"}] or {"actions":[…]}), a Cairn capture, or the id of
a session stored in the event log. An Android one (config.platform: android) plays on a
device through Appium (--appium, --udid, --app-package …) and reports its selectors as
Appium names them: id=…, ~content description, text="…".

Examples:
  cairn replay login.trail.yaml --url http://127.0.0.1:8000/
  cairn replay android.trail.yaml --appium http://127.0.0.1:4723 --app-package com.example
  cairn replay vw-ax-human-….json --on-error stop --override 3=hunter2 --json
  cairn replay login.trail.yaml --memory pin=4321   # the trail keeps pin: null
${SUITE_HELP}`,
};

/**
 * Parses `--override N=VALUE` flags.
 *
 * @param overrides the raw flags
 * @returns overrides by action index
 * @throws {InputError} on a malformed entry
 */
export function parseOverrides(overrides: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const o of overrides) {
    const m = /^(\d+)=(.*)$/s.exec(o);
    if (!m) {
      throw new InputError(
        `--override: expected N=VALUE with N an action index, got ${JSON.stringify(o)}`,
      );
    }
    out[m[1]!] = m[2]!;
  }
  return out;
}

function parseViewport(v: string | undefined): { width: number; height: number } | undefined {
  if (v === undefined) return undefined;
  const m = /^(\d+)x(\d+)$/.exec(v);
  if (!m) throw new InputError(`--viewport: expected WIDTHxHEIGHT, got ${JSON.stringify(v)}`);
  return { width: Number(m[1]), height: Number(m[2]) };
}

async function loadPlan(
  file: string,
  store: EventStore,
  memoryKeys: readonly string[],
  files: CaptureFileRules,
): Promise<PlaybackPlan> {
  let text: string;
  try {
    // a regular file within --max-file-size: a device or FIFO is refused before it is opened
    text = new TextDecoder().decode(await readNamedFile(file, files));
  } catch (err) {
    if (err instanceof Deno.errors.IsADirectory) {
      throw new InputError(`${file}: is a folder; name a trail, recording or flow file`);
    }
    // a device, a FIFO, over the size limit, unreadable: one line naming the file
    if (!(err instanceof Deno.errors.NotFound)) throw new InputError((err as Error).message);
    const streamId = await matchStream(store, file);
    const events: SessionEvent[] = [];
    if (streamId !== null) {
      for await (const e of store.readStream(streamId)) events.push(e as SessionEvent);
    }
    if (events.length === 0) throw new InputError(`${file}: no such file or stored session`);
    return eventsToPlan(events, { kind: "recording", recordingId: file });
  }
  const dir = resolve(file, "..");
  return await planFromText(text, {
    file,
    memoryKeys,
    readFile: captureFileReader(dir, files),
  });
}

/**
 * Renders a report as a readable table.
 *
 * @param report the playback report
 * @returns the lines to print
 */
export function formatReport(report: PlaybackReport): string {
  // The source's own actions, as the rows number them: the navigate Cairn added to open the
  // page first is not one of them, and is told apart.
  // The report's counts are of those too (the JSON's actions_total is this "N actions").
  const added = report.results.filter((r) => r.added);
  const ok = report.actions_executed - report.actions_healed;
  const opened = added.length > 0 ? `; + page opened first: ${added[0]!.status}` : "";
  const head =
    `Playback ${report.playback_id}  ${report.status}  ${report.actions_total} actions: ${ok} ok · ${report.actions_healed} healed · ${report.actions_failed} failed · ${report.actions_skipped} skipped${opened}  (${
      (report.duration_ms / 1000).toFixed(1)
    } s)`;
  // The strategy and ms columns are as wide as their widest value (`content_description` on
  // Android, a 100 s action), so the columns after them stay aligned.
  const strategyWidth = Math.max(
    "strategy".length,
    ...report.results.map((r) => (r.selector_used ?? "").length),
  );
  const msWidth = Math.max(5, ...report.results.map((r) => String(r.duration_ms).length));
  const rows = report.results.map((r) => {
    // a navigate shows its whole url: the page opened (a --url's query) must be readable
    const what = r.action === "navigate"
      ? r.description ?? r.action
      : (r.description ?? r.action).slice(0, 44);
    const detail = r.status === "healed"
      ? `${r.healed_level !== undefined ? `level ${r.healed_level}: ` : ""}${
        r.healed_selector ?? ""
      }`
      : [r.error_code, r.error, r.likely_cause ? `(likely cause: ${r.likely_cause})` : ""]
        .filter(Boolean).join(": ");
    return `${numberOf(r).padStart(3)}  ${r.status.padEnd(7)}  ${what.padEnd(44)}  ${
      (r.selector_used ?? "").padEnd(strategyWidth)
    }  ${String(r.duration_ms).padStart(msWidth)}  ${detail}`;
  });
  const lines = [
    head,
    `${"#".padStart(3)}  ${"status".padEnd(7)}  ${"action".padEnd(44)}  ${
      "strategy".padEnd(strategyWidth)
    }  ${"ms".padStart(msWidth)}  detail`,
    ...rows,
  ];
  for (const w of report.warnings) lines.push(`warning: ${w}`);
  for (const r of report.results) {
    if (r.warning) {
      const n = sourceNumber(r);
      lines.push(`warning: ${n === undefined ? "opening navigate" : `action ${n}`}: ${r.warning}`);
    }
  }
  for (const s of report.screenshots) lines.push(`screenshot: ${s}`);
  if (report.video) {
    const secs = report.video.duration_ms === undefined
      ? ""
      : ` (${(report.video.duration_ms / 1000).toFixed(1)} s)`;
    lines.push(`video: ${report.video.path}${secs}`);
  }
  if (report.video_error) lines.push(`video: ${report.video_error}`);
  if (report.results.some((r) => r.added)) {
    lines.push("+: the page the source starts on, opened first by Cairn (not one of its actions)");
  }
  return lines.join("\n");
}

/** The `#` a table row shows: the action's number in its source, `+` for the added navigate. */
function numberOf(r: PlaybackReport["results"][number]): string {
  return String(sourceNumber(r) ?? "+");
}

/**
 * Refuses a web plan it could only fail on or play on about:blank ({@linkcode openingProblem}):
 * a navigate to something that is not a url (a Recorder flow's `https://localhost:<test-port>/…`),
 * or no page opened (unless `--browser-ws` plays in the remote browser's page). `--url` fixes
 * both.
 */
function checkOpening(plan: PlaybackPlan, file: string, browserWs: string | undefined): void {
  const problem = openingProblem(plan, { pageOpen: browserWs !== undefined });
  if (!problem) return;
  throw new InputError(
    problem.kind === "no_page"
      ? `${file}: no url: ${problem.message}; pass --url`
      : `${file}: ${problem.message}: pass --url to re-point it at your server`,
  );
}

/**
 * Refuses a `--memory` key the plan has no use for: neither one of its memory defaults nor a
 * variable one of its templates reads (a trail's `pin: null` secret is read as `{{pin}}`). The
 * value is never echoed.
 */
function checkMemory(plan: PlaybackPlan, memory: Record<string, string>, file: string): void {
  const known = planMemoryKeys(plan);
  const unknown = Object.keys(memory).filter((k) => !known.includes(k));
  if (unknown.length > 0) {
    throw new InputError(
      `--memory: ${file} has no memory key ${unknown.map((k) => JSON.stringify(k)).join(", ")} ` +
        `(keys: ${known.join(", ") || "none"})`,
    );
  }
}

/**
 * Refuses an override the plan cannot use ({@linkcode overrideProblems}: a number no action of
 * the source has, or an action that types nothing), checked on the final plan.
 */
function checkOverrides(plan: PlaybackPlan, overrides: Record<string, string>): void {
  const [problem] = overrideProblems(plan, Object.keys(overrides));
  if (problem) throw new InputError(`--override ${problem.key}: ${problem.message}`);
}

/**
 * Runs the command.
 *
 * @param args parsed arguments
 * @returns 0 when the playback completed (no action failed, the page opened first included), 1 otherwise
 */
export async function run(args: ParsedArgs): Promise<number> {
  if (await isSuite(args)) {
    if (str(args, "video") !== undefined) {
      throw new InputError("--video records one replay: give one file, not a suite");
    }
    return await runSuite(args); // several trails: cli/_suite.ts
  }
  const file = args.positionals[0]!;
  const overrides = parseOverrides(list(args, "override"));
  const memory = parseMemory(list(args, "memory"));
  const viewportFlag = parseViewport(str(args, "viewport"));
  const url = str(args, "url");
  // http(s), or a local file: page with --allow-file-urls (as validate --url)
  if (url !== undefined) checkUrlFlag(url, args);
  const browserWs = browserWsFlag(args);
  const videoFile = str(args, "video");
  // without ffmpeg, one line before anything starts
  const ffmpeg = videoFile === undefined ? undefined : ffmpegOrInputError();
  const store = openStore(args);
  // Ctrl-C or SIGTERM: the playback ends failed ("interrupted (SIGINT)"), exit 130 or 143
  const interrupt = interruptOnSignals("replay");
  try {
    let plan = await loadPlan(file, store, Object.keys(memory), captureFileRules(args));
    // Opening --url first adds an unnumbered navigate: the numbers --override takes stay the file's.
    if (url && plan.platform === "web") plan = rebasePlan(plan, url);
    checkOverrides(plan, overrides);
    checkOpening(plan, file, browserWs);
    checkMemory(plan, memory, file);
    const unplayable = platformProblem(plan);
    if (unplayable && plan.platform !== "ios") throw new InputError(`${file}: ${unplayable}`);
    if (plan.platform === "ios") {
      throw new InputError(
        `${file}: an ios plan cannot be replayed: Cairn drives Chromium and Android`,
      );
    }
    // a key Android has no code for is refused before a device session starts
    const keyProblem = plan.platform === "android" ? androidKeyProblem(plan.actions) : undefined;
    if (keyProblem) throw new InputError(`${file}: ${keyProblem}`);
    let driver: Driver;
    if (plan.platform === "android") {
      // Android (Appium UiAutomator2): --appium, --udid, --app-package … pick the device and app.
      driver = await connectAndroid(androidStartFromArgs(args, "replay"));
    } else {
      const viewport = viewportFlag ?? plan.viewport ?? { width: 1280, height: 800 };
      driver = await ChromeDriver.launch({
        viewport,
        ...(browserWs ? { browserWs } : {}),
        ...fileUrlsOption(args),
      });
    }
    let report: PlaybackReport;
    try {
      if (interrupt.exitCode !== undefined) return interrupt.exitCode; // before it started
      // an action still running after the grace fails as its browser (device session) closes
      interrupt.onGrace(() => driver.close());
      const testId = str(args, "test-id");
      const live = liveProgress(store); // a line per action on a terminal (stderr)
      report = await runPlayback(driver, live.store, plan, {
        timing: str(args, "timing") as "fast" | "recorded",
        onError: str(args, "on-error") as "continue" | "skip_dependent" | "stop",
        valueOverrides: overrides,
        // the values given are secrets: used for the templates, scrubbed from every event
        ...(Object.keys(memory).length > 0 ? { memory, secrets: Object.values(memory) } : {}),
        actionTimeoutMs: num(args, "timeout") ?? DEFAULT_ACTION_TIMEOUT_MS,
        screenshotDir: str(args, "screenshots") ?? screenshotsDir(args),
        ...(testId ? { testId } : {}),
        ...(bool(args, "auto-boundary") ? { autoBoundary: true } : {}),
        ...(videoFile && ffmpeg
          ? { video: playbackVideo({ path: resolve(videoFile), ffmpeg }) }
          : {}),
        signal: interrupt.signal,
      }).finally(() => live.done());
    } finally {
      // A hung page may keep the browser from closing: kill it rather than wait forever.
      await withDeadline(driver.close(), CLOSE_CAP_MS, () => new Error("close timed out"))
        .catch(() => driver.kill?.());
    }
    console.log(bool(args, "json") ? JSON.stringify(report, null, 2) : formatReport(report));
    return interrupt.exitCode ?? (report.status === "failed" ? 1 : 0);
  } finally {
    interrupt.dispose();
    await closeLaunchedBrowsers(); // as record does: no Chromium outlives the command
    store.close();
  }
}
