/**
 * `cairn record --url URL --prompt "…"`: records a person using Chromium (headed when a display
 * exists, headless otherwise) until Ctrl-C, `stop` on stdin, or `POST /v1/record/:id/stop`,
 * then writes the `recording_v1` file (mode `human`).
 *
 * @module
 */
import { bool, type CommandSpec, num, type ParsedArgs, str, UsageError } from "./args.ts";
import { DB_FLAGS, openStore } from "./context.ts";
import { ChromeDriver } from "../drivers/chrome/chrome_driver.ts";
import { HumanRecorder } from "../drivers/chrome/human_recorder.ts";
import { createApp } from "../api/app.ts";
import { recordRegistry } from "../api/record.ts";
import { writeSessionFiles } from "./_session_files.ts";

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
      value: "FILE",
      description: "Where to write the recording (default: vw-ax-human-<id>-<time>.json here)",
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
    headless: { type: "boolean", description: "Headless even when DISPLAY is set" },
    "browser-ws": {
      type: "string",
      value: "URL",
      description: "Record in a running browser (its DevTools websocket) instead of launching one",
    },
    ...DB_FLAGS,
  },
  details: `
Stop with Ctrl-C, by typing stop and Enter, or with POST /v1/record/<id>/stop (--port).
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
  const port = num(args, "port");
  const store = openStore(args);
  const ws = str(args, "browser-ws");
  const headless = bool(args, "headless") || !Deno.env.get("DISPLAY");
  let driver: ChromeDriver | undefined;
  let server: Deno.HttpServer<Deno.NetAddr> | undefined;
  const controller = new AbortController();
  const onSigint = () => controller.abort("interrupt");
  try {
    driver = await ChromeDriver.launch(
      ws ? { browserWs: ws, followTabs: "all" } : { headless, followTabs: "all" },
    );
    const recorder = await HumanRecorder.start(driver, store, { url, prompt });
    const registry = recordRegistry(store);
    registry.register(recorder.id, () => controller.abort("http"));
    if (port !== undefined) {
      const app = createApp({ store });
      server = Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, app.fetch);
      console.log(`API on http://127.0.0.1:${server.addr.port}`);
    }
    Deno.addSignalListener("SIGINT", onSigint);
    console.log(
      `Recording session ${recorder.id} at ${url} (${
        ws ? "remote browser" : headless ? "headless" : "headed"
      }). ` +
        `Type stop and Enter, press Ctrl-C${
          port !== undefined ? `, or POST /v1/record/${recorder.id}/stop` : ""
        } to finish.`,
    );
    watchStdin(controller);
    await new Promise<void>((resolve) =>
      controller.signal.addEventListener("abort", () => resolve(), { once: true })
    );
    registry.unregister(recorder.id);
    await recorder.stop("completed");
    const [file] = await writeSessionFiles(store, recorder.id, ".", {
      capture: false,
      ...(str(args, "out") ? { recording: str(args, "out")! } : {}),
    });
    console.log(`Recorded ${recorder.actionCount} actions; wrote ${file}`);
    if (recorder.errors.length > 0) {
      console.error(`cairn record: ${recorder.errors.length} problem(s): ${recorder.errors[0]}`);
    }
    if (bool(args, "ephemeral")) {
      const n = await store.deleteStream(recorder.streamId);
      console.log(`Deleted the session's ${n} events (--ephemeral)`);
    }
    return 0;
  } finally {
    Deno.removeSignalListener("SIGINT", onSigint);
    await server?.shutdown();
    await driver?.close();
    store.close();
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
