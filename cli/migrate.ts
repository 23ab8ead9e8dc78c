/**
 * `cairn migrate --from LOG --to LOG`: copies an event log between a SQLite file and a
 * PostgreSQL database, either way, and verifies the copy by counts and sha256 digests.
 *
 * @module
 */
import type { CommandSpec, ParsedArgs } from "./args.ts";
import { str } from "./args.ts";
import { InputError } from "./errors.ts";
import { copyLog, CopyRefused } from "../events/mod.ts";

/** Command spec of `cairn migrate`. */
export const spec: CommandSpec = {
  name: "migrate",
  summary: "Copy an event log between a SQLite file and PostgreSQL, verified by counts and hashes",
  flags: {
    from: {
      type: "string",
      value: "LOG",
      description: "The log to copy: a SQLite file (.cairn/cairn.db) or a postgres:// URL",
    },
    to: {
      type: "string",
      value: "LOG",
      description: "Where to copy it: an empty SQLite file or PostgreSQL database",
    },
  },
};

/** Runs `cairn migrate`. */
export async function run(args: ParsedArgs): Promise<number> {
  const from = str(args, "from");
  const to = str(args, "to");
  if (!from) throw new InputError("migrate: --from LOG is required (a file or postgres:// URL)");
  if (!to) throw new InputError("migrate: --to LOG is required (a file or postgres:// URL)");
  let report;
  try {
    report = await copyLog(from, to);
  } catch (err) {
    if (err instanceof CopyRefused) throw new InputError(err.message);
    throw err;
  }
  const { source: s, target: t, mismatches } = report;
  if (mismatches.length > 0) {
    console.error(
      `cairn migrate: the copy differs from its source in ${mismatches.join(", ")} (source ${
        JSON.stringify(s)
      }, copy ${JSON.stringify(t)})`,
    );
    return 1;
  }
  console.log(
    `migrate: copied ${t.events} events (${t.streams} streams, head ${t.head}), ` +
      `${t.idempotencyKeys} idempotency keys and ${t.blobs} blobs (${t.derived} parsed screens ` +
      `kept beside them); verified: counts match, ` +
      `events sha256 ${t.eventsSha256.slice(0, 16)}…, blobs sha256 ${
        t.blobsSha256.slice(0, 16)
      }… on both sides`,
  );
  return 0;
}
