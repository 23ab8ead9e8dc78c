/**
 * Starts (or connects to) the Chromium Cairn drives: Debian's `/usr/bin/chromium` through
 * puppeteer-core with the launch flags of docs/architecture.md and a fresh user-data-dir that is removed
 * on close, or `puppeteer.connect` to a remote browser endpoint (`--browser-ws URL`).
 *
 * A launched Chromium speaks DevTools over a pipe (`--remote-debugging-pipe`), not a websocket:
 * it exits when the pipe closes, so it dies with the process that launched it even when that
 * process is SIGKILLed (which no handler can catch), and it listens on no port.
 *
 * @module
 */
import puppeteer, { type Browser } from "puppeteer-core";
import { DriverError } from "../driver.ts";
import { withDeadline } from "../with_deadline.ts";
import { dirname } from "node:path";
import { PROFILE_PREFIX, removeStaleProfiles } from "./profiles.ts";

/** How long closing waits for Chromium to exit on its own before killing it. */
const CLOSE_GRACE_MS = 3_000;

/** The browsers this process launched and has not closed yet. */
const live = new Set<LaunchedBrowser>();

/** The flags every Chromium Cairn launches runs with (docs/architecture.md "Runtime"). */
export const CHROMIUM_FLAGS: readonly string[] = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Options of {@linkcode launchChrome}. */
export interface LaunchOptions {
  /** Connect to this DevTools websocket endpoint instead of launching a browser. */
  browserWs?: string;
  /** Headless (default) or headed (needs a display). */
  headless?: boolean;
  /** The Chromium binary; default `CAIRN_CHROMIUM` or `/usr/bin/chromium`. */
  executablePath?: string;
  /** Extra command-line flags. */
  args?: string[];
  /** Give up launching after this many milliseconds (default 30 000). */
  timeoutMs?: number;
}

/** A running browser and how to let go of it. */
export interface LaunchedBrowser {
  browser: Browser;
  /** True when connected to a browser Cairn did not start (closing only disconnects). */
  remote: boolean;
  /** The temporary profile folder of a launched browser (removed by `close`). */
  userDataDir?: string;
  /** Closes the browser (or disconnects from a remote one) and removes the user-data-dir. */
  close(): Promise<void>;
  /**
   * Kills a launched browser's process at once, without asking it to close (for one whose page
   * stopped answering), and removes the user-data-dir; a remote browser is only disconnected.
   */
  kill(): Promise<void>;
}

/**
 * Launches Chromium headless (or headed) with Cairn's flags, or connects to `browserWs`.
 *
 * @param options where the browser is and how to start it
 * @returns the browser and its `close`
 * @throws {DriverError} when the binary is missing or the browser cannot be reached
 */
export async function launchChrome(options: LaunchOptions = {}): Promise<LaunchedBrowser> {
  if (options.browserWs) {
    try {
      const browser = await puppeteer.connect({
        browserWSEndpoint: options.browserWs,
        defaultViewport: null,
      });
      const disconnect = () => browser.disconnect();
      return { browser, remote: true, close: disconnect, kill: disconnect };
    } catch (err) {
      throw new DriverError(
        `Cannot connect to the browser at ${options.browserWs}: ${errorMessage(err)}`,
        "browser_unreachable",
        { cause: err },
      );
    }
  }
  const executablePath = options.executablePath ?? Deno.env.get("CAIRN_CHROMIUM") ??
    "/usr/bin/chromium";
  if (!(await Deno.stat(executablePath).then(() => true, () => false))) {
    throw new DriverError(
      `Cannot launch Chromium: ${executablePath} does not exist (run deno task setup)`,
      "browser_missing",
    );
  }
  const userDataDir = await Deno.makeTempDir({ prefix: PROFILE_PREFIX });
  // the folders of browsers that died with a SIGKILLed Cairn (nothing else removes them)
  await removeStaleProfiles(dirname(userDataDir), userDataDir);
  const headless = options.headless ?? true;
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      executablePath,
      headless: false, // the headless flag is passed explicitly below, as docs/architecture.md names it
      userDataDir,
      defaultViewport: null,
      timeout: options.timeoutMs ?? 30_000,
      // DevTools over fds 3/4: Chromium exits when its parent dies and the pipe closes
      pipe: true,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      args: [
        ...(headless ? ["--headless=new", "--hide-scrollbars", "--mute-audio"] : []),
        ...CHROMIUM_FLAGS,
        "--window-size=1280,800",
        ...(options.args ?? []),
      ],
    });
  } catch (err) {
    await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
    throw new DriverError(`Cannot launch Chromium: ${errorMessage(err)}`, "browser_launch_failed", {
      cause: err,
    });
  }
  let released: Promise<void> | undefined;
  /**
   * Lets go of the browser once: `exit` stops its process, then the profile is removed. A later
   * call (a `kill` while a `close` is under way) returns when that first release is done, not at
   * once: a caller that answers "ended" after it does not answer before the browser is gone.
   */
  const release = (exit: () => Promise<void>): Promise<void> =>
    released ??= (async () => {
      live.delete(launched);
      await exit();
      // Chromium may still be flushing its profile for a moment after the process exits.
      for (let i = 0; i < 10; i++) {
        try {
          await Deno.remove(userDataDir, { recursive: true });
          return;
        } catch (err) {
          if (err instanceof Deno.errors.NotFound) return;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    })();
  const kill = async () => {
    const child = browser.process();
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGKILL");
    await withDeadline(exited, CLOSE_GRACE_MS, () => new Error("not gone")).catch(() => {});
  };
  const launched: LaunchedBrowser = {
    browser,
    remote: false,
    userDataDir,
    close: () =>
      release(() =>
        withDeadline(browser.close(), CLOSE_GRACE_MS, () => new Error("still running"))
          .catch(kill)
      ),
    kill: () => release(kill),
  };
  live.add(launched);
  return launched;
}

/**
 * Closes every browser this process launched and has not closed yet (killing those that do not
 * exit within a few seconds): what a server does last on shutdown, whoever opened them.
 *
 * @returns when every one of them is gone
 */
export async function closeLaunchedBrowsers(): Promise<void> {
  await Promise.all([...live].map((b) => b.close()));
}

/**
 * One line for what launching or connecting threw. A websocket that cannot connect rejects
 * with its `ErrorEvent`, not an Error (`String()` of it is `[object Object]`): its `message`
 * (`connect ECONNREFUSED 127.0.0.1:1`, `Unexpected server response: 404`) or its `error`'s.
 */
function errorMessage(err: unknown): string {
  const message = (e: unknown): string | undefined => {
    if (e instanceof Error) return e.message;
    if (typeof e !== "object" || e === null) return undefined;
    const m = (e as { message?: unknown }).message;
    return typeof m === "string" && m !== "" ? m : undefined;
  };
  const inner = typeof err === "object" && err !== null
    ? (err as { error?: unknown }).error
    : undefined;
  const text = message(err) ?? message(inner) ??
    (typeof err === "object" && err !== null ? "the connection failed" : String(err));
  return text.split("\n")[0]!;
}
