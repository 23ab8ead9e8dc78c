/**
 * MCP over Streamable HTTP at `/mcp` under `cairn serve`: the same tools as `cairn mcp`,
 * stateless (each POST is answered on its own; blaze sessions live in the server's registry, so
 * a session started by one request is used by the next). It sits behind the API's middleware:
 * the same bearer token, loopback host and origin rules, and body limit.
 *
 * @module
 */
import { Hono } from "hono";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { type ApiFetch, createMcpServer } from "./server.ts";

/**
 * The `/mcp` router.
 *
 * @param api the app's fetch, for the tools' in-process calls
 * @param token the bearer token the API wants, when it wants one
 * @returns a hono router
 */
export function mcpRouter(api: ApiFetch, token?: string): Hono {
  const app = new Hono();
  app.post("/mcp", async (c) => {
    const server = createMcpServer(api, token === undefined ? {} : { token });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      await server.close();
    }
  });
  return app;
}
