/**
 * MCP over Streamable HTTP at `/mcp`: the SDK's client against a real HTTP server, behind the
 * API's token rule.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { createApp } from "../../api/app.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { MCP_TOOL_NAMES } from "../../mcp/server.ts";

Deno.test("POST /mcp serves the MCP tools behind the bearer token", async () => {
  const store = SqliteEventStore.open(":memory:");
  const app = createApp({ store, token: "s3cret" });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  const url = new URL(`http://127.0.0.1:${server.addr.port}/mcp`);
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  };
  try {
    const anonymous = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify(initialize),
    });
    assertEquals(anonymous.status, 401);
    assertEquals((await anonymous.json()).error.code, "unauthorized");

    const client = new Client({ name: "cairn-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: "Bearer s3cret" } },
      }),
    );
    try {
      const { tools } = await client.listTools() as unknown as { tools: { name: string }[] };
      assertEquals(tools.map((t) => t.name), [...MCP_TOOL_NAMES]);
      const slots = await client.callTool({
        name: "slot_analysis",
        arguments: { steps: ["Note how many apples are in the cart", "Add 2 more apples"] },
      }) as { isError?: boolean; structuredContent?: { slots?: { name: string }[] } };
      assert(!slots.isError, JSON.stringify(slots));
      assert(slots.structuredContent?.slots?.some((s) => s.name === "appleCount"));
      const missing = await client.callTool({
        name: "blaze_snapshot",
        arguments: { sessionId: "nope" },
      }) as { isError?: boolean; content: { text?: string }[] };
      assert(missing.isError);
      assertStringIncludes(String(missing.content[0]?.text), "not_found");
    } finally {
      await client.close();
    }
  } finally {
    await server.shutdown();
    store.close();
  }
});
