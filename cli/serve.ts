/**
 * `cairn serve`: the HTTP API (events, SSE, sessions, time travel, blobs, OpenAPI) over the
 * event log. On any address other than loopback every request needs
 * `Authorization: Bearer $CAIRN_TOKEN`, and the server refuses to start without it.
 *
 * @module
 */
import { bool, type CommandSpec, num, type ParsedArgs, str } from "./args.ts";
import { runWorker } from "./_worker.ts";
import { DB_FLAGS, dbPath, filesDirOf, openStore } from "./context.ts";
import { isPostgresUrl, PostgresEventStore, redactUrl } from "../events/mod.ts";
import { InputError } from "./errors.ts";
import { createApp, DEFAULT_BODY_LIMIT, isLoopback, MAX_BODY_LIMIT } from "../api/mod.ts";
import { blazeRegistry } from "../api/mod.ts";
import { playbackRegistry } from "../api/mod.ts";
import { validationRegistry } from "../api/mod.ts";
import { closeLaunchedBrowsers } from "../drivers/chrome/mod.ts";
import { ChromeDriver } from "../drivers/chrome/mod.ts";
import { launchDefaultChrome } from "../api/mod.ts";
import { withDeadline } from "../drivers/mod.ts";
import { claimRunsLock, type RunsClaim } from "./_runs_lock.ts";
import {
  endOrphanedRun,
  endOrphanedRuns,
  endOrphanedSession,
  ORPHANED_SESSION_AT_END,
} from "./_orphaned_runs.ts";
import { profilesNotePath, profilesNoter, removeDeadServersProfiles } from "./_serve_profiles.ts";
import { sessionsOfDeadProcesses } from "./_session_owners.ts";
import { join } from "node:path";

/** Command spec of `cairn serve`. */
export const spec: CommandSpec = {
  name: "serve",
  summary: "Serve the HTTP API (events, live SSE, sessions, time travel, blobs, OpenAPI)",
  flags: {
    host: { type: "string", value: "HOST", default: "127.0.0.1", description: "Address to bind" },
    port: {
      type: "integer",
      value: "PORT",
      default: 8787,
      min: 0,
      max: 65535,
      description: "Port (0 picks a free one)",
    },
    "body-limit": {
      type: "integer",
      value: "BYTES",
      default: DEFAULT_BODY_LIMIT,
      min: 1,
      max: MAX_BODY_LIMIT,
      description: "Largest request body accepted (413 above)",
    },
    worker: {
      type: "boolean",
      description:
        "Also run the playbacks and validations queued on a PostgreSQL log, one at a time (any number of nodes may)",
    },
    "lease-ms": {
      type: "integer",
      value: "MS",
      default: 30_000,
      min: 1_000,
      description: "With --worker: how long a claimed run is held without a heartbeat",
    },
    ...DB_FLAGS,
  },
  details:
    `Off loopback, set CAIRN_TOKEN: every request must send Authorization: Bearer $CAIRN_TOKEN.
On loopback the token is enforced too when CAIRN_TOKEN is set.
Examples:
  cairn serve
  CAIRN_TOKEN=s3cret cairn serve --host 0.0.0.0 --port 8787`,
};

/** What `serve` resolved from its flags and environment. */
export interface ServeConfig {
  host: string;
  port: number;
  bodyLimit: number;
  token?: string;
}

/**
 * Resolves and checks the server's configuration.
 *
 * @param args parsed arguments
 * @param env reads an environment variable
 * @returns the configuration
 * @throws {InputError} off loopback without `CAIRN_TOKEN` (`parseArgs` bounds the port and body
 *   limit)
 */
export function serveConfig(
  args: ParsedArgs,
  env: (name: string) => string | undefined,
): ServeConfig {
  const host = str(args, "host") ?? "127.0.0.1";
  const port = num(args, "port") ?? 8787;
  const bodyLimit = num(args, "body-limit") ?? DEFAULT_BODY_LIMIT;
  const token = env("CAIRN_TOKEN") || undefined;
  if (token !== undefined && (token.trim() === "" || token.trim() !== token)) {
    // a header value is trimmed: no client could send this token (and spaces alone guard nothing)
    throw new InputError(
      `serve: CAIRN_TOKEN ${
        token.trim() === "" ? "is only whitespace" : "starts or ends with whitespace"
      }: set a token clients can send (e.g. CAIRN_TOKEN=$(openssl rand -hex 16)), or unset it`,
    );
  }
  if (!isLoopback(host) && token === undefined) {
    throw new InputError(
      `serve: refusing to bind ${host} (not loopback) without CAIRN_TOKEN: set it, and clients send Authorization: Bearer $CAIRN_TOKEN`,
    );
  }
  return { host, port, bodyLimit, ...(token === undefined ? {} : { token }) };
}

/** How long shutdown waits for live work to stop before killing the browsers under it. */
const CLOSE_TIMEOUT_MS = 10_000;

/**
 * What a server does once it has stopped listening, before the store closes: live blaze
 * sessions end as interrupted, running playbacks and validations stop (each recorded in the
 * store as it ends), and their browsers close. Whatever is not done within 10 s is left, and
 * every Chromium this process launched is then closed or killed.
 *
 * @param store the served store
 */
