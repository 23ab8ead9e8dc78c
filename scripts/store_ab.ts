/**
 * One-event appends through the store of an earlier commit against this checkout's, in one
 * process on the same events (`deno run -A scripts/store_ab.ts REF`, e.g. `4fbabad`): REF's
 * `events/` is copied out of git into a temp dir inside the checkout (so its imports resolve as
 * ours do), each store appends to a file of its own, and rounds of 1,000 alternate between them
 * (24 rounds, the first 4 not counted). Prints µs per event for each and the ratio.
 *
 * @module
 */
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import { syntheticSession } from "../tests/_fixtures/store_fixtures.ts";

const ref = Deno.args[0];
if (!ref || Deno.args.length !== 1) {
  console.error("usage: deno run -A scripts/store_ab.ts REF (a commit whose store to compare)");
  Deno.exit(2);
}
const ROOT = new URL("..", import.meta.url).pathname;
const git = (...args: string[]) => {
  const out = new Deno.Command("git", { args, cwd: ROOT, stdout: "piped", stderr: "piped" })
    .outputSync();
  if (!out.success) {
    console.error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr).trim()}`);
    Deno.exit(2);
  }
  return new TextDecoder().decode(out.stdout);
};

const copy = Deno.makeTempDirSync({ dir: `${ROOT}/scripts`, prefix: "_ab_" });
const dbs = Deno.makeTempDirSync({ prefix: "cairn_ab_" });
try {
  Deno.mkdirSync(`${copy}/events`);
  for (const path of git("ls-tree", "--name-only", ref, "events/").split("\n")) {
    if (path.endsWith(".ts")) {
      Deno.writeTextFileSync(`${copy}/${path}`, git("show", `${ref}:${path}`));
    }
  }
  const before = (await import(`${copy}/events/sqlite_event_store.ts`)) as {
    SqliteEventStore: typeof SqliteEventStore;
  };
  const N = 1000;
  const ROUNDS = 24;
  const WARM = 4;
  const events = syntheticSession(N);
  const sides = [
    { name: `before (${ref})`, store: before.SqliteEventStore.open(`${dbs}/before.db`), ms: 0 },
    { name: "this checkout", store: SqliteEventStore.open(`${dbs}/after.db`), ms: 0 },
  ];
  for (let round = 0; round < ROUNDS; round++) {
    for (let j = 0; j < sides.length; j++) {
      const side = sides[(round + j) % sides.length]!;
      const t = performance.now();
      for (let i = 0; i < N; i++) side.store.appendSync("s", [events[i]!]);
      if (round >= WARM) side.ms += performance.now() - t;
    }
  }
  for (const side of sides) {
    side.store.close();
    const us = (side.ms / (ROUNDS - WARM) / N) * 1000;
    console.log(`${side.name.padEnd(24)} ${us.toFixed(1).padStart(6)} µs per event`);
  }
  console.log(`this checkout ÷ before: ${(sides[1]!.ms / sides[0]!.ms).toFixed(2)}`);
} finally {
  Deno.removeSync(copy, { recursive: true });
  Deno.removeSync(dbs, { recursive: true });
}
