/**
 * `cairn validate SESSION --url URL`: proves a capture's trail is stable by replaying it in a
 * fresh headless Chromium (no agent), comparing each run with the capture and refining from
 * both runs' hierarchies, as the policy allows (see docs/validation.md).
 * Progress goes to stderr, one line per iteration and step; the final trail to stdout (or
 * `--out`), or the whole report with `--json`. Exit 0 when the trail is stable or its unstable
 * steps were flagged (authoring, dev); 1 when a ci replay failed (a new blaze is needed), when a
 * step could not be validated (a memory value not supplied: the trail is not proven stable), or
 * when nothing was validated (the page could not be opened, or every step was skipped,
 * `recordable: false` or an empty recording); 2 on bad input, before anything runs.
 *
 * @module
 */
import { bool, type CommandSpec, list, num, type ParsedArgs, str } from "./args.ts";
import { DB_FLAGS, matchStream, openStore } from "./context.ts";
import { InputError } from "./errors.ts";
import { prepareOutFile } from "./_out_file.ts";
import { readInputFile } from "./_in_file.ts";
import { interruptOnSignals } from "./_interrupt.ts";
import { browserWsFlag } from "./_browser_ws_flag.ts";
import { checkUrlFlag, FILE_URLS_FLAG, fileUrlsOption } from "./_file_urls_flag.ts";
import { parseMemory } from "./_memory_flag.ts";
import { ingestOnce } from "./optimize.ts";
import { CAPTURE_FILE_FLAGS, captureFileRules } from "./_capture_files.ts";
import { NotFoundError, streamInfo } from "../events/mod.ts";
import { ChromeDriver } from "../drivers/chrome/mod.ts";
import { closeLaunchedBrowsers } from "../drivers/chrome/mod.ts";
import { MemoryKeyError, PlatformMismatchError, runValidation } from "../runners/validation/mod.ts";
import {
  DEFAULT_MAX_ITERATIONS,
  MAX_ITERATIONS,
  type Policy,
  policyFlags,
} from "../engine/validation/mod.ts";
import { renderStepTable, validationReport } from "../engine/validation/mod.ts";
import { parseTrail, type SelectorMode, type Trail } from "../engine/trail/mod.ts";
import { HEURISTICS_VERSION, HEURISTICS_VERSIONS } from "../engine/trail/mod.ts";

/** The command's flags and help. */
export const spec: CommandSpec = {
  name: "validate",
  summary: "Replay a capture's trail, compare with the capture, refine until stable",
  positionals: ["SESSION|CAPTURE_FILE"],
  flags: {
    ...DB_FLAGS,
    url: {
      type: "string",
      value: "URL",
      description:
        "Url each replay opens (default: the capture's); a file: url needs --allow-file-urls",
    },
    policy: {
      type: "string",
      choices: ["authoring", "dev", "ci"],
      default: "authoring",
      description:
        "authoring: loop until stable, flag unstable steps; dev: refine once, else NL; ci: replay only",
    },
    "max-iterations": {
      type: "integer",
      value: "N",
      min: 1,
      max: MAX_ITERATIONS,
      description:
        `Replays at most (authoring only: dev replays at most twice, ci once; default ${DEFAULT_MAX_ITERATIONS})`,
    },
    mode: {
      type: "string",
      choices: ["strict", "flexible", "adaptive"],
      description:
        "Selector mode of the projected trail (default adaptive; with --trail: its config.selectorMode)",
    },
    heuristics: {
      type: "string",
      choices: HEURISTICS_VERSIONS,
      description:
        `Optimizer heuristics version of the projected trail (default ${HEURISTICS_VERSION}; ` +
        "with --trail: its config.heuristics)",
    },
    trail: {
      type: "string",
      value: "FILE",
      description:
        "Validate this trail instead of projecting the capture (ci: the committed trail)",
    },
    memory: {
      type: "list",
      value: "KEY=VALUE",
      description:
        "Value of the trail's memory KEY for the replays (a password kept as null); never stored; repeatable",
    },
    out: { type: "string", alias: "o", value: "FILE", description: "Write the final trail here" },
    json: {
      type: "boolean",
      description: "Print the report (runs, steps, evidence, trail) as JSON",
    },
    "browser-ws": { type: "string", value: "URL", description: "Connect to this browser instead" },
    ...FILE_URLS_FLAG,
    ...CAPTURE_FILE_FLAGS,
  },
  details: `
A selector that finds nothing is repaired during the replay (authoring, dev): the element is placed
on the page by the capture's fingerprint (role, name, the texts around it), gets a new selector
chain, and the replay goes on from it, so the later steps are played, not skipped.

Examples:
  deno task cairn validate 3f1c… --url http://127.0.0.1:8000/shop
  deno task cairn validate 3f1c… --url http://127.0.0.1:8000/shop --policy dev --out shop.trail.yaml
  deno task cairn validate 3f1c… --trail shop.trail.yaml --policy ci   # exit 1: re-blaze needed
  deno task cairn validate 3f1c… --heuristics v2   # project and validate v2's trail
  deno task cairn validate 3f1c… --memory password=hunter2   # the trail keeps password: null
`,
};

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/**
 * When the file given as the session is a trail (YAML with top-level `config:` or `trail:`),
 * the line that says so and how to validate it; undefined for anything else (a capture).
 */
