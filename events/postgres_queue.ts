/**
 * The run queue of a PostgreSQL store: on a log shared by several `cairn serve` nodes,
 * `POST /v1/playbacks` queues the playback here and any node started with `--worker` runs it.
 * As graphile-worker and pg-boss do: a worker claims the oldest waiting run with
 * `FOR UPDATE SKIP LOCKED` (two workers never claim one run), holds it under a lease it renews
 * by heartbeats, and marks it done. A run whose lease expired (its worker died or lost the
 * database) is taken back by any worker's {@linkcode RunQueue.reap}: queued again when it had
 * not started writing its stream, else ended — its stream gets its ending event, saying the
 * worker running it stopped — so it is never run twice at once, and never lost.
 *
 * @module
 */
import type { EventStore } from "./event_store.ts";
import { PostgresEventStore, type Sql } from "./postgres_event_store.ts";

/** What a queued run is. */
export type RunKind = "playback" | "validation";

/** A run as the queue holds it. */
export interface QueuedRun {
  id: string;
  kind: RunKind;
  /** What the worker needs to run it (the plan and the request's options), as JSON. */
  payload: unknown;
  status: "queued" | "running" | "done" | "interrupted";
  attempts: number;
  worker: string | null;
  error: string | null;
}

/** How many times a run that never started writing is queued again before it is given up. */
export const MAX_ATTEMPTS = 3;

/** Why a run was ended when its worker's lease expired. */
export const LEASE_EXPIRED =
  "interrupted: the worker running it stopped (its lease expired before the run ended)";

/** The queue of a PostgreSQL store. */
export class RunQueue {
  readonly #store: PostgresEventStore;
  #listening: Promise<unknown> | undefined;
  #wake = new Set<() => void>();

  constructor(store: PostgresEventStore) {
    this.#store = store;
  }

