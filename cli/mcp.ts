/**
 * `cairn mcp`: Cairn as an MCP server over stdio, for an agent's MCP client (Claude Desktop,
 * Cursor, an SDK client). The tools call the HTTP API in process: one browser per blaze
 * session, playbacks and validations in this process, recorded to the event log (`--db`).
 *
 * @module
 */
import { dirname } from "node:path";
import process from "node:process";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { type CommandSpec, type ParsedArgs } from "./args.ts";
import { DB_FLAGS, dbPath, openStore } from "./context.ts";
import { createApp } from "../api/mod.ts";
import { blazeRegistry } from "../api/mod.ts";
import { launchDefaultChrome } from "../api/mod.ts";
import { createMcpServer, MCP_TOOL_NAMES } from "../mcp/mod.ts";
import { closeLiveWork, serveScreenshotDir } from "./serve.ts";
import { playbackRegistry } from "../api/mod.ts";
import { FILE_URLS_FLAG, fileUrlsOption } from "./_file_urls_flag.ts";
import {
  CAPTURE_FILE_FLAGS,
  type CaptureFileRules,
  captureFileRules,
  readNamedFile,
} from "./_capture_files.ts";

/** Command spec of `cairn mcp`. */
export const spec: CommandSpec = {
  name: "mcp",
  summary: "Serve Cairn's agent tools over MCP (stdio)",
  flags: {
    ...DB_FLAGS,
    ...FILE_URLS_FLAG,
    "max-file-size": {
      ...CAPTURE_FILE_FLAGS["max-file-size"]!,
      description: "Largest trail file playback_start's trailFile may name, in MiB",
    },
  },
  details: `Speaks the Model Context Protocol on stdin/stdout; logs go to stderr.
Tools: ${MCP_TOOL_NAMES.join(", ")}.
Resources: cairn://sessions, cairn://sessions/{id}, cairn://trails/{id}, cairn://screenshots/{hash}.
Example client config (Claude Desktop, Cursor):
  {"mcpServers": {"cairn": {"command": "deno", "args": ["run", "-A", "/path/to/cairn/main.ts", "mcp"]}}}`,
};

/**
 * Reads a playback's `trailFile` by a capture's file rules: a regular file of at most
 * `--max-file-size` (64 MiB), read within 30 s; a device, FIFO or socket is refused before it is
 * opened.
 *
 * @param file the path the tool call named
 * @param rules the size limit
 * @returns its text
 * @throws {Error} one line naming the path (the tool's error puts `trailFile:` before it)
 */
async function readTrailFile(file: string, rules: CaptureFileRules): Promise<string> {
  try {
    return new TextDecoder().decode(await readNamedFile(file, rules));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw new Error(`${file}: no such file`);
    if (err instanceof Deno.errors.IsADirectory) {
      throw new Error(`${file}: is a folder; name a trail file`);
    }
    throw err;
  }
}

/**
 * Runs the MCP server until stdin closes or a signal arrives.
 *
 * @param args parsed flags
 * @returns the exit code
 */
export async function run(args: ParsedArgs): Promise<number> {
  // stdout carries the protocol: anything else printed goes to stderr
  console.log = console.info = console.debug = console.error;
  const path = dbPath(args);
  if (path !== ":memory:") await Deno.mkdir(dirname(path), { recursive: true });
  const store = openStore(args);
  // a local client, as the blaze CLI: its pages may be file: or data: urls with --allow-file-urls
  // (else the browser's rule refuses them as unsafe_url, naming the scheme)
  const localFiles = fileUrlsOption(args).localFiles === true;
  // a playback's trailFile is read by a capture's rules: a regular file within --max-file-size
  const rules = captureFileRules(args);
  blazeRegistry(store, { createDriver: (options) => launchDefaultChrome(options) });
  const screenshotDir = serveScreenshotDir(path);
  // a playback's screenshot files go beside the log, as serve's do
  if (screenshotDir !== undefined) playbackRegistry(store, { screenshotDir });
  const app = createApp({ store, localPages: () => localFiles });
  const server = createMcpServer((req) => app.fetch(req), {
    readFile: (file) => readTrailFile(file, rules),
  });
  const transport = new StdioServerTransport();
  const closed = Promise.withResolvers<void>();
  transport.onclose = () => closed.resolve();
  const stop = () => closed.resolve();
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await server.connect(transport);
  // stdin's end: the client went away
  process.stdin.once("end", stop);
  await closed.promise;
  Deno.removeSignalListener("SIGINT", stop);
  Deno.removeSignalListener("SIGTERM", stop);
  await closeLiveWork(store);
  await server.close().catch(() => {});
  store.close();
  return 0;
}
