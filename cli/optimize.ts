/**
 * `cairn optimize CAPTURE_FILE|SESSION_ID`: projects a capture into a trail and prints its
 * YAML. A file is ingested first (any format `cairn ingest` reads) under a session id derived
 * from its content, so optimizing the same file again reuses the stored session.
 *
 * @module
 */
import { type CommandSpec, type ParsedArgs, str } from "./args.ts";
import { bool, list, UsageError } from "./args.ts";
import { DB_FLAGS, matchStream, openStore } from "./context.ts";
import { InputError } from "./errors.ts";
import { prepareOutFile } from "./_out_file.ts";
import { prepareFile, storePrepared, withSessionId } from "./ingest.ts";
import { CAPTURE_FILE_FLAGS, type CaptureFileRules, captureFileRules } from "./_capture_files.ts";
import { trailCachePath, writeTrailCache } from "./reproject.ts";
import { type EventStore, NotFoundError, streamInfo } from "../events/mod.ts";
import { HEURISTICS_VERSION, HEURISTICS_VERSIONS } from "../engine/trail/mod.ts";
import type { ExplainEntry } from "../engine/optimizer/mod.ts";
import { projectSessionTrail } from "../engine/optimizer/mod.ts";
import type { SelectorMode } from "../engine/trail/mod.ts";
import type { Screen } from "../engine/screens/mod.ts";

/** The command's flags and help. */
export const spec: CommandSpec = {
  name: "optimize",
  summary: "Project a capture into a trail with durable selectors, slots and expressions",
  positionals: ["CAPTURE_FILE|SESSION_ID"],
  flags: {
    ...DB_FLAGS,
    ...CAPTURE_FILE_FLAGS,
    mode: {
      type: "string",
      choices: ["strict", "flexible", "adaptive"],
      default: "adaptive",
      description: "Selector mode",
    },
    heuristics: {
      type: "string",
      choices: HEURISTICS_VERSIONS,
      default: HEURISTICS_VERSION,
      description: "Optimizer heuristics version",
    },
    out: { type: "string", alias: "o", value: "FILE", description: "Write the trail here" },
    "step-mode": {
      type: "list",
      value: "N=MODE",
      description: "Selector mode of step N (1-based), overriding --mode; repeatable",
    },
    explain: {
      type: "boolean",
      description: "Per action: the chosen selector, slot or pattern and the rejected candidates",
    },
  },
  details: `
Examples:
  deno task optimize examples/inventory.capture.json
  deno task optimize examples/inventory.capture.json --mode strict --explain
  deno task cairn optimize 3f1c…                       # a stored session (the start of one id will do)
`,
};

/**
 * Ingests a capture file once: its session id is derived from the file's events and blobs,
 * not from the path it was named by (`SessionStarted.source.file` is left out), so
 * `./f.json`, `f.json` and `/abs/f.json` are one session. The file is read and checked once:
 * the events hashed for the id are the ones stored, under that id.
 *
 * @param store the event store
 * @param path the capture file
 * @param screens when given, receives the screens parsed while checking the file (by blob
 *   hash), so the projection that follows parses none again
 * @param files what the capture's file references may read (`--allow-outside`,
 *   `--max-file-size`; default: inside its folder, 64 MiB each)
 * @returns the session id
 * @throws {InputError} for a missing or malformed file
 */
