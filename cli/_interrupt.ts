/**
 * Ctrl-C (SIGINT) or SIGTERM during `cairn replay` or `cairn validate`: the run is stopped as
 * the HTTP stop routes stop a server's (`POST /v1/playbacks/:id/stop`): it ends `failed` before
 * its next action, `interrupted (SIGINT)` saying why, and an action still running after
 * {@linkcode STOP_GRACE_MS} fails as its browser is closed. The command then closes its browser
 * and exits 130 (SIGINT) or 143 (SIGTERM), as shells expect. A second signal closes the browsers
 * at once and exits. Private to `cli/`.
 *
 * @module
 */
import { STOP_GRACE_MS } from "../api/mod.ts";
import { closeLaunchedBrowsers } from "../drivers/chrome/mod.ts";

/** The signals a run stops on, and the exit code each ends the command with (128 + its number). */
const EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

/** A run's stop on SIGINT or SIGTERM. */
export interface Interrupt {
  /** Aborted on the first signal, its reason `Error("interrupted (SIGINT)")`. */
  readonly signal: AbortSignal;
  /** 130 or 143 once a signal came, else undefined. */
  readonly exitCode: number | undefined;
  /**
   * What closes the run's browser (or device session) when an action is still running
   * {@linkcode STOP_GRACE_MS} after the signal; replaced by each call.
   */
  onGrace(close: () => Promise<void>): void;
  /** Stops listening (call it in a `finally`). */
  dispose(): void;
}

/**
 * Listens for SIGINT and SIGTERM until disposed.
 *
 * @param command the command's name, for the line printed on a signal
 * @param say prints one line (stderr)
 * @returns the run's interrupt
 */
export function interruptOnSignals(
  command: string,
  say: (line: string) => void = (line) => console.error(line),
): Interrupt {
  const controller = new AbortController();
  let exitCode: number | undefined;
  let close: (() => Promise<void>) | undefined;
  let grace: ReturnType<typeof setTimeout> | undefined;
  const handlers = Object.keys(EXIT_CODES).map((name) => {
    const sig = name as keyof typeof EXIT_CODES;
    const handler = () => {
      if (exitCode !== undefined) {
        // a second signal: no more waiting
        say(`cairn ${command}: ${sig} again: closing the browser and exiting`);
        const code = exitCode;
        closeLaunchedBrowsers().finally(() => Deno.exit(code));
        return;
      }
      exitCode = EXIT_CODES[sig];
      say(`cairn ${command}: interrupted (${sig}): stopping the run`);
      controller.abort(new Error(`interrupted (${sig})`));
      grace = setTimeout(() => {
        grace = undefined;
        close?.().catch(() => {});
      }, STOP_GRACE_MS);
    };
    Deno.addSignalListener(sig, handler);
    return [sig, handler] as const;
  });
  return {
    signal: controller.signal,
    get exitCode() {
      return exitCode;
    },
    onGrace(fn) {
      close = fn;
    },
    dispose() {
      if (grace !== undefined) clearTimeout(grace);
      for (const [sig, handler] of handlers) Deno.removeSignalListener(sig, handler);
    },
  };
}