export async function closeLiveWork(store: Parameters<typeof blazeRegistry>[0]): Promise<void> {
  try {
    await withDeadline(
      Promise.all([
        blazeRegistry(store).closeAll(),
        playbackRegistry(store).close(),
        validationRegistry(store).close(),
      ]),
      CLOSE_TIMEOUT_MS,
      () => new Error(`not done after ${CLOSE_TIMEOUT_MS} ms`),
    );
  } catch (err) {
    console.error(`serve: stopping live work: ${err instanceof Error ? err.message : err}`);
  } finally {
    await closeLaunchedBrowsers();
  }
}

/**
 * What `serve` does before it serves: when no other Cairn process writes to the log (it gets
 * the runs lock alone), every playback and validation left without its ending event, and every
 * blaze session or `cairn record` recording left open, was left by a process that stopped (killed
 * with SIGKILL): each run is ended `failed`, each session `interrupted`, once, and the browser
 * profile folders a dead server noted (`<db>.serve-<pid>.profiles.json`) are removed; with
 * another process writing, they are left as they are. Either way the lock is then held shared.
 *
 * @param store the served store
 * @param claim the runs lock as claimed at start (undefined: it could not be made)
 * @param say prints one line
 * @param db the log's path, whose dead servers' profile folders are removed (none: not looked for)
 */
export async function endUnfinishedRuns(
  store: Parameters<typeof endOrphanedRuns>[0],
  claim: RunsClaim | undefined,
  say: (line: string) => void,
  db?: string,
): Promise<void> {
  if (claim?.alone) {
    // the sessions dead Cairn processes noted as theirs: no import, no HTTP client's session
    const owned = db !== undefined ? await sessionsOfDeadProcesses(db) : undefined;
    const ended = await endOrphanedRuns(store, owned ? { owned: owned.ids } : {});
    const done = ended.filter((r) => r.error === undefined);
    const runs = done.filter((r) => r.kind === "playback" || r.kind === "validation");
    if (runs.length > 0) {
      const names = runs.map((r) => `${r.kind} ${r.id}`);
      say(
        `serve: ended ${runs.length} unfinished run${runs.length === 1 ? "" : "s"} ` +
          `(failed: the process running it had stopped): ${names.slice(0, 5).join(", ")}${
            names.length > 5 ? ", …" : ""
          }`,
      );
    }
    for (const kind of ["blaze session", "recording"] as const) {
      const ids = done.filter((r) => r.kind === kind).map((r) => r.id);
      if (ids.length === 0) continue;
      say(
        `serve: ended ${ids.length} ${kind}${ids.length === 1 ? "" : "s"} ` +
          `left open (interrupted: the process running it had stopped): ${
            ids.slice(0, 5).join(", ")
          }${ids.length > 5 ? ", …" : ""}`,
      );
    }
    if (db !== undefined) { for (const line of await removeDeadServersProfiles(db)) say(line); }
    for (const note of owned?.recordNotes ?? []) await Deno.remove(note).catch(() => {});
    for (const r of ended.filter((r) => r.error !== undefined)) {
      say(`serve: could not end unfinished ${r.kind} ${r.id}: ${r.error}`);
    }
  }
  await claim?.share();
}

/**
 * What the stop routes do with a run this server does not run: when no other process has the
 * log open (a `cairn replay` or `validate` killed with SIGKILL let go of the runs lock as it
 * died), nobody runs it, and it is ended `failed`; while another process has the log open, it
 * may be that one's, and is left.
 *
 * @param store the served store
 * @param claim the runs lock this server holds
 * @returns the `endOrphanedRun` of the app
 */
export function orphanEnder(
  store: Parameters<typeof endOrphanedRun>[0],
  claim: RunsClaim,
): (kind: "playback" | "validation", id: string) => Promise<boolean> {
  return async (kind, id) => {
    // this server's own validation and its replays (`<validation>-<n>`) are live, not orphaned
    const own = validationRegistry(store).currentId;
    if (own !== undefined && (id === own || id.startsWith(`${own}-`))) return false;
    if (!(await claim.othersGone())) return false;
    return await endOrphanedRun(store, kind, id);
  };
}

/**
 * Where `serve` writes its playbacks' screenshot files: `screenshots/` beside the database file
 * (`.cairn/cairn.db` → `.cairn/screenshots`), whatever the server's working directory; none of
 * its own for an in-memory log (the registry's default).
 *
 * @param db the database path (`--db`, `CAIRN_DB` or the default)
 * @returns the folder, absolute, or undefined for `:memory:`
 * @example
 * ```ts
 * if (serveScreenshotDir("/data/run/cairn.db") !== "/data/run/screenshots") throw new Error();
 * ```
 */
export function serveScreenshotDir(db: string): string | undefined {
  return db === ":memory:" ? undefined : join(filesDirOf(db), "screenshots");
}

