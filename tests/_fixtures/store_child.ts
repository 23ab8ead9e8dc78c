/**
 * A child process for the store tests (not a test itself): opens a store file and appends.
 *
 * `deno run -A tests/_fixtures/store_child.ts append DB STREAM BATCHES` prints `ready`, waits for a line on
 * stdin, then makes BATCHES appends and prints `done`: mostly one event a transaction, every
 * fifth a batch of three, every seventh an `appendMany` of one event to STREAM and one to
 * `STREAM-side`. Each event's text names its batch (`STREAM b<i>`), so a test can check that a
 * batch's events sit at consecutive positions.
 * `deno run -A tests/_fixtures/store_child.ts crash DB BATCH` prints `ready` and appends batches of BATCH
 * ~1 KB events forever, printing `begin N` and `end N` around each, until it is killed.
 * `deno run -A tests/_fixtures/store_child.ts leave-open DB N` appends N ~1 KB events in one batch (past
 * the background checkpointer's threshold), prints `appended` and ends without `close()`.
 *
 * @module
 */
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import type { NewEvent } from "../../events/schemas.ts";
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
  const side = `${stream}-side`;
  let index = 0;
  let sideIndex = 0;
  const step = (i: number, text: string): NewEvent => ({
    type: "StepStarted",
    data: { index: i, text },
  });
  for (let i = 0; i < batches; i++) {
    const tag = `${stream} b${i}`;
    if (i % 7 === 6) {
      store.appendManySync([
        { streamId: stream, events: [step(index++, tag)] },
        { streamId: side, events: [step(sideIndex++, tag)] },
      ]);
    } else if (i % 5 === 4) {
      store.appendSync(stream, [step(index++, tag), step(index++, tag), step(index++, tag)]);
    } else {
      store.appendSync(stream, [step(index++, tag)]);
    }
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
