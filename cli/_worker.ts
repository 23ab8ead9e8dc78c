/**
 * `cairn serve --worker`: runs the playbacks and validations queued on a PostgreSQL log (`events/postgres_queue.ts`)
 * in this node's own browser, one at a time: claim (`SKIP LOCKED`), run, heartbeat the lease
 * while it runs, mark it done; between runs, take back runs whose worker's lease expired.
 *
 * @module
 */
import { hostname } from "node:os";
import { type EventStore, streamInfo } from "../events/mod.ts";
import { type QueuedRun, RunQueue, runQueueOf } from "../events/mod.ts";
import { playbackRegistry, type StartPlaybackBody } from "../api/mod.ts";
import { type StartValidationBody, validationRegistry } from "../api/mod.ts";
import { endValidation } from "./_orphaned_runs.ts";
import type { PlaybackPlan } from "../engine/playback/mod.ts";
import type { z } from "zod";
import { InputError } from "./errors.ts";

/** Options of {@linkcode runWorker}. */
export interface WorkerOptions {
  signal: AbortSignal;
  /** How long a claim holds without a heartbeat (heartbeats come every third of it). */
  leaseMs: number;
  /** Prints a line (stderr). */
  say: (line: string) => void;
  /** The worker's name in the queue (default host:pid:random). */
  name?: string;
}

/** How long an idle worker waits for a notification before it looks again (and reaps). */
const IDLE_MS = 1000;

/**
 * Runs queued playbacks until `signal` aborts.
 *
 * @param store a PostgreSQL store
 * @throws {InputError} when the store has no queue (SQLite)
 */
export async function runWorker(store: EventStore, options: WorkerOptions): Promise<void> {
  const queue = runQueueOf(store);
  if (!queue) {
    throw new InputError(
      "serve: --worker runs queued playbacks of a PostgreSQL log: give --db postgres://… (or CAIRN_DB)",
    );
  }
  const { signal, leaseMs, say } = options;
  const name = options.name ?? `${hostname()}:${Deno.pid}:${crypto.randomUUID().slice(0, 6)}`;
  while (!signal.aborted) {
    try {
      const reaped = await queue.reap(
        async (run) => (await streamInfo(store, streamOf(run))) !== undefined,
        (run, why) => endRun(store, run, why),
      );
      if (reaped.requeued.length > 0) {
        say(`serve --worker: queued again (their worker stopped): ${reaped.requeued.join(", ")}`);
      }
      if (reaped.interrupted.length > 0) {
        say(
          `serve --worker: ended interrupted (their worker stopped): ${
            reaped.interrupted.join(", ")
          }`,
        );
      }
      if (signal.aborted) break;
      const run = await queue.claim(name, leaseMs);
      if (!run) {
        await queue.waitForWork(signal, IDLE_MS);
        continue;
      }
      await runOne(store, queue, run, name, leaseMs, say);
    } catch (err) {
      if (signal.aborted) break;
      say(`serve --worker: ${err instanceof Error ? err.message : String(err)}`);
      await new Promise((r) => setTimeout(r, IDLE_MS));
    }
  }
}

function streamOf(run: QueuedRun): string {
  return `${run.kind}-${run.id}`;
}

async function runOne(
  store: EventStore,
  queue: RunQueue,
  run: QueuedRun,
  name: string,
  leaseMs: number,
  say: (line: string) => void,
): Promise<void> {
  const registry = run.kind === "playback" ? playbackRegistry(store) : validationRegistry(store);
  let lost = false;
  const heartbeat = setInterval(() => {
    queue.heartbeat(run.id, name, leaseMs).then((ok) => {
      if (ok || lost) return;
      // another worker took it back: stop at once, so it never runs twice at the same time
      lost = true;
      say(`serve --worker: lost the lease of ${run.id}; stopping it`);
      void registry.stop(run.id);
    }, () => {});
  }, Math.max(100, Math.floor(leaseMs / 3)));
  try {
    let id: string;
    if (run.kind === "playback") {
      const { plan, body } = run.payload as {
        plan: PlaybackPlan;
        body: z.infer<typeof StartPlaybackBody>;
      };
      id = await playbackRegistry(store).start(plan, body, run.id);
    } else {
      const { sessionId, body } = run.payload as {
        sessionId: string;
        body: z.infer<typeof StartValidationBody>;
      };
      id = await validationRegistry(store).start(sessionId, body, run.id);
    }
    await registry.finished(id);
    await queue.finish(run.id, name);
  } catch (err) {
    // it could not start (no browser, no such tab): done, with why
    const message = err instanceof Error ? err.message : String(err);
    say(`serve --worker: ${run.kind} ${run.id} could not run: ${message}`);
    await queue.finish(run.id, name, message);
  } finally {
    clearInterval(heartbeat);
  }
}

/** Ends a run's stream left without its ending event (its worker stopped). */
async function endRun(store: EventStore, run: QueuedRun, why: string): Promise<void> {
  const s = await streamInfo(store, streamOf(run));
  if (!s) return;
  if (run.kind === "validation") {
    await endValidation(store, s, why);
    return;
  }
  let last;
  for await (const e of store.readStream(s.streamId, { from: s.version })) last = e;
  if (!last || last.type === "PlaybackCompleted") return;
  const durationMs = Math.max(0, Date.parse(last.meta.recordedAt) - Date.parse(s.createdAt)) || 0;
  await store.append(s.streamId, [{
    type: "PlaybackCompleted",
    data: { status: "failed", durationMs, error: why },
  }], { expectedVersion: s.version });
}