/**
 * What `tools/end` does with a blaze session this server does not hold: when no other process
 * has the log open, nobody holds it, and it is ended `interrupted`
 * ({@linkcode ORPHANED_SESSION_AT_END}); while another process has the log open (another
 * server, the CLI's blaze daemon), it may be that one's, and is left.
 *
 * @param store the served store
 * @param claim the runs lock this server holds
 * @returns the `endOrphanedSession` of the app
 */
export function orphanSessionEnder(
  store: Parameters<typeof endOrphanedSession>[0],
  claim: RunsClaim,
): (id: string) => Promise<boolean> {
  return async (id) => {
    if (!(await claim.othersGone())) return false;
    return await endOrphanedSession(store, id, ORPHANED_SESSION_AT_END) !== false;
  };
}

/**
 * The profile folders of the launched browsers that still exist (a closed browser's folder is
 * removed with it, and the driver forgotten).
 */
function liveProfiles(drivers: Set<ChromeDriver>): string[] {
  const out: string[] = [];
  for (const d of drivers) {
    const dir = d.userDataDir;
    let exists = false;
    try {
      exists = dir !== undefined && Deno.statSync(dir).isDirectory;
    } catch { /* removed */ }
    if (exists) out.push(dir!);
    else drivers.delete(d);
  }
  return out;
}

/** Runs `cairn serve` until SIGINT or SIGTERM, then stops live work and closes its browsers. */
export async function run(args: ParsedArgs): Promise<number> {
  const config = serveConfig(args, (n) => Deno.env.get(n));
  if (bool(args, "worker") && !isPostgresUrl(dbPath(args))) {
    throw new InputError(
      "serve: --worker runs the playbacks queued on a PostgreSQL log: give --db postgres://… (or CAIRN_DB)",
    );
  }
  let worker: Promise<void> | undefined;
  const store = openStore(args, { runsLock: false });
  const path = dbPath(args);
  // a log shared by several nodes (PostgreSQL) has no file beside it to lock or write notes to
  const local = path !== ":memory:" && !isPostgresUrl(path);
  let claim: RunsClaim | undefined;
  try {
    // a database that cannot be reached (or of a newer layout) is refused before listening
    if (store instanceof PostgresEventStore) await store.ready();
    claim = local ? await claimRunsLock(path) : undefined;
    await endUnfinishedRuns(
      store,
      claim,
      (line) => console.error(line),
      local ? path : undefined,
    );
  } catch (err) {
    claim?.close();
    store.close();
    throw err;
  }
  if (local) {
    const registry = blazeRegistry(store);
    // playbacks' and validations' browsers are noted as blaze's are: a restart after a SIGKILL
    // removes their profile folders too
    const launched = new Set<ChromeDriver>();
    const note = profilesNoter(
      path,
      () => [...registry.profiles(), ...liveProfiles(launched)],
      () => registry.ids(),
    );
    registry.configure({ onChange: note });
    const createDriver = async () => {
      const driver = await launchDefaultChrome();
      if (driver instanceof ChromeDriver) {
        launched.add(driver);
        await note();
      }
      return driver;
    };
    playbackRegistry(store, { createDriver });
    validationRegistry(store, { createDriver });
  }
  const ac = new AbortController();
  const stop = () => ac.abort();
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  try {
    // a playback's screenshot files go beside the log, not under wherever the server was started
    const screenshotDir = local ? serveScreenshotDir(path) : undefined;
    if (screenshotDir !== undefined) playbackRegistry(store, { screenshotDir });
    const app = createApp({
      store,
      bodyLimit: config.bodyLimit,
      shutdown: ac.signal,
      ...(config.token === undefined ? {} : { token: config.token }),
      ...(claim
        ? {
          endOrphanedRun: orphanEnder(store, claim),
          endOrphanedSession: orphanSessionEnder(store, claim),
        }
        : {}),
    });
    let server: Deno.HttpServer;
    try {
      server = Deno.serve({
        hostname: config.host,
        port: config.port,
        signal: ac.signal,
        onListen: ({ hostname, port }) => {
          const shown = hostname.includes(":") ? `[${hostname}]` : hostname;
          console.log(
            `Cairn API on http://${shown}:${port} (db ${redactUrl(dbPath(args))}${
              config.token ? ", bearer token required" : ""
            })`,
          );
        },
      }, app.fetch);
    } catch (err) {
      // as `record --port`: bad input, naming the port (Deno says only "Address already in use")
      if (err instanceof Deno.errors.AddrInUse) {
        throw new InputError(`serve: --port: port ${config.port} on ${config.host} is in use`);
      }
      throw err;
    }
    worker = bool(args, "worker")
      ? runWorker(store, {
        signal: ac.signal,
        leaseMs: num(args, "lease-ms") ?? 30_000,
        say: (line) => console.error(line),
      })
      : undefined;
    await server.finished;
    return 0;
  } finally {
    Deno.removeSignalListener("SIGINT", stop);
    Deno.removeSignalListener("SIGTERM", stop);
    await closeLiveWork(store);
    // the worker's run has ended with the live work; it claims no other
    await worker?.catch((err) => console.error(`serve --worker: ${err}`));
    if (local) await Deno.remove(profilesNotePath(path)).catch(() => {});
    store.close();
    claim?.close();
  }
}
