/**
 * `cairn record --url URL --prompt "…"`: records a person using a headed Chromium (a display is
 * required: without one it refuses, unless `--headless` for scripted use) until Ctrl-C or SIGTERM, `stop` on stdin, or
 * `POST /v1/record/:id/stop`, then writes the `recording_v1` file (mode `human`). A browser that
 * goes away (closed or killed) ends the session `interrupted`: the file is written, exit 1.
 *
 * @module
 */
import { join } from "node:path";
import { bool, type CommandSpec, num, type ParsedArgs, str, UsageError } from "./args.ts";
import { DB_FLAGS, dbPath, filesDir, openStore } from "./context.ts";
import { noteRecordSessions } from "./_session_owners.ts";
import { FILE_URLS_FLAG, fileUrlsOption } from "./_file_urls_flag.ts";
import { ChromeDriver } from "../drivers/chrome/mod.ts";
import { HumanRecorder } from "../drivers/chrome/mod.ts";
import { closeLaunchedBrowsers } from "../drivers/chrome/mod.ts";
import { isPageUrl, PAGE_URL_RULE } from "../runners/blaze/mod.ts";
import { createApp } from "../api/mod.ts";
import { recordRegistry } from "../api/mod.ts";
import { writeSessionFiles } from "./_session_files.ts";
import { browserWsFlag } from "./_browser_ws_flag.ts";

/** The command's flags and help. */
export const spec: CommandSpec = {
  name: "record",
  summary: "Record a person using the browser as a recording_v1 file (mode human)",
  flags: {
    url: { type: "string", value: "URL", description: "The page to open (required)" },
    prompt: {
      type: "string",
      value: "TEXT",
      description: "The example prompt the demonstration answers (required)",
    },
    out: {
      type: "string",
      alias: "o",
      value: "FILE",
      description:
        "Where to write the recording (default: exports/vw-ax-human-<id>-<time>.json beside the database)",
    },
    ephemeral: {
      type: "boolean",
      description: "Delete the session's events once the file is written",
    },
    port: {
      type: "integer",
      value: "PORT",
      min: 0,
      max: 65535,
      description: "Serve the HTTP API on 127.0.0.1:PORT while recording (0: any free port)",
    },
    headless: {
      type: "boolean",
      description: "No browser window (scripted use: something else drives the page)",
    },
    "browser-ws": {
      type: "string",
      value: "URL",
      description: "Record in a running browser (its DevTools websocket) instead of launching one",
    },
    ...FILE_URLS_FLAG,
    ...DB_FLAGS,
  },
  details: `
A person records in a browser window: without a display (DISPLAY) record refuses; over SSH
run it under Xvfb (xvfb-run -a cairn record …) or with ssh -X; --headless is for scripts.
Recorded: clicks, values, keys, selects, checks, scrolls, Back/Forward, a url typed in the
address bar (navigate), F5 (reload), Ctrl+T and tab switches (switch_tab), a snapshot per page.
Stop with Ctrl-C (or SIGTERM), by typing stop and Enter, or with POST /v1/record/<id>/stop
(--port). Closing the browser ends the session as interrupted: the file is written, exit 1.
Password fields, data-sensitive fields and autocomplete cc-*/current-password fields are stored
as [redacted]. Without --ephemeral the session stays in the event log (cairn history <id>).`,
};

/**
 * Runs `cairn record`.
 *
 * @param args parsed arguments
 * @returns the exit code
 */
