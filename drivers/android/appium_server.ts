/**
 * Cairn's own Appium server: `node appium server` on 127.0.0.1 with `APPIUM_HOME` set to the
 * Cairn-owned install (see `appium_install.ts`), started on a free port, ready once `/status`
 * says so, stopped with {@linkcode AppiumServer.stop} (and killed if the process exits first).
 *
 * @module
 */
import { DriverError } from "../driver.ts";
import { withDeadline } from "../with_deadline.ts";
import { type AppiumInstall, ensureAppium } from "./appium_install.ts";

/** Options of {@linkcode AppiumServer.start}. */
export interface AppiumServerOptions {
  /** `APPIUM_HOME` (default: `.cairn/appium` at the project root). */
  home?: string;
  /** Port on 127.0.0.1 (default: a free one). */
  port?: number;
  /** Extra environment for the server (`ANDROID_HOME`, `JAVA_HOME`, …); the rest is inherited. */
  env?: Record<string, string>;
  /** Environment variables to remove from what the server inherits. */
  unsetEnv?: string[];
  /** How long to wait for `/status` (default 60 s). */
  startTimeoutMs?: number;
  /** Appium's log file (default `<home>/logs/appium-<port>.log`). */
  logFile?: string;
  /** Progress lines (install, start). */
  log?: (line: string) => void;
}

/** A running Appium server Cairn started. */
export class AppiumServer {
  readonly url: string;
  readonly port: number;
  readonly logFile: string;
  readonly install: AppiumInstall;
  readonly #child: Deno.ChildProcess;
  readonly #onUnload: () => void;
  #stopped: Promise<void> | undefined;

  private constructor(
    install: AppiumInstall,
    port: number,
    logFile: string,
    child: Deno.ChildProcess,
  ) {
    this.install = install;
    this.port = port;
    this.url = `http://127.0.0.1:${port}`;
    this.logFile = logFile;
    this.#child = child;
    this.#onUnload = () => {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
    };
    globalThis.addEventListener("unload", this.#onUnload);
  }

  /** The server's process id. */
  get pid(): number {
    return this.#child.pid;
  }

  /**
   * Installs Appium when needed and starts it; resolves once `/status` reports ready.
   *
   * @param options port, environment, timeouts
   * @returns the running server
   * @throws {DriverError} when Node is missing, the install fails, or the server does not come up
   */
  static async start(options: AppiumServerOptions = {}): Promise<AppiumServer> {
    const install = await ensureAppium({
      ...(options.home !== undefined ? { home: options.home } : {}),
      ...(options.log ? { log: options.log } : {}),
    });
    const port = options.port ?? freePort();
    const logFile = options.logFile ?? `${install.home}/logs/appium-${port}.log`;
    await Deno.mkdir(logFile.replace(/\/[^/]+$/, ""), { recursive: true });
    const env: Record<string, string> = {
      ...Deno.env.toObject(),
      ...options.env,
      APPIUM_HOME: install.home,
    };
    for (const name of options.unsetEnv ?? []) delete env[name];
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command("node", {
        args: [
          install.main,
          "server",
          "--address",
          "127.0.0.1",
          "--port",
          String(port),
          "--log-no-colors",
          "--log-timestamp",
          "--log",
          logFile,
          "--log-level",
          "info:debug",
        ],
        env,
        clearEnv: true,
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn();
    } catch (err) {
      throw new DriverError(
        `Cannot start Appium: node could not be run (${
          err instanceof Error ? err.message : err
        }); install Node.js 20.19+`,
        "appium_start_failed",
        { cause: err },
      );
    }
    const server = new AppiumServer(install, port, logFile, child);
    options.log?.(`appium: starting on ${server.url} (log ${logFile})`);
    try {
      await server.#waitReady(options.startTimeoutMs ?? 60_000);
    } catch (err) {
      await server.stop();
      throw err;
    }
    return server;
  }

  async #waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let exited = false;
    const status = this.#child.status.then((s) => {
      exited = true;
      return s;
    });
    while (Date.now() < deadline) {
      if (exited) {
        const s = await status;
        throw new DriverError(
          `Cannot start Appium: the server exited with ${s.code} before it was ready: ${await this
            .logTail()}`,
          "appium_start_failed",
        );
      }
      try {
        const res = await fetch(`${this.url}/status`, { signal: AbortSignal.timeout(2_000) });
        const body = await res.json() as { value?: { ready?: boolean } };
        if (res.ok && body.value?.ready !== false) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new DriverError(
      `Cannot start Appium: /status not ready after ${timeoutMs} ms: ${await this.logTail()}`,
      "appium_start_failed",
    );
  }

  /**
   * The last lines of Appium's log, on one line.
   *
   * @param lines how many
   * @returns the tail (empty when there is no log yet)
   */
  async logTail(lines = 5): Promise<string> {
    const text = await Deno.readTextFile(this.logFile).catch(() => "");
    return text.trim().split("\n").slice(-lines).join(" | ");
  }

  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and waits for it to exit. Idempotent. */
  stop(): Promise<void> {
    this.#stopped ??= (async () => {
      globalThis.removeEventListener("unload", this.#onUnload);
      try {
        this.#child.kill("SIGTERM");
      } catch {
        // already exited
      }
      await withDeadline(this.#child.status, 5_000, () => new Error("still running")).catch(() => {
        try {
          this.#child.kill("SIGKILL");
        } catch {
          // exited meanwhile
        }
      });
      await this.#child.status;
    })();
    return this.#stopped;
  }
}

/** A free TCP port on 127.0.0.1 (bound then released). */
function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}
