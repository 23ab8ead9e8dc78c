/**
 * `cairn show ID`: prints the URL of the run viewer for a session, playback or validation — a
 * page `cairn serve` serves at `/view/:id` (the timeline, screenshots before and after with the
 * point and box, the snapshot text, memory, the tool call and the replay report).
 *
 * @module
 */
import { type CommandSpec, num, type ParsedArgs, str } from "./args.ts";
import { DB_FLAGS, openStore, resolveStream } from "./context.ts";
import { RUN_KINDS } from "../engine/timeline/mod.ts";

/** Command spec of `cairn show`. */
export const spec: CommandSpec = {
  name: "show",
  summary: "Print the URL of the run viewer (served by cairn serve) for a session or playback",
  positionals: ["ID"],
  flags: {
    host: {
      type: "string",
      value: "HOST",
      default: "127.0.0.1",
      description: "Where cairn serve listens",
    },
    port: {
      type: "integer",
      value: "N",
      min: 1,
      max: 65535,
      default: 8787,
      description: "cairn serve's port",
    },
    ...DB_FLAGS,
  },
  details: `ID is a session, playback or validation id as printed (7f3a9c…, pb-1248081a-c33), its
stream id, or the start of exactly one. Open the URL while cairn serve runs on the same
database; ?at=N in it opens position N, ←/→ step through the actions.
Examples:
  cairn serve &
  cairn show 7f3a
  cairn show pb-1248081a-c33 --port 9000`,
};

/** Runs `cairn show`. */
export async function run(args: ParsedArgs): Promise<number> {
  const id = args.positionals[0]!;
  const store = openStore(args, { existing: true });
  try {
    const streamId = await resolveStream(store, id, RUN_KINDS);
    const host = str(args, "host") ?? "127.0.0.1";
    const port = num(args, "port") ?? 8787;
    const h = host.includes(":") ? `[${host}]` : host;
    console.log(`http://${h}:${port}/view/${encodeURIComponent(streamId)}`);
    return 0;
  } finally {
    store.close();
  }
}