export async function run(args: ParsedArgs): Promise<number> {
  const url = str(args, "url");
  const prompt = str(args, "prompt");
  if (!url) throw new UsageError("record: --url is required");
  if (!prompt) throw new UsageError("record: --prompt is required");
  if (!URL.canParse(url)) throw new UsageError(`record: --url is not a URL: ${url}`);
  if (!isPageUrl(url)) throw new UsageError(`record: --url ${url}: ${PAGE_URL_RULE}`);
  const port = num(args, "port");
  const ws = browserWsFlag(args);
  const store = openStore(args);
  const headless = bool(args, "headless");
  if (!headless && !ws && !Deno.env.get("DISPLAY") && !Deno.env.get("WAYLAND_DISPLAY")) {
    // headless, nobody could act in the browser: the recording would hold nothing
    store.close();
    throw new UsageError(
      "record: no display (DISPLAY is not set) for the browser window a person records in; " +
        "run it on a desktop, under Xvfb (xvfb-run cairn record …), or pass --headless",
    );
  }
  let driver: ChromeDriver | undefined;
  let server: Deno.HttpServer<Deno.NetAddr> | undefined;
  const controller = new AbortController();
  const onSignal = () => controller.abort("interrupt");
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  try {
    // the port is bad input: refused before a browser starts or an event is stored
    if (port !== undefined) server = listen(createApp({ store }).fetch, port);
    driver = await ChromeDriver.launch({
      ...(ws ? { browserWs: ws, followTabs: "all" } : { headless, followTabs: "all" }),
      ...fileUrlsOption(args),
    });
    driver.browser.on("disconnected", () => controller.abort("disconnected"));
    const recorder = await HumanRecorder.start(driver, store, { url, prompt });
    // noted as this process's own: a serve started after a SIGKILL ends it, and only it
    await noteRecordSessions(dbPath(args), [recorder.id]);
    const registry = recordRegistry(store);
    registry.register(recorder.id, () => controller.abort("http"));
    if (server) console.log(`API on http://127.0.0.1:${server.addr.port}`);
    console.log(
      `Recording session ${recorder.id} at ${url} (${
        ws ? "remote browser" : headless ? "headless" : "headed"
      }). ` +
        `Type stop and Enter, press Ctrl-C${
          port !== undefined ? `, or POST /v1/record/${recorder.id}/stop` : ""
        } to finish.`,
    );
    watchStdin(controller);
    await new Promise<void>((resolve) => {
      if (controller.signal.aborted) resolve(); // a signal while starting
      controller.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    registry.unregister(recorder.id);
    const gone = controller.signal.reason === "disconnected";
    await recorder.stop(
      gone ? "interrupted" : "completed",
      gone ? "The browser closed while recording" : undefined,
    );
    await noteRecordSessions(dbPath(args), []);
    // without --out: exports/ beside the database, as blaze end writes
    const { files: [file] } = await writeSessionFiles(
      store,
      recorder.id,
      join(filesDir(args), "exports"),
      {
        capture: false,
        ...(str(args, "out") ? { recording: str(args, "out")! } : {}),
      },
    );
    console.log(`Recorded ${recorder.actionCount} actions; wrote ${file}`);
    if (recorder.errors.length > 0) {
      console.error(`cairn record: ${recorder.errors.length} problem(s): ${recorder.errors[0]}`);
    }
    if (bool(args, "ephemeral")) {
      const n = await store.deleteStream(recorder.streamId);
      console.log(`Deleted the session's ${n} events (--ephemeral)`);
    }
    if (gone) {
      console.error(`cairn record: the browser closed while recording (session interrupted)`);
      return 1;
    }
    return 0;
  } finally {
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
    await server?.shutdown();
    await driver?.close();
    await closeLaunchedBrowsers(); // as serve does last: no Chromium outlives the command
    store.close();
  }
}

/** Serves the API on 127.0.0.1:`port`; a port in use is bad input (exit 2 naming `--port`). */
function listen(
  fetch: Deno.ServeHandler<Deno.NetAddr>,
  port: number,
): Deno.HttpServer<Deno.NetAddr> {
  try {
    return Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, fetch);
  } catch (err) {
    if (err instanceof Deno.errors.AddrInUse) {
      throw new UsageError(`record: --port: port ${port} is in use`);
    }
    throw err;
  }
}

/** Aborts when a line reading `stop` arrives on stdin (end of input changes nothing). */
function watchStdin(controller: AbortController): void {
  (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    const reader = Deno.stdin.readable.getReader();
    controller.signal.addEventListener("abort", () => reader.cancel().catch(() => {}));
    try {
      while (!controller.signal.aborted) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        const lines = buffer.split("\n");
        buffer = lines.pop() ?? "";
        if (lines.some((l) => l.trim().toLowerCase() === "stop")) controller.abort("stdin");
      }
    } catch {
      // stdin closed or cancelled
    } finally {
      reader.releaseLock();
    }
  })();
}
