/**
 * The background process behind `cairn blaze`: one browser (per session) that lives across
 * CLI calls. It serves Cairn's HTTP API on 127.0.0.1 at a free port with a random bearer token
 * and writes `{ db, pid, port, token }` to the database's state file (`<db>.blaze.json`), and
 * after each start or end the live sessions, their browsers' pids and profile folders (so a CLI
 * call that finds the daemon killed can end them, kill the browsers and remove their profiles); every blaze subcommand calls that API.
 * `GET /daemon` answers which database it serves. It stops on `POST /daemon/shutdown`, SIGTERM/SIGINT, or after an
 * idle timeout (sessions still open then end as `interrupted`).
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { createApp } from "../api/mod.ts";
import { blazeRegistry } from "../api/mod.ts";
import { launchDefaultChrome } from "../api/mod.ts";
import { ChromeDriver } from "../drivers/chrome/mod.ts";
import { SqliteEventStore } from "../events/mod.ts";
import { readState, statePath, updateState, writeState } from "./_blaze_state.ts";
import { closeLiveWork } from "./serve.ts";
import { shareRunsLock } from "./_runs_lock.ts";
import { LOCAL_FILES_HEADER } from "./_file_urls_flag.ts";

/**
 * Runs the daemon until it is told to stop.
 *
 * @param db the database path
 * @param options idle timeout in milliseconds (default 30 minutes)
 */
export async function runDaemon(db: string, options: { idleMs?: number } = {}): Promise<void> {
  await Deno.mkdir(dirname(db), { recursive: true });
  const store = SqliteEventStore.open(db);
  // it writes to the log: a `serve` starting meanwhile must not end its sessions as orphaned
  const runsLock = shareRunsLock(db);
  const token = crypto.randomUUID();
  // the user's own CLI opens a local page (file:, data:) only when its start was given
  // --allow-file-urls (the header below, behind the daemon's token); serve never does
  const app = createApp({
    store,
    token,
    localPages: (req) => req.headers.get(LOCAL_FILES_HEADER) === "1",
  });
  const registry = blazeRegistry(store, {
    createDriver: (options) => launchDefaultChrome(options),
  });
  /** Writes the live sessions, their browsers' pids and profile folders to the state file. */
  const recordSessions = () =>
    updateState(db, Deno.pid, (state) => {
      const sessions = registry.ids();
      const chromes = sessions.flatMap((id) => {
        const driver = registry.get(id)?.driver;
        return driver instanceof ChromeDriver ? [driver] : [];
      });
      const browsers = chromes.flatMap((d) => d.browser.process()?.pid ?? []);
      const profiles = chromes.flatMap((d) => d.userDataDir ?? []);
      return { ...state, sessions, browsers, profiles };
    }).catch(() => undefined);
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
      runsLock?.close();
    })();
    return stopping;
  };
  const touch = () => {
    clearTimeout(idle);
    idle = setTimeout(stop, idleMs);
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    touch();
    const url = new URL(req.url);
    if (url.pathname.startsWith("/daemon")) {
      if (req.headers.get("authorization") !== `Bearer ${token}`) {
        return new Response("Unauthorized", { status: 401 });
      }
      if (url.pathname === "/daemon/shutdown" && req.method === "POST") {
        setTimeout(stop, 0);
        return Response.json({ stopping: true });
      }
      if (url.pathname === "/daemon" && req.method === "GET") {
        return Response.json({ pid: Deno.pid, db: resolve(db), sessions: registry.ids() });
      }
    }
    const res = await app.fetch(req);
    // a session started or ended: the state file names the live ones and their browsers
    if (
      req.method === "POST" && /^\/v1\/blaze\/sessions(\/[^/]+\/tools\/end)?$/.test(url.pathname)
    ) {
      await recordSessions();
    }
    return res;
  });
  touch();
  Deno.addSignalListener("SIGTERM", stop);
  Deno.addSignalListener("SIGINT", stop);
  await writeState(db, { db: resolve(db), pid: Deno.pid, port: server.addr.port, token });
  await server.finished;
  await stop();
}
