/**
 * `cairn reproject --heuristics vN [--mode M] [--all | SESSION_ID…]`: re-projects stored
 * captures under a heuristics version and prints which trails changed, with a diff.
 *
 * Trails are projections, never truth: the last trail printed for a session and mode is kept
 * only as a disposable cache (`trails/` next to the database) to diff against. `--from vM`
 * diffs two heuristics versions directly instead.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { bool, type CommandSpec, type ParsedArgs, str } from "./args.ts";
import { DB_FLAGS, filesDir, openStore, resolveStream } from "./context.ts";
import { UsageError } from "./args.ts";
import { HEURISTICS_VERSION, HEURISTICS_VERSIONS } from "../engine/trail/mod.ts";
import { RecentMap, type ScreenTable } from "../engine/screens/mod.ts";
import { projectSessionTrail, SCREENS_HELD } from "../engine/optimizer/mod.ts";
import type { SelectorMode } from "../engine/trail/mod.ts";
import type { Screen } from "../engine/screens/mod.ts";

/** The command's flags and help. */
export const spec: CommandSpec = {
  name: "reproject",
  summary: "Re-project stored captures under a heuristics version; print changed trails",
  positionals: ["[SESSION_ID...]"],
  flags: {
    ...DB_FLAGS,
    heuristics: {
      type: "string",
      choices: HEURISTICS_VERSIONS,
      default: HEURISTICS_VERSION,
      description: "Heuristics version to project with",
    },
    from: {
      type: "string",
      choices: HEURISTICS_VERSIONS,
      description: "Diff against this heuristics version instead of the last trail printed",
    },
    mode: {
      type: "string",
      choices: ["strict", "flexible", "adaptive"],
      default: "adaptive",
      description: "Selector mode",
    },
    all: { type: "boolean", description: "Every stored session" },
  },
  details: `
Examples:
  deno task cairn reproject --heuristics v1 --all
  deno task cairn reproject --heuristics v1 --mode strict capture-7d1358bd4a543982
`,
};

/**
 * Where the last trail printed for a session and mode is cached.
 *
 * @param args parsed arguments (for the database path)
 * @param sessionId the session
 * @param mode the selector mode
 * @returns the cache file path
 */
export function trailCachePath(args: ParsedArgs, sessionId: string, mode: string): string {
  return join(filesDir(args), "trails", `${sessionId}.${mode}.yaml`);
}

/**
 * Writes the trail cache (best effort: a cache that cannot be written is skipped).
 *
 * @param path the cache file
 * @param yaml the trail
 */
export async function writeTrailCache(path: string, yaml: string): Promise<void> {
  try {
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeTextFile(path, yaml);
  } catch {
    // A read-only directory only costs the next diff.
  }
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

/** A trail's YAML without its `config.heuristics` line: two versions that wrote the same trail. */
function withoutVersion(yaml: string): string {
  return yaml.replace(/^ {2}heuristics: \S+\n/m, "");
}

/**
 * A line diff (longest common subsequence) in unified style: ` ` kept, `-` old, `+` new,
 * with up to `context` kept lines around each change.
 *
 * @param oldText the old text
 * @param newText the new text
 * @param context kept lines shown around a change
 * @returns the diff lines (empty when equal)
 */
export function lineDiff(oldText: string, newText: string, context = 2): string[] {
  const a = oldText.split("\n");
  const b = newText.split("\n");
  const n = a.length, m = b.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j]
        ? lcs[i + 1]![j + 1]! + 1
        : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const ops: [string, string][] = [];
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push([" ", a[i++]!]), j++;
    else if (j < m && (i >= n || lcs[i]![j + 1]! > lcs[i + 1]![j]!)) ops.push(["+", b[j++]!]);
    else ops.push(["-", a[i++]!]);
  }
  if (!ops.some(([k]) => k !== " ")) return [];
  const out: string[] = [];
  let lastShown = -1;
  ops.forEach(([k, line], idx) => {
    const near = ops.slice(Math.max(0, idx - context), idx + context + 1).some(([x]) => x !== " ");
    if (!near) return;
    if (lastShown >= 0 && idx > lastShown + 1) out.push("…");
    out.push(`${k}${line}`);
    lastShown = idx;
  });
  return out;
}

/**
 * Runs the command.
 *
 * @param args parsed arguments
 * @returns 0, or 1 when a session could not be projected
 */
export async function run(args: ParsedArgs): Promise<number> {
  const heuristics = str(args, "heuristics") ?? HEURISTICS_VERSION;
  const from = str(args, "from");
  const mode = (str(args, "mode") ?? "adaptive") as SelectorMode;
  let ids = args.positionals.map((p) => p.replace(/^session-/, ""));
  if (!bool(args, "all") && ids.length === 0) {
    throw new UsageError("reproject: name sessions or pass --all (see cairn reproject --help)");
  }
  const store = openStore(args, { existing: true });
  try {
    if (bool(args, "all")) {
      ids = (await store.streams("session-")).map((s) => s.streamId.slice("session-".length));
    } else {
      // a short id names the one session it starts; one that names none is bad input
      ids = await Promise.all(
        ids.map(async (id) => (await resolveStream(store, id)).replace(/^session-/, "")),
      );
    }
    // the screens and tables used last, shared by the projections (two per session with --from):
    // reprojecting a whole log holds as much as one projection does
    const screens = new RecentMap<string, Screen>(SCREENS_HELD);
    const tables = new RecentMap<string, ScreenTable>(SCREENS_HELD);
    let changed = 0, failed = 0;
    for (const id of ids) {
      try {
        const now = await projectSessionTrail(store, id, { mode, heuristics, screens, tables });
        const cache = trailCachePath(args, id, mode);
        const before = from
          ? (await projectSessionTrail(store, id, { mode, heuristics: from, screens, tables })).yaml
          : await readOptional(cache);
        if (before === undefined) {
          console.log(`new        ${id} (${mode}, ${heuristics}): no earlier trail to compare`);
        } else {
          const diff = lineDiff(before, now.yaml);
          if (diff.length === 0) console.log(`unchanged  ${id} (${mode}, ${heuristics})`);
          else if (lineDiff(withoutVersion(before), withoutVersion(now.yaml)).length === 0) {
            console.log(
              `unchanged  ${id} (${mode}, ${from ?? "last printed"} → ${heuristics}: ` +
                "only the version it names)",
            );
          } else {
            changed++;
            console.log(`changed    ${id} (${mode}, ${from ?? "last printed"} → ${heuristics})`);
            for (const l of diff) console.log(`  ${l}`);
          }
        }
        if (!from) await writeTrailCache(cache, now.yaml);
      } catch (err) {
        failed++;
        console.log(`failed     ${id}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    console.log(`${ids.length} sessions: ${changed} changed, ${failed} failed`);
    return failed > 0 ? 1 : 0;
  } finally {
    store.close();
  }
}
