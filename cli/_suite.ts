/**
 * `cairn replay PATH…` with more than one trail (files, folders, globs), or with `--junit`,
 * `--workers` or `--retries`: a suite. One browser is launched once; each trail plays in a fresh
 * browser context of it, and `--workers N` take trails from one queue and play them side by side,
 * each in contexts of its own (no lock between them). A line per action shows progress (rewritten in place on a
 * terminal, plain lines otherwise: CI logs), then a summary table; `--junit FILE` writes a JUnit
 * XML report; `--retries N` plays a failed trail again up to N times. Exit 1 when any trail failed.
 *
 * @module
 */
import { join, relative, resolve } from "node:path";
import { type FlagSpec, list, num, type ParsedArgs, str } from "./args.ts";
import { filesDir, openStore } from "./context.ts";
import { InputError } from "./errors.ts";
import { parseMemory } from "./_memory_flag.ts";
import { prepareOutFile } from "./_out_file.ts";
import {
  captureFileReader,
  type CaptureFileRules,
  captureFileRules,
  readNamedFile,
} from "./_capture_files.ts";
import type { EventStore } from "../events/mod.ts";
import type { NewEvent } from "../events/mod.ts";
import type { PlaybackPlan } from "../engine/playback/mod.ts";
import { planFromText, rebasePlan } from "../engine/playback/mod.ts";
import { openingProblem, platformProblem } from "../engine/playback/mod.ts";
import type { PlaybackReport } from "../engine/playback/mod.ts";
import { DEFAULT_ACTION_TIMEOUT_MS, runPlayback } from "../runners/playback/mod.ts";
import { ChromeDriver } from "../drivers/chrome/mod.ts";
import {
  closeLaunchedBrowsers,
  launchChrome,
  type LaunchedBrowser,
} from "../drivers/chrome/mod.ts";
import { interruptOnSignals } from "./_interrupt.ts";

/** The flags of a suite (`cairn replay` takes them). */
export const SUITE_FLAGS: Record<string, FlagSpec> = {
  junit: {
    type: "string",
    value: "FILE",
    description: "Write a JUnit XML report of the trails played (CI servers read it)",
  },
  retries: {
    type: "integer",
    value: "N",
    min: 0,
    max: 10,
    description: "Play a failed trail again up to N times (suites)",
  },
  workers: {
    type: "integer",
    value: "N",
    min: 1,
    max: 16,
    description:
      "Trails played side by side, each worker in browser contexts of its own in one browser (suites; default 1)",
  },
};

/** The suite part of `cairn replay --help`. */
export const SUITE_HELP = `
Suites: several FILEs, a folder (its .yaml, .yml and .json files, recursively) or a glob
('trails/**/*.yaml', quoted so that Cairn expands it) play one after another, each trail in a
fresh browser context: a line per action as it finishes (rewritten in place on a terminal,
plain lines when the output is not one or CI is set), a line per trail, then a summary table.
--workers N plays N trails at a time, --retries N plays a failed trail again, --junit FILE
writes a JUnit XML report. Exit 1 when any trail failed, 2 when a file cannot be read (before
anything plays). A suite plays web trails; --browser-ws, --override and --json take one file.
  cairn replay e2e/ --url http://127.0.0.1:8000/ --workers 2 --junit reports/cairn.xml`;

/**
 * Where replay's screenshots go without `--screenshots`: `screenshots/` beside the database
 * (`.cairn/screenshots` by default; beside `CAIRN_DB` or `--db` when set).
 */
export function screenshotsDir(args: ParsedArgs): string {
  return join(filesDir(args), "screenshots");
}

/** The files a folder contributes: trails, flows, recordings. */
const PLAYABLE = /\.(ya?ml|json)$/i;
/** At most this many files in a suite (a bounded walk). */
const MAX_FILES = 5_000;

/** Whether `replay` runs as a suite: several paths, a folder or glob, or a suite flag. */
export async function isSuite(args: ParsedArgs): Promise<boolean> {
  if (args.positionals.length > 1) return true;
  if (["junit", "workers", "retries"].some((f) => args.flags[f] !== undefined)) return true;
  const p = args.positionals[0]!;
  if (/[*?[]/.test(p)) return true;
  return await Deno.stat(p).then((s) => s.isDirectory, () => false);
}

function globRegex(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      re += glob[i + 2] === "/" ? "(?:.*/)?" : ".*";
      i += glob[i + 2] === "/" ? 2 : 1;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|\\\]]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

