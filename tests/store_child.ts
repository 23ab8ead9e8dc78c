/**
 * A child process for the store tests (not a test itself): opens a store file and appends.
 *
 * `deno run -A tests/store_child.ts append DB STREAM BATCHES` prints `ready`, waits for a line on
 * stdin, then appends BATCHES single-event transactions and prints `done`.
 * `deno run -A tests/store_child.ts crash DB BATCH` prints `ready` and appends batches of BATCH
 * ~1 KB events forever, printing `begin N` and `end N` around each, until it is killed.
 * `deno run -A tests/store_child.ts leave-open DB N` appends N ~1 KB events in one batch (past
 * the background checkpointer's threshold), prints `appended` and ends without `close()`.
 *
 * @module
 */
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import type { NewEvent } from "../events/schemas.ts";
import { syntheticSession } from "./store_fixtures.ts";

const [mode, db, arg1, arg2] = Deno.args;
const store = SqliteEventStore.open(db!);
const enc = new TextEncoder();
const say = (line: string) => Deno.stdout.writeSync(enc.encode(line + "\n"));
const filler = "x".repeat(1000);

if (mode === "append") {
  const stream = arg1!;
  const batches = Number(arg2);
  say("ready");
  await Deno.stdin.readable.getReader().read();
  for (let i = 0; i < batches; i++) {
    store.appendSync(stream, [{ type: "StepStarted", data: { index: i, text: `${stream} ${i}` } }]);
  }
  say("done");
} else if (mode === "crash") {
  const size = Number(arg1);
  say("ready");
  for (let n = 0;; n++) {
    const batch: NewEvent[] = Array.from({ length: size }, (_, i) => ({
      type: "StepStarted",
      data: { index: i, text: filler },
    }));
    say(`begin ${n}`);
    store.appendSync("session-crash", batch);
    say(`end ${n}`);
  }
} else if (mode === "leave-open") {
  store.appendSync("session-open", syntheticSession(Number(arg1)));
  say("appended");
}
if (mode !== "leave-open") store.close();