  get #sql(): Sql {
    return this.#store.sql;
  }

  /** Queues a run and wakes the waiting workers. */
  async enqueue(kind: RunKind, id: string, payload: unknown): Promise<void> {
    await this.#store.ready();
    await this.#sql.begin(async (tx) => {
      await tx`INSERT INTO run_queue (id, kind, payload) VALUES (${id}, ${kind},
        ${JSON.stringify(payload)})`;
      await tx`SELECT pg_notify('cairn_runs', ${id})`;
    });
  }

  /** A run's row, or undefined when the queue never held it. */
  async get(id: string): Promise<QueuedRun | undefined> {
    await this.#store.ready();
    const [row] = await this.#sql`SELECT * FROM run_queue WHERE id = ${id}`;
    return row ? toRun(row) : undefined;
  }

  /** Every run the queue holds, oldest first (for tests and operators). */
  async all(): Promise<QueuedRun[]> {
    await this.#store.ready();
    const rows = await this.#sql`SELECT * FROM run_queue ORDER BY enqueued_at, id`;
    return rows.map(toRun);
  }

  /**
   * Claims the oldest waiting run for a worker: `SKIP LOCKED`, so workers claiming at once
   * each get another run.
   *
   * @param worker the worker's name
   * @param leaseMs how long the claim holds without a heartbeat
   * @returns the run, or undefined when none waits
   */
  async claim(worker: string, leaseMs: number): Promise<QueuedRun | undefined> {
    await this.#store.ready();
    const [row] = await this.#sql`UPDATE run_queue SET status = 'running', worker = ${worker},
        attempts = attempts + 1, started_at = clock_timestamp(),
        lease_until = clock_timestamp() + ${leaseMs} * interval '1 millisecond'
      WHERE id = (SELECT id FROM run_queue WHERE status = 'queued'
        ORDER BY enqueued_at, id FOR UPDATE SKIP LOCKED LIMIT 1)
      RETURNING *`;
    return row ? toRun(row) : undefined;
  }

  /**
   * Renews a worker's lease on its run.
   *
   * @returns false when the run is no longer this worker's (its lease expired and was reaped)
   */
  async heartbeat(id: string, worker: string, leaseMs: number): Promise<boolean> {
    const r = await this.#sql`UPDATE run_queue
      SET lease_until = clock_timestamp() + ${leaseMs} * interval '1 millisecond'
      WHERE id = ${id} AND worker = ${worker} AND status = 'running'`;
    return r.count === 1;
  }

  /**
   * Marks a worker's run done (false: it was no longer this worker's). The request's `memory`
   * values (secrets, which the events never hold) leave the row with it, as when a run is ended
   * by {@linkcode reap}: a row keeps them only while its run waits or runs.
   */
  async finish(id: string, worker: string, error?: string): Promise<boolean> {
    const r = await this.#sql`UPDATE run_queue SET status = 'done',
        finished_at = clock_timestamp(), lease_until = NULL, error = ${error ?? null},
        payload = (payload::jsonb #- '{body,memory}')::text
      WHERE id = ${id} AND worker = ${worker} AND status = 'running'`;
    return r.count === 1;
  }

  /**
   * Takes back the runs whose lease expired: each is queued again when `started` says its
   * stream has no events yet (and it has not used up {@linkcode MAX_ATTEMPTS}); otherwise
   * `end` writes its ending event and the run is `interrupted`. Rows are locked
   * (`SKIP LOCKED`) while this is decided, so two workers reaping at once take each run once.
   *
   * @param started whether a run has written to its stream
   * @param end ends a run's stream, saying why
   * @returns the runs queued again and those ended
   */
  async reap(
    started: (run: QueuedRun) => Promise<boolean>,
    end: (run: QueuedRun, why: string) => Promise<void>,
  ): Promise<{ requeued: string[]; interrupted: string[] }> {
    await this.#store.ready();
    const out = { requeued: [] as string[], interrupted: [] as string[] };
    await this.#sql.begin(async (tx) => {
      const rows = await tx`SELECT * FROM run_queue WHERE status = 'running'
        AND lease_until < clock_timestamp() ORDER BY lease_until FOR UPDATE SKIP LOCKED LIMIT 20`;
      for (const row of rows) {
        const run = toRun(row);
        if (!(await started(run)) && run.attempts < MAX_ATTEMPTS) {
          await tx`UPDATE run_queue SET status = 'queued', worker = NULL, lease_until = NULL
            WHERE id = ${run.id}`;
          await tx`SELECT pg_notify('cairn_runs', ${run.id})`;
          out.requeued.push(run.id);
        } else {
          await end(run, LEASE_EXPIRED);
          await tx`UPDATE run_queue SET status = 'interrupted', lease_until = NULL,
            finished_at = clock_timestamp(), error = ${LEASE_EXPIRED}, payload = (payload::jsonb #- '{body,memory}')::text
            WHERE id = ${run.id}`;
          out.interrupted.push(run.id);
        }
      }
    });
    return out;
  }

  /** Waits until a run is queued (a notification from any node), `ms` pass or `signal` aborts. */
  async waitForWork(signal: AbortSignal, ms: number): Promise<void> {
    this.#listening ??= this.#sql.listen("cairn_runs", () => {
      for (const w of [...this.#wake]) w();
    }).catch((err) => {
      this.#listening = undefined;
      throw err;
    });
    await this.#listening;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wake.delete(done);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake.add(done);
      signal.addEventListener("abort", done, { once: true });
      if (signal.aborted) done();
    });
  }
}

function toRun(row: Record<string, unknown>): QueuedRun {
  return {
    id: row.id as string,
    kind: row.kind as RunKind,
    payload: JSON.parse(row.payload as string),
    status: row.status as QueuedRun["status"],
    attempts: Number(row.attempts),
    worker: (row.worker as string | null) ?? null,
    error: (row.error as string | null) ?? null,
  };
}

const queues = new WeakMap<EventStore, RunQueue>();

/**
 * The run queue of a store: one for a PostgreSQL store (shared by every node on its database),
 * none for SQLite (the node that takes a playback runs it).
 *
 * @param store the event store
 * @returns its queue, or undefined
 */
export function runQueueOf(store: EventStore): RunQueue | undefined {
  if (!(store instanceof PostgresEventStore)) return undefined;
  let q = queues.get(store);
  if (!q) queues.set(store, q = new RunQueue(store));
  return q;
}
