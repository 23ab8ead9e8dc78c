/**
 * Cairn's command-line entry: `cairn <command> [flags]` (`deno task cairn …`).
 *
 * Every command lives in `cli/<command>.ts` and is loaded only when it runs. Bad input of any
 * kind ends in one line on stderr naming the file or field, and exit code 2.
 *
 * @module
 */
import { helpText, parseArgs, UsageError } from "./cli/mod.ts";
import type { CommandModule } from "./cli/mod.ts";
import { describeError, exitCodeOf } from "./cli/mod.ts";
import { didYouMean } from "./cli/mod.ts";

/** Cairn's version (`cairn --version`). */
export const VERSION = "0.9.0";

/** Commands by name: a one-line summary and the module that implements it. */
export const COMMANDS: Record<string, { summary: string; load: () => Promise<CommandModule> }> = {
  ingest: { summary: "Import capture files as sessions", load: () => import("./cli/ingest.ts") },
  optimize: {
    summary: "Project a capture into a trail (selectors, slots, expressions)",
    load: () => import("./cli/optimize.ts"),
  },
  reproject: {
    summary: "Re-project stored captures under a heuristics version; print changed trails",
    load: () => import("./cli/reproject.ts"),
  },
  snapshot: {
    summary: "Text snapshot with stable refs of a hierarchy; --diff, --marks",
    load: () => import("./cli/snapshot.ts"),
  },
  export: { summary: "Write a session back as a file", load: () => import("./cli/export.ts") },
  history: {
    summary: "A session's timeline, or its state at a position",
    load: () => import("./cli/history.ts"),
  },
  show: {
    summary: "Print the URL of the run viewer for a session, playback or validation",
    load: () => import("./cli/show.ts"),
  },
  serve: {
    summary: "Serve the HTTP API (events, SSE, sessions, blobs)",
    load: () => import("./cli/serve.ts"),
  },
  blaze: {
    summary: "Drive a browser with recorded agent tools",
    load: () => import("./cli/blaze.ts"),
  },
  record: {
    summary: "Record a person using the browser (recording_v1, mode human)",
    load: () => import("./cli/record.ts"),
  },
  mcp: {
    summary: "Serve the agent tools over MCP (stdio) for an MCP client",
    load: () => import("./cli/mcp.ts"),
  },
  appium: {
    summary: "Install, start or check Appium (Android)",
    load: () => import("./cli/appium.ts"),
  },
  replay: {
    summary: "Replay a trail or recording with self-healing selectors",
    load: () => import("./cli/replay.ts"),
  },
  migrate: {
    summary:
      "Copy an event log between a SQLite file and PostgreSQL, verified by counts and hashes",
    load: () => import("./cli/migrate.ts"),
  },
  validate: {
    summary: "Replay a trail, compare with the capture, refine until stable (policies)",
    load: () => import("./cli/validate.ts"),
  },
};

/**
 * Runs the CLI.
 *
 * @param argv the arguments after the program name
 * @returns the exit code
 */
export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    console.log(overview());
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-V" || name === "version") {
    console.log(`cairn ${VERSION} (deno ${Deno.version.deno})`);
    return 0;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    const guess = didYouMean(name.replace(/^-+/, ""), Object.keys(COMMANDS));
    console.error(
      `cairn: unknown command ${JSON.stringify(name)}${
        guess ? ` (did you mean ${guess}?)` : ""
      } (see cairn --help)`,
    );
    return 2;
  }
  const mod = await entry.load();
  try {
    const args = parseArgs(mod.spec, rest);
    if (args.help) {
      console.log(helpText(mod.spec));
      return 0;
    }
    return await mod.run(args);
  } catch (err) {
    // `cairn history S | head`: the reader has what it wanted; stop quietly, as git does
    if (err instanceof Deno.errors.BrokenPipe) return 0;
    const message = describeError(err);
    // a message that already names the command ("history: --at …", "blaze step: …") once
    const named = message.startsWith(`${name}:`) || message.startsWith(`${name} `);
    console.error(named ? `cairn ${message}` : `cairn ${name}: ${message}`);
    return exitCodeOf(err);
  }
}

function overview(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const lines = Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(width)}  ${c.summary}`);
  return [
    "cairn — turn UI-automation runs into test recordings that keep working",
    "",
    "Usage: cairn <command> [flags]     (cairn <command> --help for its flags; cairn --version)",
    "",
    "Commands:",
    ...lines,
    "",
    "Database: .cairn/cairn.db under the current directory; --db PATH (or a postgres:// URL) or CAIRN_DB override.",
  ].join("\n");
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}

export { UsageError };
