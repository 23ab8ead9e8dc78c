/**
 * A Chromium started as a person starts theirs for `--browser-ws`: its own process (not
 * launched through Cairn), DevTools on a websocket at a free port of 127.0.0.1, and a tab already
 * open at a page. For tests (not a test itself).
 *
 * @module
 */
import puppeteer, { type Browser } from "puppeteer-core";
import { CHROMIUM_FLAGS } from "../../drivers/chrome/launch.ts";

/** A running user Chromium. */
export interface UserChromium {
  /** Its DevTools websocket url (what `--browser-ws` takes). */
  ws: string;
  /** The browser process's pid. */
  pid: number;
  /** Whether its process still runs. */
  running(): boolean;
  /** A new puppeteer connection to it (the caller disconnects). */
  connect(): Promise<Browser>;
  /** Kills it and removes its profile. */
  close(): Promise<void>;
}

/**
 * Starts Chromium headless with one tab open at `url`, and waits (bounded) for its websocket.
 *
 * @param url the page of the tab it opens with
 * @returns the running browser
 * @throws {Error} when it does not announce its DevTools port within 30 s
 */
export async function startUserChromium(url: string): Promise<UserChromium> {
  const profile = await Deno.makeTempDir({ prefix: "cairn-user-chrome-" });
  const child = new Deno.Command("/usr/bin/chromium", {
    args: [
      "--headless=new",
      ...CHROMIUM_FLAGS,
      "--remote-debugging-address=127.0.0.1",
      "--remote-debugging-port=0",
      `--user-data-dir=${profile}`,
      "--window-size=1000,700",
      url,
    ],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const close = async () => {
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
    await status;
    for (let i = 0; i < 20; i++) {
      try {
        return await Deno.remove(profile, { recursive: true });
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  // Chromium writes `PORT\n/devtools/browser/ID` to DevToolsActivePort once it listens
  let ws: string | undefined;
  for (let i = 0; i < 300 && !exited && ws === undefined; i++) {
    const text = await Deno.readTextFile(`${profile}/DevToolsActivePort`).catch(() => "");
    const [port, path] = text.split("\n");
    if (port && path?.startsWith("/devtools/browser/")) ws = `ws://127.0.0.1:${port}${path}`;
    else await new Promise((r) => setTimeout(r, 100));
  }
  if (ws === undefined) {
    await close();
    throw new Error(`Chromium did not announce its DevTools port (profile ${profile})`);
  }
  const endpoint = ws;
  return {
    ws: endpoint,
    pid: child.pid,
    running: () => !exited,
    connect: () => puppeteer.connect({ browserWSEndpoint: endpoint, defaultViewport: null }),
    close,
  };
}
