/**
 * The store's background checkpointer: a worker thread with its own connection that copies
 * WAL frames back into the database file (`wal_checkpoint(PASSIVE)`) while the owning thread
 * goes on appending. Checkpoints are the only fsyncs with WAL + `synchronous=NORMAL`; run on
 * the appending thread, one of them stalls an append for 100–300 ms. After each pass the worker
 * also syncs the database file, which SQLite does only after a checkpoint that caught up.
 *
 * The worker blocks in `Atomics.wait` on a shared signal word, so an idle store costs no CPU
 * and the worker never needs its event loop. {@linkcode Checkpointer} is the owning side.
 *
 * @module
 */
import { isMainThread, Worker, workerData } from "node:worker_threads";
import { DatabaseSync } from "node:sqlite";

/** Signal words: [0] work requested, [1] close requested, [2] checkpoints run, [3] exited. */
const WORK = 0;
const CLOSE = 1;
const RUNS = 2;
const EXITED = 3;

/**
 * The owning side: starts the worker on the first request (short-lived stores never pay for
 * a thread), wakes it with one atomic store, and stops it on {@linkcode close}. The worker is
 * unref'd, so a store left open does not keep the process alive.
 */
export class Checkpointer {
  readonly #path: string;
  readonly #sig = new Int32Array(new SharedArrayBuffer(16));
  #worker: Worker | undefined;
  #failed = false;

  /** @param path the database file (not `:memory:`) */
  constructor(path: string) {
    this.#path = path;
  }

  /**
   * Asks for a checkpoint; returns at once. Requests made while one runs fold into one more.
   *
   * @returns false when no worker could be started (the caller checkpoints itself)
   */
  request(): boolean {
    if (this.#failed) return false;
    if (this.#worker === undefined) {
      try {
        this.#worker = new Worker(new URL(import.meta.url), {
          workerData: { cairnCheckpointer: true, path: this.#path, sig: this.#sig },
        });
        this.#worker.unref();
        this.#worker.on("error", () => (this.#failed = true));
      } catch {
        this.#failed = true;
        return false;
      }
    }
    Atomics.store(this.#sig, WORK, 1);
    Atomics.notify(this.#sig, WORK);
    return true;
  }

  /** Checkpoints the worker has run so far (for tests and benches). */
  get runs(): number {
    return Atomics.load(this.#sig, RUNS);
  }

  /** Whether a worker was started. */
  get started(): boolean {
    return this.#worker !== undefined;
  }

  /**
   * Stops the worker: it finishes a checkpoint in progress, closes its connection and exits.
   *
   * @param waitMs how long to wait for it (it is never killed mid-checkpoint)
   */
  close(waitMs = 2_000): void {
    if (this.#worker === undefined) return;
    Atomics.store(this.#sig, CLOSE, 1);
    Atomics.notify(this.#sig, WORK);
    // wait (bounded) for the worker to close its connection, so the file is free when we return
    Atomics.wait(this.#sig, EXITED, 0, waitMs);
    this.#worker = undefined;
  }
}

function runWorker(path: string, sig: Int32Array): void {
  let db: DatabaseSync | undefined;
  let dbFile: Deno.FsFile | undefined;
  try {
    db = new DatabaseSync(path);
    const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
    while (Atomics.load(sig, CLOSE) === 0) {
      Atomics.wait(sig, WORK, 0);
      if (Atomics.load(sig, CLOSE) !== 0) break;
      Atomics.store(sig, WORK, 0);
      try {
        checkpoint.get();
        Atomics.add(sig, RUNS, 1);
        // A passive pass that did not catch up with the writer copies pages into the database
        // file without syncing it; only a complete checkpoint does, which under a burst is the
        // appending connection's backstop, so the append that runs it would wait for every page
        // copied since the last one. Syncing here keeps that wait to the last pass's pages.
        dbFile ??= Deno.openSync(path, { read: true });
        dbFile.syncDataSync();
      } catch {
        // SQLITE_BUSY (another checkpoint runs) or a failed sync: the next request tries again
      }
    }
  } finally {
    db?.close();
    dbFile?.close();
    Atomics.store(sig, EXITED, 1);
    Atomics.notify(sig, EXITED);
  }
}

if (!isMainThread && workerData?.cairnCheckpointer === true) {
  runWorker(workerData.path as string, workerData.sig as Int32Array);
}
