/**
 * Every request example of the HTTP API page, docs/http-api.md (its ```http blocks: a method and path,
 * then the JSON body) is accepted: sent to the server where that needs no live browser session,
 * else parsed by the very schema the route checks the body with.
 *
 * @module
 */
import { assert, assertEquals, assertNotEquals } from "../_fixtures/assert.ts";
import { createApp } from "../../api/app.ts";
import { StartBody, ToolCallBody } from "../../api/blaze.ts";
import { playbackRegistry } from "../../api/playbacks.ts";
import { blazeRegistry } from "../../api/blaze.ts";
import { DriverError } from "../../drivers/driver.ts";
import { toolParams } from "../../runners/blaze/params.ts";
import { isToolName } from "../../runners/blaze/session.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { ROOT } from "../_fixtures/cli_run.ts";

interface Example {
  method: string;
  path: string;
  body: unknown;
}

function examples(readme: string): Example[] {
  return [...readme.matchAll(/```http\n(\w+) (\S+)\n([\s\S]*?)```/g)].map((m) => ({
    method: m[1]!,
    path: m[2]!,
    body: JSON.parse(m[3]!),
  }));
}

Deno.test("every request example in docs/http-api.md is accepted", async () => {
  const list = examples(await Deno.readTextFile(`${ROOT}docs/http-api.md`));
  assert(list.length >= 5, `${list.length} examples`);
  const store = SqliteEventStore.open(":memory:");
  // no browser: a body the route accepts gets as far as asking for one (502), never a 400
  const noBrowser = () => Promise.reject(new DriverError("no browser in this test"));
  blazeRegistry(store, { createDriver: noBrowser });
  playbackRegistry(store, { createDriver: noBrowser });
  const app = createApp({ store });
  try {
    for (const ex of list) {
      const tool = /^\/v1\/blaze\/sessions\/[^/]+\/tools(?:\/(\w+))?$/.exec(ex.path);
      if (tool) {
        // a tool call needs a live session: its body is checked as the session checks it
        const { tool: named, ...params } = tool[1] === undefined
          ? ToolCallBody.parse(ex.body) as Record<string, unknown>
          : { tool: tool[1], ...(ex.body as Record<string, unknown>) };
        assert(isToolName(String(named)), `${ex.path}: tool ${named}`);
        const parsed = toolParams("web")[named as "tap"].safeParse(params);
        assert(parsed.success, `${ex.path}: ${JSON.stringify(parsed.error?.issues)}`);
        continue;
      }
      if (ex.path === "/v1/blaze/sessions") {
        assert(StartBody.safeParse(ex.body).success, JSON.stringify(ex.body));
      }
      const res = await app.request(ex.path, {
        method: ex.method,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(ex.body),
      });
      const text = await res.text();
      assertNotEquals(res.status, 400, `${ex.method} ${ex.path}: ${text}`);
      assert(res.status < 500 || res.status === 502, `${ex.method} ${ex.path}: ${text}`);
      if (ex.path.startsWith("/v1/streams/")) assertEquals(res.status, 201, text);
    }
  } finally {
    await playbackRegistry(store).close();
    store.close();
  }
});
