/**
 * The background process behind `cairn blaze`: one browser (per session) that lives across
 * CLI calls. It serves Cairn's HTTP API on 127.0.0.1 at a free port with a random bearer token
 * and writes `{ pid, port, token }` to a state file next to the database; every blaze
 * subcommand calls that API. It stops on `POST /daemon/shutdown`, SIGTERM/SIGINT, or after an
 * idle timeout (sessions still open then end as `interrupted`).
 *
 * @module
 */
import { dirname } from "node:path";
import { createApp } from "../api/app.ts";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import { readState, statePath, writeState } from "./_blaze_state.ts";
import { closeLiveWork } from "./serve.ts";

/**
 * Runs the daemon until it is told to stop.
 *
 * @param db the database path
 * @param options idle timeout in milliseconds (default 30 minutes)
 */
export async function runDaemon(db: string, options: { idleMs?: number } = {}): Promise<void> {
  await Deno.mkdir(dirname(db), { recursive: true });
  const store = SqliteEventStore.open(db);
  const token = crypto.randomUUID();
  const app = createApp({ store, token });
  const idleMs = options.idleMs ?? 30 * 60_000;
  let idle: ReturnType<typeof setTimeout> | undefined;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      clearTimeout(idle);
      await closeLiveWork(store);
      await server.shutdown();
      const state = await readState(db);
      if (state?.pid === Deno.pid) await Deno.remove(statePath(db)).catch(() => {});
      store.close();
    })();
    return stopping;
  };
  const touch = () => {
    clearTimeout(idle);
    idle = setTimeout(stop, idleMs);
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    touch();
    const url = new URL(req.url);
    if (url.pathname === "/daemon/shutdown" && req.method === "POST") {
      if (req.headers.get("authorization") !== `Bearer ${token}`) {
        return new Response("Unauthorized", { status: 401 });
      }
      setTimeout(stop, 0);
      return Response.json({ stopping: true });
    }
    return app.fetch(req);
  });
  touch();
  Deno.addSignalListener("SIGTERM", stop);
  Deno.addSignalListener("SIGINT", stop);
  await writeState(db, { pid: Deno.pid, port: server.addr.port, token });
  await server.finished;
  await stop();
}
