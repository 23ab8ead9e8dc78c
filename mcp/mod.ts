/**
 * The MCP server: Cairn's blaze, playback, optimize and history tools for agents over stdio and Streamable HTTP.
 *
 * @module
 */
export * from "./http.ts";
export * from "./server.ts";
