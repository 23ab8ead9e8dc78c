/**
 * A throwaway PostgreSQL cluster for tests and benches: `initdb` into a temp folder, started on
 * 127.0.0.1 at a free port, stopped and removed by {@linkcode PgCluster.stop}. PostgreSQL
 * refuses to run as root, so when this process is root the server runs as the `postgres` user
 * (Debian's `postgresql` package creates it; `deno task setup` installs the package).
 *
 * @module
 */
import { existsSync } from "node:fs";

/** Where Debian puts the server binaries (override: `CAIRN_PG_BIN`). */
export function pgBinDir(): string {
  const env = Deno.env.get("CAIRN_PG_BIN");
  if (env) return env;
  for (const v of ["17", "16", "15", "14"]) {
    const dir = `/usr/lib/postgresql/${v}/bin`;
    if (existsSync(`${dir}/initdb`)) return dir;
  }
  return "/usr/lib/postgresql/15/bin";
}

/** Whether a PostgreSQL server can be started here. */
export function pgAvailable(): boolean {
  return existsSync(`${pgBinDir()}/initdb`);
}

/**
 * Whether the PostgreSQL tests are skipped: only where the server is not installed and `CI` is
 * not set (`deno task test` installs it first; on CI a missing server fails them, so the
 * conformance suite cannot pass there by being skipped).
 */
export function pgTestsSkipped(): boolean {
  return !pgAvailable() && !Deno.env.get("CI");
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function run(cmd: string[], asPostgres: boolean): Promise<string> {
  const argv = asPostgres ? ["runuser", "-u", "postgres", "--", ...cmd] : cmd;
  const out = await new Deno.Command(argv[0]!, {
    args: argv.slice(1),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`${cmd[0]} failed: ${text.trim()}`);
  return text;
}

/** Settings of {@linkcode startCluster}. */
export interface ClusterOptions {
  /**
   * Durable commits (fsync on, as a real server). Default false: tests need no durability and
   * run faster without it; benches pass true.
   */
  durable?: boolean;
}

/** A started cluster. */
export interface PgCluster {
  port: number;
  /** `postgres://postgres@127.0.0.1:PORT/DB`. */
  url(db?: string): string;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

/**
 * Starts a cluster in a new temp folder.
 *
 * @returns the started cluster; the caller stops it
 */
export async function startCluster(options: ClusterOptions = {}): Promise<PgCluster> {
  const bin = pgBinDir();
  const asPostgres = Deno.uid?.() === 0;
  const dir = await Deno.makeTempDir({ prefix: "cairn_pg_" });
  const data = `${dir}/data`;
  if (asPostgres) await run(["chown", "postgres:postgres", dir], false);
  await run([
    `${bin}/initdb`,
    "-D",
    data,
    "-U",
    "postgres",
    "--auth=trust",
    "-E",
    "UTF8",
    "--no-sync",
    "--locale=C",
  ], asPostgres);
  const port = freePort();
  const settings = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${dir}`,
    "-c max_connections=200",
    ...(options.durable ? [] : ["-c fsync=off", "-c synchronous_commit=off"]),
  ].join(" ");
  await run([
    `${bin}/pg_ctl`,
    "-D",
    data,
    "-l",
    `${dir}/server.log`,
    "-o",
    settings,
    "-w",
    "-t",
    "60",
    "start",
  ], asPostgres);
  const url = (db = "postgres") => `postgres://postgres@127.0.0.1:${port}/${db}`;
  return {
    port,
    url,
    async createDatabase(name: string) {
      await run([
        `${bin}/psql`,
        "-h",
        "127.0.0.1",
        "-p",
        String(port),
        "-U",
        "postgres",
        "-c",
        `CREATE DATABASE "${name}"`,
      ], false);
      return url(name);
    },
    async stop() {
      try {
        await run([`${bin}/pg_ctl`, "-D", data, "-m", "immediate", "-w", "stop"], asPostgres);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  };
}