async function walk(dir: string, out: string[]): Promise<void> {
  const entries: Deno.DirEntry[] = [];
  for await (const e of Deno.readDir(dir)) entries.push(e);
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) {
    if (out.length >= MAX_FILES) return;
    if (e.name.startsWith(".") || e.name === "node_modules") continue;
    const p = join(dir, e.name);
    if (e.isDirectory) await walk(p, out);
    else if (e.isFile) out.push(p);
  }
}

/**
 * Expands the suite's paths: a file is itself, a folder its playable files (recursively, in
 * name order), a glob (`*`, `**`, `?`) the files it matches.
 *
 * @param paths the positionals
 * @returns the files, each once, in order
 * @throws {InputError} naming a path that is none of these or matches nothing
 */
export async function expandPaths(paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    if (/[*?[]/.test(p)) {
      const parts = p.split("/");
      const first = parts.findIndex((s) => /[*?[]/.test(s));
      const base = parts.slice(0, first).join("/") || (p.startsWith("/") ? "/" : ".");
      const re = globRegex(resolve(p));
      const all: string[] = [];
      await walk(base, all).catch(() => {});
      const hits = all.filter((f) => re.test(resolve(f)));
      if (hits.length === 0) throw new InputError(`${p}: no file matches`);
      out.push(...hits);
      continue;
    }
    const stat = await Deno.stat(p).catch(() => undefined);
    if (!stat) throw new InputError(`${p}: no such file or folder`);
    if (stat.isDirectory) {
      const all: string[] = [];
      await walk(p, all);
      const hits = all.filter((f) => PLAYABLE.test(f));
      if (hits.length === 0) {
        throw new InputError(`${p}: no trail, flow or recording in the folder`);
      }
      out.push(...hits);
    } else out.push(p);
  }
  if (out.length > MAX_FILES) throw new InputError(`more than ${MAX_FILES} files in the suite`);
  return [...new Set(out)];
}

/** One trail's outcome in a suite. */
export interface SuiteCase {
  file: string;
  status: "passed" | "failed";
  attempts: number;
  durationMs: number;
  report?: PlaybackReport;
  /** Why it failed: the first failed action, or the error that kept it from playing. */
  failure?: string;
  /** Why the earlier attempts of a trail that passed on a retry failed (a flaky trail). */
  flaky?: string[];
}

/** Prints progress: a line rewritten in place on a terminal, plain lines otherwise. */
class Progress {
  #tty: boolean;
  #live = false;
  #enc = new TextEncoder();
  constructor(tty: boolean) {
    this.#tty = tty;
  }
  /** A transient line (the action that just finished): replaced by the next one on a terminal. */
  action(text: string): void {
    if (this.#tty) {
      const cols = Deno.consoleSize?.().columns ?? 100;
      Deno.stdout.writeSync(this.#enc.encode(`\r\x1b[K${text.slice(0, cols - 1)}`));
      this.#live = true;
    } else this.line(text);
  }
  /** A line that stays. */
  line(text: string): void {
    const clear = this.#tty && this.#live ? "\r\x1b[K" : "";
    this.#live = false;
    Deno.stdout.writeSync(this.#enc.encode(`${clear}${text}\n`));
  }
}

/**
 * One trail's live progress on a terminal (`cairn replay FILE`): each action as it finishes, on
 * one line of stderr rewritten in place and cleared at the end, so the report on stdout (table or
 * JSON) is unchanged. Off when stderr is not a terminal or `CI` is set.
 *
 * @param store the run's event store
 * @returns the store to play with, and what clears the line
 */
export function liveProgress(store: EventStore): { store: EventStore; done(): void } {
  if (!Deno.stderr.isTerminal() || Deno.env.get("CI")) return { store, done: () => {} };
  const enc = new TextEncoder();
  let live = false;
  const watched = watchedStore(store, (d) => {
    const n = d.added ? "+" : String(d.sourceIndex ?? d.index);
    const cols = Deno.consoleSize().columns;
    const text = `#${n} ${String(d.status).padEnd(7)} ${d.description ?? d.action}`;
    Deno.stderr.writeSync(enc.encode(`\r\x1b[K${text.slice(0, cols - 1)}`));
    live = true;
  });
  return {
    store: watched,
    done: () => {
      if (live) Deno.stderr.writeSync(enc.encode("\r\x1b[K"));
    },
  };
}

/** A store whose appends of finished actions are also told to `onAction`. */
function watchedStore(
  store: EventStore,
  onAction: (data: Record<string, unknown>) => void,
): EventStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === "append") {
        return async (streamId: string, events: NewEvent[], options?: unknown) => {
          const res = await target.append(streamId, events, options as never);
          for (const e of events) {
            if (e.type === "PlaybackActionCompleted") onAction(e.data as Record<string, unknown>);
          }
          return res;
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

async function loadSuitePlan(
  file: string,
  url: string | undefined,
  memoryKeys: readonly string[],
  files: CaptureFileRules,
): Promise<PlaybackPlan> {
  let text: string;
  try {
    // as one file's replay: a regular file within --max-file-size, a device or FIFO refused
    text = new TextDecoder().decode(await readNamedFile(file, files));
  } catch (err) {
    if (err instanceof Deno.errors.IsADirectory) throw new InputError(`${file}: is a folder`);
    throw new InputError(
      err instanceof Deno.errors.NotFound ? `${file}: no such file` : (err as Error).message,
    );
  }
  const dir = resolve(file, "..");
  let plan: PlaybackPlan;
  try {
    plan = await planFromText(text, {
      file,
      memoryKeys,
      // a capture's references, held to the rules `cairn ingest` reads them by
      readFile: captureFileReader(dir, files),
    });
  } catch (err) {
    if (err instanceof SyntaxError) throw new InputError(err.message);
    throw err;
  }
  if (url && plan.platform === "web") plan = rebasePlan(plan, url);
  if (plan.platform !== "web") {
    throw new InputError(
      `${file}: a ${plan.platform} trail: suites (several files, --junit, --workers, --retries) play web trails; replay it alone without those flags`,
    );
  }
  const unplayable = platformProblem(plan);
  if (unplayable) throw new InputError(`${file}: ${unplayable}`);
  const opening = openingProblem(plan, { pageOpen: false });
  if (opening) throw new InputError(`${file}: ${opening.message}; pass --url`);
  return plan;
}

const escXml = (s: string): string =>
  s.replace(
    /[<>&"']/g,
    (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!,
  )
    // characters XML 1.0 cannot hold at all
    // deno-lint-ignore no-control-regex
    .replace(/[\x00-\x08\x0b\x0c\x0e-\x1f]/g, "");

/**
 * A suite's JUnit XML report: one `testsuite`, one `testcase` per trail (classname: its folder,
 * name: its file), a `failure` naming the first failed action (a `flakyFailure` per failed
 * attempt of a trail that passed on a retry), the action table as `system-out`.
 *
 * @param cases the outcomes
 * @param startedAt when the suite started
 * @param totalMs the suite's wall time
 * @returns the XML text
 */
export function junitXml(cases: readonly SuiteCase[], startedAt: Date, totalMs: number): string {
  const failures = cases.filter((c) => c.status === "failed").length;
  const secs = (ms: number) => (ms / 1000).toFixed(3);
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="cairn replay" tests="${cases.length}" failures="${failures}" errors="0" time="${
      secs(totalMs)
    }">`,
    `  <testsuite name="cairn replay" tests="${cases.length}" failures="${failures}" errors="0" skipped="0" time="${
      secs(totalMs)
    }" timestamp="${startedAt.toISOString().slice(0, 19)}" hostname="${escXml(Deno.hostname())}">`,
  ];
  for (const c of cases) {
    const rel = relative(Deno.cwd(), resolve(c.file));
    const slash = rel.lastIndexOf("/");
    const classname = slash < 0 ? "trails" : rel.slice(0, slash).replaceAll("/", ".");
    lines.push(
      `    <testcase name="${escXml(rel.slice(slash + 1))}" classname="${
        escXml(classname)
      }" time="${secs(c.durationMs)}">`,
    );
    if (c.status === "failed") {
      lines.push(
        `      <failure message="${escXml(c.failure ?? "failed")}" type="playback">${
          escXml(
            `${c.failure ?? "failed"}${c.attempts > 1 ? ` (after ${c.attempts} attempts)` : ""}`,
          )
        }</failure>`,
      );
    }
    if (c.status === "passed") {
      // passed on a retry: each failed attempt as a flakyFailure (Surefire's form, CI servers
      // show the test as flaky)
      for (const f of c.flaky ?? []) {
        lines.push(`      <flakyFailure message="${escXml(f)}" type="playback"/>`);
      }
    }
    if (c.report) {
      const rows = c.report.results.map((r) =>
        `${r.status.padEnd(7)} ${r.description ?? r.action}${r.error ? `: ${r.error}` : ""}`
      );
      lines.push(`      <system-out>${escXml(rows.join("\n"))}</system-out>`);
    }
    lines.push(`    </testcase>`);
  }
  lines.push(`  </testsuite>`, `</testsuites>`, ``);
  return lines.join("\n");
}

function firstFailure(report: PlaybackReport): string {
  const r = report.results.find((x) => x.status === "failed");
  if (!r) return report.error ?? "failed";
  const n = r.added ? "opening navigate" : `action ${r.source_index ?? r.index}`;
  return `${n} (${r.description ?? r.action}): ${r.error ?? r.error_code ?? "failed"}`;
}

/**
 * Runs a suite.
 *
 * @param args the parsed `replay` arguments
 * @returns 0 when every trail passed, 1 otherwise
 */
export async function runSuite(args: ParsedArgs): Promise<number> {
  const files = await expandPaths(args.positionals);
  const memory = parseMemory(list(args, "memory"));
  const url = str(args, "url");
  if (url !== undefined && (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))) {
    throw new InputError(`--url: expected an http(s) url, got ${JSON.stringify(url)}`);
  }
  for (const f of ["browser-ws", "override", "json", "appium", "udid"]) {
    const v = args.flags[f];
    if (v !== undefined && !(Array.isArray(v) && v.length === 0)) {
      throw new InputError(`--${f} plays one file: replay the file on its own`);
    }
  }
  const junit = str(args, "junit");
  if (junit) await prepareOutFile(junit, "--junit");
  const workers = Math.min(num(args, "workers") ?? 1, files.length);
  const retries = num(args, "retries") ?? 0;
  // every plan is read before a browser starts: a bad file fails the suite at once (exit 2)
  const plans = new Map<string, PlaybackPlan>();
  const rules = captureFileRules(args);
  for (const f of files) plans.set(f, await loadSuitePlan(f, url, Object.keys(memory), rules));
  const progress = new Progress(Deno.stdout.isTerminal() && !Deno.env.get("CI"));
  const store = openStore(args);
  // Ctrl-C or SIGTERM: the running trails end failed, no other starts, exit 130 or 143
  const interrupt = interruptOnSignals("replay");
  // One browser for the suite, launched once when the first trail needs it; each worker plays
  // in browser contexts of its own in it (a fresh one per trail), taking the next trail from the
  // queue as it finishes one. A browser that died is launched again for the trails left.
  let browser: Promise<LaunchedBrowser> | undefined;
  const sharedBrowser = (): Promise<LaunchedBrowser> => {
    const launching = browser ??= launchChrome({}).catch((err) => {
      if (browser === launching) browser = undefined;
      throw err;
    });
    return launching;
  };
  const relaunchIfGone = async (): Promise<void> => {
    const b = browser;
    const launched = await b?.catch(() => undefined);
    if (!launched || launched.browser.connected) return;
    if (browser === b) browser = undefined;
    await launched.kill().catch(() => {});
  };
  interrupt.onGrace(async () => {
    const launched = await browser?.catch(() => undefined);
    await launched?.kill().catch(() => {});
  });
  const startedAt = new Date();
  const t0 = performance.now();
  const cases: SuiteCase[] = new Array(files.length);
  const width = String(files.length).length;
  let next = 0;
  let done = 0;
  const screenshots = str(args, "screenshots") ?? screenshotsDir(args);
  const worker = async () => {
    let driver: ChromeDriver | undefined;
    try {
      while (next < files.length && !interrupt.signal.aborted) {
        const i = next++;
        const file = files[i]!;
        const plan = plans.get(file)!;
        const c: SuiteCase = { file, status: "failed", attempts: 0, durationMs: 0 };
        const started = performance.now();
        for (let attempt = 1; attempt <= retries + 1; attempt++) {
          c.attempts = attempt;
          const tag = `[${String(i + 1).padStart(width)}/${files.length}] ${file}${
            attempt > 1 ? ` (attempt ${attempt})` : ""
          }`;
          try {
            const viewport = plan.viewport ?? { width: 1280, height: 800 };
            // a new driver's tab is already fresh (a context of its own); a driver that played a
            // trail starts the next in a fresh context, its last one closed
            if (!driver) driver = await ChromeDriver.inContext(await sharedBrowser(), { viewport });
            else await driver.freshTab({ viewport });
            const watched = watchedStore(store, (d) => {
              // numbered as the replay table numbers actions; + is the page opened first
              const n = d.added ? "+" : String(d.sourceIndex ?? d.index);
              progress.action(
                `${tag}  #${n} ${String(d.status).padEnd(7)} ${d.description ?? d.action}`,
              );
            });
            const report = await runPlayback(driver, watched, plan, {
              actionTimeoutMs: num(args, "timeout") ?? DEFAULT_ACTION_TIMEOUT_MS,
              onError: (str(args, "on-error") ?? "continue") as "continue",
              timing: (str(args, "timing") ?? "fast") as "fast",
              screenshotDir: screenshots,
              signal: interrupt.signal,
              ...(Object.keys(memory).length > 0 ? { memory, secrets: Object.values(memory) } : {}),
            });
            c.report = report;
            if (interrupt.signal.aborted) {
              c.failure = firstFailure(report);
              break;
            }
            if (report.status === "completed") {
              c.status = "passed";
              if (c.failure !== undefined) c.flaky = [...(c.flaky ?? []), c.failure];
              delete c.failure;
              break;
            }
            if (c.failure !== undefined) c.flaky = [...(c.flaky ?? []), c.failure];
            c.failure = firstFailure(report);
          } catch (err) {
            if (c.failure !== undefined) c.flaky = [...(c.flaky ?? []), c.failure];
            c.failure = (err as Error).message;
            // a driver that failed is not reused (its context is closed); a browser that died is
            // launched again
            await driver?.kill().catch(() => {});
            driver = undefined;
            await relaunchIfGone();
            if (interrupt.signal.aborted) break;
          }
        }
        c.durationMs = Math.round(performance.now() - started);
        cases[i] = c;
        done++;
        progress.line(
          `${c.status === "passed" ? "✓" : "✗"} [${done}/${files.length}] ${file}  ${
            (c.durationMs / 1000).toFixed(1)
          } s${c.failure && c.status === "failed" ? `  ${c.failure}` : ""}`,
        );
      }
    } finally {
      await driver?.close().catch(() => {});
    }
  };
  try {
    await Promise.all(Array.from({ length: workers }, () => worker()));
  } finally {
    interrupt.dispose();
    await closeLaunchedBrowsers();
    store.close();
  }
  const totalMs = Math.round(performance.now() - t0);
  // an interrupted suite reports the trails it played
  const played = cases.filter((c): c is SuiteCase => c !== undefined);
  const failed = played.filter((c) => c.status === "failed").length;
  const fw = Math.max(4, ...played.map((c) => c.file.length));
  const table = [
    "",
    `${"file".padEnd(fw)}  status  actions  ok  healed  failed  skipped  tries     s`,
    ...played.map((c) => {
      const r = c.report;
      const ok = r ? r.actions_executed - r.actions_healed : 0;
      return `${c.file.padEnd(fw)}  ${c.status.padEnd(6)}  ${
        String(r?.actions_total ?? 0).padStart(7)
      }  ${String(ok).padStart(2)}  ${String(r?.actions_healed ?? 0).padStart(6)}  ${
        String(r?.actions_failed ?? 0).padStart(6)
      }  ${String(r?.actions_skipped ?? 0).padStart(7)}  ${String(c.attempts).padStart(5)}  ${
        (c.durationMs / 1000).toFixed(1).padStart(4)
      }`;
    }),
    "",
    `${played.length} trails: ${played.length - failed} passed, ${failed} failed  (${
      (totalMs / 1000).toFixed(1)
    } s, ${workers} worker${workers === 1 ? "" : "s"})`,
  ];
  progress.line(table.join("\n"));
  if (junit) {
    await Deno.writeTextFile(junit, junitXml(played, startedAt, totalMs));
    progress.line(`JUnit report: ${junit}`);
  }
  return interrupt.exitCode ?? (failed > 0 ? 1 : 0);
}
