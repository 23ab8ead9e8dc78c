/**
 * The MCP server: Cairn's blaze, playback, optimize and history tools for agents over stdio and
 * Streamable HTTP.
 *
 * @example
 * ```ts
 * import { createMcpServer } from "./mod.ts";
 * // The server calls the HTTP API in-process; here a fetch that answers an empty object.
 * const server = createMcpServer(() => Promise.resolve(new Response("{}")));
 * if (!server) throw new Error();
 * ```
 *
 * @module
 */
export * from "./http.ts";
export * from "./server.ts";
