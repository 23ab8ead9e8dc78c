/**
 * Per-call cost of a tap three ways, interleaved in one run on the same page (each in its own
 * headless Chromium): the driver's own tap (`ChromeDriver.tap`), a recorded blaze tap
 * (`BlazeSession.call("tap")`: the tap plus the screens and events it records), and the MCP
 * tool `blaze_tap` through the SDK's client and server (in-memory transport) and the HTTP route
 * in process, whose answer carries the snapshot diff the tap caused.
 *
 * Run: `deno run -A scripts/mcp_tap_overhead.ts [N]` (default 30 taps each).
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createApp } from "../api/app.ts";
import { blazeRegistry } from "../api/blaze.ts";
import { ChromeDriver } from "../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import { createMcpServer } from "../mcp/server.ts";
import { serveFolder } from "../tests/_fixtures/web_server.ts";

const N = Number(Deno.args[0] ?? 30);
const dir = await Deno.makeTempDir({ prefix: "cairn-mcp-bench-" });
const web = serveFolder();
const page = web.url + "login.html";
const store = SqliteEventStore.open(`${dir}/cairn.db`);
const registry = blazeRegistry(store, { createDriver: () => ChromeDriver.launch() });
const app = createApp({ store });
const server = createMcpServer((req) => app.fetch(req));
const [a, b] = InMemoryTransport.createLinkedPair();
const client = new Client({ name: "bench", version: "1" });
await server.connect(b);
await client.connect(a);
await client.listTools();

const driver = await ChromeDriver.launch();
await driver.navigate(page);
const direct = await registry.start({ url: page, prompt: "bench" });
type Answer = { structuredContent?: { sessionId?: string; diff?: string } };
const started = await client.callTool({
  name: "blaze_start",
  arguments: { url: page, prompt: "bench" },
}) as Answer;
const sessionId = String(started.structuredContent?.sessionId);
const at = { x: 60, y: 30 }; // the heading: a tap that changes nothing
await client.callTool({ name: "blaze_snapshot", arguments: { sessionId } });

const times = { driver: [] as number[], blaze: [] as number[], mcp: [] as number[] };
let diff = "";
for (let i = 0; i < N; i++) {
  let t = performance.now();
  await driver.tap(at);
  times.driver.push(performance.now() - t);
  t = performance.now();
  await direct.call("tap", at);
  times.blaze.push(performance.now() - t);
  t = performance.now();
  const r = await client.callTool({ name: "blaze_tap", arguments: { sessionId, ...at } }) as Answer;
  times.mcp.push(performance.now() - t);
  diff = String(r.structuredContent?.diff);
}
const median = (xs: number[]) => [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)]!;
const m = { driver: median(times.driver), blaze: median(times.blaze), mcp: median(times.mcp) };
console.log(`taps: ${N} each, interleaved; last MCP diff: ${JSON.stringify(diff.trim())}`);
console.log(`driver tap (ChromeDriver.tap):     median ${m.driver.toFixed(1)} ms`);
console.log(`blaze tap (BlazeSession.call):     median ${m.blaze.toFixed(1)} ms`);
console.log(`MCP blaze_tap (with its diff):     median ${m.mcp.toFixed(1)} ms`);
console.log(
  `MCP / blaze: ${(m.mcp / m.blaze).toFixed(2)}×; MCP / driver: ${(m.mcp / m.driver).toFixed(2)}×`,
);

await client.callTool({ name: "blaze_end", arguments: { sessionId } });
await registry.finish(direct.id, "completed");
await client.close();
await server.close();
await driver.close();
await web.close();
store.close();
await Deno.remove(dir, { recursive: true });
