/**
 * The answers of runs queued on a shared (PostgreSQL) log, before any worker starts them, fit
 * their schemas: `POST /v1/playbacks` and `GET /v1/playbacks/:id`, `POST
 * /v1/sessions/:id/validations` and `GET /v1/validations/:id` against `/openapi.json`, and the
 * MCP tool `playback_results` against the output schema it lists (a real MCP client, which checks
 * it too). No browser: nobody runs them.
 *
 * @module
 */
import { Ajv } from "ajv/dist/ajv.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { assert, assertEquals } from "../_fixtures/assert.ts";
import { answerChecker } from "../_fixtures/openapi_answers.ts";
import { createApp } from "../../api/app.ts";
import { pgTestsSkipped, startCluster } from "../../events/postgres_cluster.ts";
import { PostgresEventStore } from "../../events/postgres_event_store.ts";
import { createMcpServer } from "../../mcp/server.ts";

Deno.test({
  name: "a playback and a validation queued on a PostgreSQL log answer their queued schemas",
  ignore: pgTestsSkipped(),
  async fn() {
    const cluster = await startCluster();
    const store = await PostgresEventStore.connect(await cluster.createDatabase("queued"));
    const app = createApp({ store });
    const send = async (method: string, path: string, body?: unknown) => {
      const res = await app.request(path, {
        method,
        ...(body === undefined
          ? {}
          : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
      });
      return { status: res.status, json: await res.json() };
    };
    const server = createMcpServer((req) => app.fetch(req));
    const client = new Client({ name: "cairn-queued-test", version: "1.0.0" });
    try {
      const fitsSchema = answerChecker((await send("GET", "/openapi.json")).json);

      const playback = await send("POST", "/v1/playbacks", {
        actions: [{ action: "navigate", url: "https://example.com/" }],
      });
      assertEquals(playback.status, 202, JSON.stringify(playback.json));
      assertEquals(playback.json.status, "queued");
      fitsSchema(playback.json, "/v1/playbacks", "post", "202");
      const playbackId = playback.json.playbackId as string;
      const waiting = await send("GET", `/v1/playbacks/${playbackId}`);
      assertEquals(waiting.json, { status: "queued", playbackId, attempts: 0 });
      fitsSchema(waiting.json, "/v1/playbacks/{id}", "get", "200");

      await store.append("session-s1", [{
        type: "SessionStarted",
        data: { sessionId: "s1", mode: "human", platform: "web", url: "https://example.com/" },
      }]);
      const validation = await send("POST", "/v1/sessions/s1/validations", { policy: "ci" });
      assertEquals(validation.status, 202, JSON.stringify(validation.json));
      fitsSchema(validation.json, "/v1/sessions/{id}/validations", "post", "202");
      const validationId = validation.json.validationId as string;
      const report = await send("GET", `/v1/validations/${validationId}`);
      assertEquals(report.json, { status: "queued", validationId, attempts: 0 });
      fitsSchema(report.json, "/v1/validations/{id}", "get", "200");

      // MCP: the queued stub fits playback_results' output schema (the client checks it too)
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      await client.connect(clientSide);
      const result = await client.callTool({
        name: "playback_results",
        arguments: { playbackId },
      }) as { isError?: boolean; structuredContent?: Record<string, unknown> };
      assert(!result.isError, JSON.stringify(result));
      assertEquals(result.structuredContent, waiting.json);
      const { tools } = await client.listTools() as unknown as {
        tools: { name: string; outputSchema?: Record<string, unknown> }[];
      };
      const listed = tools.find((t) => t.name === "playback_results")?.outputSchema;
      assert(listed, "playback_results lists an output schema");
      const check = new Ajv({ strict: false, allErrors: true }).compile(listed);
      assert(check(result.structuredContent), JSON.stringify(check.errors));
      assert(!check({ ...result.structuredContent, attempts: "0" }), "attempts is a number");
      // and the queued validation's stub fits validation_results'
      const queued = await client.callTool({
        name: "validation_results",
        arguments: { validationId },
      }) as { isError?: boolean; structuredContent?: Record<string, unknown> };
      assert(!queued.isError, JSON.stringify(queued));
      assertEquals(queued.structuredContent, report.json);
      const listedValidation = tools.find((t) => t.name === "validation_results")?.outputSchema;
      assert(listedValidation, "validation_results lists an output schema");
      const checkValidation = new Ajv({ strict: false, allErrors: true }).compile(listedValidation);
      assert(checkValidation(queued.structuredContent), JSON.stringify(checkValidation.errors));
      assert(!checkValidation({ ...queued.structuredContent, status: "running" }), "not a report");
    } finally {
      await client.close();
      await store.end();
      await cluster.stop();
    }
  },
});