async function trailInsteadOfSession(path: string): Promise<string | undefined> {
  if (!(await isFile(path))) return undefined;
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch {
    return undefined; // the capture reader says what is wrong with it
  }
  if (/^\s*[{[]/.test(text) || !/^(?:config|trail)\s*:/m.test(text)) return undefined;
  let id: string | undefined;
  try {
    id = parseTrail(text, path).config.id;
  } catch {
    // a trail with a mistake in it is still a trail: said so, its mistake is for --trail
  }
  return `${path}: this is a trail, not a session or capture: use cairn validate ${
    id ?? "SESSION"
  } --trail ${path}`;
}

/**
 * Runs the command.
 *
 * @param args parsed arguments
 * @returns 0 when stable or flagged, 1 when a ci replay failed, a step was not validated or
 *   nothing was
 * @throws {InputError} for a trail file given as the session, an unknown session, a bad url, a bad trail file or iteration count, a
 *   malformed `--memory` or one naming a key the trail's memory does not have, a `--heuristics`
 *   or `--mode` other than the `--trail`'s own
 */
export async function run(args: ParsedArgs): Promise<number> {
  const target = args.positionals[0]!;
  const misplaced = await trailInsteadOfSession(target);
  if (misplaced) throw new InputError(misplaced);
  const policy = (str(args, "policy") ?? "authoring") as Policy;
  const asked = num(args, "max-iterations");
  if (
    asked !== undefined && policy !== "authoring" && asked !== policyFlags(policy).maxIterations
  ) {
    // as the HTTP body's max_iterations: the other policies fix their own count
    throw new InputError(
      `--max-iterations: only the authoring policy takes it (--policy ${policy} replays ${
        policy === "dev" ? "at most twice" : "once"
      })`,
    );
  }
  const maxIterations = asked ?? DEFAULT_MAX_ITERATIONS;
  const url = str(args, "url");
  // a local page (file:, data:) only with --allow-file-urls, as the browser's own rule
  if (url !== undefined) checkUrlFlag(url, args);
  const memory = parseMemory(list(args, "memory"));
  let trail: Trail | undefined;
  let trailSource: string | undefined;
  const trailFile = str(args, "trail");
  if (trailFile) {
    trailSource = await readInputFile(trailFile, "--trail");
    // as replay: a template reading a key nothing can set is refused when read
    trail = parseTrail(trailSource, trailFile, { memoryKeys: Object.keys(memory) });
  }
  const heuristics = str(args, "heuristics");
  const own = trail?.config.heuristics;
  if (heuristics !== undefined && own !== undefined && heuristics !== own) {
    // The capture is compared at the version the trail was projected with, never another one.
    throw new InputError(
      `--heuristics: ${trailFile} was projected with heuristics ${own} (config.heuristics), ` +
        `not ${heuristics}`,
    );
  }
  const mode = str(args, "mode") as SelectorMode | undefined;
  const ownMode = trail?.config.selectorMode;
  if (mode !== undefined && ownMode !== undefined && mode !== ownMode) {
    // As for heuristics: the capture is compared at the mode the trail was projected with.
    throw new InputError(
      `--mode: ${trailFile} was projected in ${ownMode} mode (config.selectorMode), not ${mode}`,
    );
  }
  const json = bool(args, "json");
  const out = str(args, "out");
  if (out) await prepareOutFile(out, "--out", [target, ...(trailFile ? [trailFile] : [])]);
  const ws = browserWsFlag(args);
  const store = openStore(args);
  let driver: ChromeDriver | undefined;
  // Ctrl-C or SIGTERM: the validation ends failed ("interrupted (SIGINT)"), exit 130 or 143
  const interrupt = interruptOnSignals("validate");
  try {
    const sessionId = await isFile(target)
      ? await ingestOnce(store, target, undefined, captureFileRules(args))
      : ((await matchStream(store, target)) ?? target).replace(/^session-/, "");
    if (!(await streamInfo(store, `session-${sessionId}`))) {
      throw new InputError(`${target}: neither a capture file nor a stored session`);
    }
    const other = trail?.config.id;
    if (other !== undefined && other !== sessionId) {
      throw new InputError(
        `--trail: ${trailFile} is the trail of session ${other} (config.id), not of ${sessionId}`,
      );
    }
    if (interrupt.exitCode !== undefined) return interrupt.exitCode;
    const launched = await ChromeDriver.launch({
      ...(ws ? { browserWs: ws } : {}),
      ...fileUrlsOption(args),
    });
    driver = launched;
    if (interrupt.exitCode !== undefined) return interrupt.exitCode;
    interrupt.onGrace(() => launched.close());
    let state;
    try {
      state = await runValidation(driver, store, sessionId, {
        policy,
        maxIterations,
        ...(mode ? { mode } : {}),
        ...(heuristics ? { heuristics } : {}),
        ...(url ? { url } : {}),
        ...(trail ? { trail } : {}),
        ...(trailSource !== undefined ? { trailSource } : {}),
        ...(Object.keys(memory).length ? { memory } : {}),
        // each replay after the first starts clean as the first did (a launched browser: a fresh
        // context; a --browser-ws one: a fresh tab in the user's own context)
        beforeReplay: () => launched.freshTab(),
        onProgress: (line) => console.error(line),
        signal: interrupt.signal,
      });
    } catch (err) {
      if (interrupt.exitCode !== undefined) return interrupt.exitCode; // its stream says so
      if (err instanceof MemoryKeyError) throw new InputError(`--memory: ${err.message}`);
      if (err instanceof NotFoundError || err instanceof PlatformMismatchError) {
        throw new InputError(`${target}: ${err.message}`);
      }
      throw err;
    }
    const report = validationReport(state);
    // A failed validation proved nothing new: it writes no trail (the one given is unchanged).
    const failed = report.status === "failed";
    if (out && !failed) await Deno.writeTextFile(out, report.trail);
    if (json) console.log(JSON.stringify(report, null, 2));
    else {
      console.error(renderStepTable(report));
      if (out && !failed) {
        console.error(`wrote ${out} (validation ${report.validation_id}, ${report.status})`);
      } else if (!failed) console.log(report.trail.trimEnd());
    }
    if (report.status === "failed") {
      console.error(`error: ${report.message ?? "validation failed"}`);
      return interrupt.exitCode ?? 1;
    }
    if (report.steps.some((s) => s.status === "skipped")) {
      // Not a flagged step the authoring loop settled: the user must supply what is missing.
      console.error(`error: ${report.message ?? "not proven stable: a step was not validated"}`);
      return 1;
    }
    return interrupt.exitCode ?? 0;
  } finally {
    interrupt.dispose();
    await driver?.close();
    await closeLaunchedBrowsers(); // as record does: no Chromium outlives the command
    store.close();
  }
}