export async function ingestOnce(
  store: EventStore,
  path: string,
  screens?: Map<string, Screen>,
  files: CaptureFileRules = {},
): Promise<string> {
  const probe = await prepareFile(path, {
    sessionId: "probe",
    keepScreens: screens !== undefined,
    files,
  });
  if (screens && probe.screens) { for (const [h, s] of probe.screens) screens.set(h, s); }
  const content = probe.sessions.map((s) =>
    s.events.map((e) => {
      if (e.type !== "SessionStarted" || e.data.source === undefined) return [e.type, e.data];
      const { file: _, ...source } = e.data.source;
      return [e.type, { ...e.data, source }];
    })
  );
  const hasher = new TextEncoder().encode(JSON.stringify(content));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", hasher));
  const id = "capture-" +
    Array.from(digest.subarray(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
  if (probe.sessions.length > 1) {
    console.error(
      `note: ${path} holds ${probe.sessions.length} sessions; optimizing the first (${id}; the ` +
        `others are ${id}-2 … ${id}-${probe.sessions.length})`,
    );
  }
  if (await streamInfo(store, `session-${id}`)) return id;
  await storePrepared(store, withSessionId(probe, id));
  return id;
}
/**
 * Parses `--step-mode N=MODE` values into 0-based step overrides.
 *
 * @param values the flag's values
 * @returns step index → mode
 * @throws {UsageError} on a malformed value
 */
export function parseStepModes(values: readonly string[]): Record<number, SelectorMode> {
  const out: Record<number, SelectorMode> = {};
  for (const v of values) {
    const m = /^(\d+)=(strict|flexible|adaptive)$/.exec(v);
    if (!m || Number(m[1]) < 1) {
      throw new UsageError(
        `optimize: --step-mode must be N=strict|flexible|adaptive with N ≥ 1, got ${
          JSON.stringify(v)
        }`,
      );
    }
    out[Number(m[1]) - 1] = m[2] as SelectorMode;
  }
  return out;
}

/**
 * Checks that every step override names a step of the trail.
 *
 * @param stepModes the output of {@linkcode parseStepModes}
 * @param steps how many steps the trail has
 * @throws {UsageError} naming the `--step-mode` value and the range of N
 */
export function checkStepModes(stepModes: Record<number, SelectorMode>, steps: number): void {
  for (const [index, mode] of Object.entries(stepModes)) {
    if (Number(index) >= steps) {
      throw new UsageError(
        `optimize: --step-mode ${Number(index) + 1}=${mode}: N must be from 1 to ${steps}, ` +
          "the trail's steps",
      );
    }
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/**
 * Renders the explanation as YAML comment lines.
 *
 * @param entries the optimizer's explanation
 * @param warnings its warnings
 * @param options `heuristics`: the version that ran (`v0` says it runs no pass)
 * @returns the text
 */
export function renderExplain(
  entries: readonly ExplainEntry[],
  warnings: readonly string[],
  options: { heuristics?: string } = {},
): string {
  const out: string[] = ["# --explain"];
  if (options.heuristics === "v0") {
    out.push("# heuristics v0, the raw lens: no pass ran; each action as the run recorded it");
  }
  let step = -1;
  for (const e of entries) {
    if (e.step !== step) {
      step = e.step;
      out.push(`# step ${e.step}: ${e.stepText}`);
    }
    out.push(`#   action ${e.action} (${e.kind}) → ${e.outcome}`);
    for (const l of e.lines) out.push(`#       ${l}`);
  }
  for (const w of warnings) out.push(`# warning: ${w}`);
  return out.join("\n") + "\n";
}

/**
 * Runs the command.
 *
 * @param args parsed arguments
 * @returns the exit code
 */
export async function run(args: ParsedArgs): Promise<number> {
  const target = args.positionals[0]!;
  const mode = (str(args, "mode") ?? "adaptive") as SelectorMode;
  const heuristics = str(args, "heuristics") ?? HEURISTICS_VERSION;
  const stepModes = parseStepModes(list(args, "step-mode"));
  const out = str(args, "out");
  if (out) await prepareOutFile(out, "--out", [target]);
  const file = await isFile(target);
  // a stored session is only read: a read-only log still optimizes
  const store = openStore(args, file ? {} : { readOnly: true });
  try {
    let sessionId: string;
    // a file's screens, parsed once while checking it, go straight to the projection; a store
    // that keeps them parsed (SQLite) gives them back, cheaper than holding them meanwhile
    const screens = "getDerivedSync" in store ? undefined : new Map<string, Screen>();
    if (file) sessionId = await ingestOnce(store, target, screens, captureFileRules(args));
    else if (/\.(json|jsonl|ya?ml)$/i.test(target) || target.includes("/")) {
      const folder = await Deno.stat(target).then((s) => s.isDirectory, () => false);
      throw new InputError(
        `${target}: ${folder ? "is a folder; name a capture file" : "no such file"}`,
      );
    } else {
      // a session id, a stream id or the start of exactly one (as history and replay take)
      sessionId = ((await matchStream(store, target)) ?? target).replace(/^session-/, "");
    }
    let projection;
    try {
      projection = await projectSessionTrail(store, sessionId, {
        mode,
        heuristics,
        stepModes,
        ...(screens ? { screens } : {}),
      });
    } catch (err) {
      if (err instanceof NotFoundError) {
        throw new InputError(`${target}: neither a file nor a stored session`);
      }
      throw err;
    }
    checkStepModes(stepModes, projection.trail.trail.length);
    await writeTrailCache(trailCachePath(args, sessionId, mode), projection.yaml);
    if (out) {
      await Deno.writeTextFile(out, projection.yaml);
      console.error(`wrote ${out} (session ${sessionId}, ${mode}, heuristics ${heuristics})`);
    } else {
      console.log(projection.yaml.trimEnd());
    }
    if (bool(args, "explain")) {
      console.log(
        (out ? "" : "\n") +
          renderExplain(projection.explain, projection.warnings, { heuristics }).trimEnd(),
      );
    } else {
      for (const w of projection.warnings) console.error(`warning: ${w}`);
    }
    return 0;
  } finally {
    store.close();
  }
}
