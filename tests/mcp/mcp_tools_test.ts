/**
 * The MCP tool list as a snapshot: names, descriptions and input and output schemas, so a
 * change to what agents see is deliberate. After a deliberate change:
 * `UPDATE_GOLDEN=1 deno test -A tests/mcp/mcp_tools_test.ts` and read the diff.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { assert, assertEquals } from "../_fixtures/assert.ts";
import { createApp } from "../../api/app.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { createMcpServer, MCP_TOOL_NAMES } from "../../mcp/server.ts";

interface ListedTool {
  name: string;
  description?: string;
  inputSchema: { type: string; required?: string[] };
  outputSchema?: unknown;
}

const UPDATE = Deno.env.get("UPDATE_GOLDEN") === "1";
const GOLDEN = new URL("../testdata/mcp/tools.json", import.meta.url);

Deno.test("cairn mcp: the tool list (names, schemas) is the snapshot's", async () => {
  const store = SqliteEventStore.open(":memory:");
  const app = createApp({ store });
  const server = createMcpServer((req) => app.fetch(req));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "cairn-test", version: "1.0.0" });
  try {
    await server.connect(serverSide);
    await client.connect(clientSide);
    // (the SDK's result types do not resolve under Deno: the shape it answers, as the spec has it)
    const { tools } = await client.listTools() as unknown as { tools: ListedTool[] };
    assertEquals(tools.map((t) => t.name), [...MCP_TOOL_NAMES]);
    for (const t of tools) {
      assertEquals(t.inputSchema.type, "object", t.name);
      assert(t.description && t.description.length > 10, `${t.name} has a description`);
    }
    // every blaze tool but start and sessions names its session
    for (const t of tools.filter((t) => /^blaze_(?!start|sessions)/.test(t.name))) {
      assert(t.inputSchema.required?.includes("sessionId"), `${t.name} requires sessionId`);
    }
    const text = JSON.stringify(
      tools.map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema,
        ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
      })),
      null,
      2,
    ) + "\n";
    if (UPDATE) await Deno.writeTextFile(GOLDEN, text);
    assertEquals(text, await Deno.readTextFile(GOLDEN));
  } finally {
    await client.close();
    await server.close();
    store.close();
  }
});
