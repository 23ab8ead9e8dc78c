/**
 * What one event per transaction writes to the WAL (`deno run -A scripts/store_wal_frames.ts`):
 * appends 3,000 ~1 KB events one per transaction through the store, with checkpoints held off,
 * then reads the WAL file's frame headers and prints the frames (4 KB pages) per commit and
 * which pages they were. The bytes per event set how fast the disk can take single appends.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import { syntheticSession } from "../tests/_fixtures/store_fixtures.ts";

const N = 3000;
const dir = Deno.makeTempDirSync({ prefix: "cairn_wal_" });
try {
  const path = `${dir}/w.db`;
  const store = SqliteEventStore.open(path, { checkpointThread: false });
  store.appendSync("session-setup", syntheticSession(1));
  // start the WAL over (a checkpointer's connection would), then keep checkpoints out of the way
  const other = new DatabaseSync(path);
  other.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  other.close();
  const events = syntheticSession(N);
  for (const e of events) store.appendSync("session-w", [e]);
  const wal = Deno.readFileSync(`${path}-wal`);
  store.close();

  const pageSize = new DataView(wal.buffer).getUint32(8);
  const count = new Map<number, number>();
  let frames = 0;
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    const page = new DataView(wal.buffer, at, 4).getUint32(0);
    count.set(page, (count.get(page) ?? 0) + 1);
    frames++;
  }
  const perCommit = frames / N;
  console.log(`${N} single-event appends wrote ${frames} WAL frames of ${pageSize} bytes:`);
  console.log(
    `  ${perCommit.toFixed(2)} frames (${
      (perCommit * (pageSize + 24) / 1024).toFixed(1)
    } KB) per event`,
  );
  console.log(`  page 1 (the header: database size) ${count.get(1) ?? 0} times`);
  const top = [...count].filter(([p]) => p !== 1).sort((a, b) => b[1] - a[1]).slice(0, 3);
  console.log(`  most rewritten other pages: ${top.map(([p, n]) => `${p} ×${n}`).join(", ")}`);
} finally {
  Deno.removeSync(dir, { recursive: true });
}
