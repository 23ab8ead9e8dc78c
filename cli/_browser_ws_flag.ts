/**
 * The `--browser-ws URL` flag of the commands that can drive a running browser (`replay`,
 * `validate`, `record`): checked before anything runs, so a value that is no DevTools websocket
 * url is bad input (exit 2) rather than a browser that cannot be reached (exit 1). Private to
 * `cli/`.
 *
 * @module
 */
import { type ParsedArgs, str } from "./args.ts";
import { InputError } from "./errors.ts";

/**
 * Reads and checks `--browser-ws`.
 *
 * @param args parsed arguments
 * @returns the websocket url, or undefined when the flag is absent
 * @throws {InputError} naming the flag when the value is not a ws:// or wss:// url
 */
export function browserWsFlag(args: ParsedArgs): string | undefined {
  const ws = str(args, "browser-ws");
  if (ws === undefined) return undefined;
  if (!URL.canParse(ws) || !["ws:", "wss:"].includes(new URL(ws).protocol)) {
    throw new InputError(
      `--browser-ws: expected the browser's DevTools websocket url (ws:// or wss://), got ${
        JSON.stringify(ws)
      }`,
    );
  }
  return ws;
}
