/**
 * `cairn mcp`'s `playback_start` reads its `trailFile` by a capture's file rules, as the SDK's own
 * client sees it: `/dev/zero`, a FIFO, a folder and a file over 64 MiB are each an MCP tool error
 * naming `trailFile` and the path, answered at once, the server alive after them; a regular trail
 * file plays (a real Chromium on a 127.0.0.1 page). The server is watched: past 1 GiB of memory or
 * 20 s for an answer it is killed and the test fails, so the test ends by itself.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { assert, assertEquals } from "../_fixtures/assert.ts";
import { ROOT } from "../_fixtures/cli_run.ts";

interface ToolAnswer {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

const ANSWER_MS = 20_000;
const MAX_RSS_KB = 1024 * 1024;

function rssKb(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    return Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  } catch {
    return 0; // it has ended
  }
}

const text = (a: ToolAnswer) => a.content.map((c) => c.text ?? "").join("\n");

Deno.test({
  name:
    "cairn mcp: playback_start's trailFile is read as a regular file within the size limit; a device, FIFO, folder or big file is a tool error naming trailFile",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "cairn-mcp-trail-file-" });
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      () =>
        new Response('<p id="greeting">hello from the page</p>', {
          headers: { "content-type": "text/html" },
        }),
    );
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "-q", "-A", `${ROOT}main.ts`, "mcp", "--db", `${dir}/cairn.db`],
      cwd: ROOT,
      env: { ...Deno.env.toObject(), NO_COLOR: "1" },
      stderr: "inherit",
    });
    const client = new Client({ name: "cairn-test", version: "1.0.0" });
    let killed: string | undefined;
    let watching = true;
    try {
      await client.connect(transport);
      await client.listTools();
      const pid = transport.pid!;
      // the watchdog: a server that reads a device grows without end
      const watchdog = (async () => {
        while (watching) {
          if (rssKb(pid) > MAX_RSS_KB) {
            killed = `grew past ${MAX_RSS_KB / 1024} MiB`;
            Deno.kill(pid, "SIGKILL");
            return;
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      const call = (args: Record<string, unknown>) =>
        client.callTool({ name: "playback_start", arguments: args }, undefined, {
          timeout: ANSWER_MS,
        }) as Promise<ToolAnswer>;

      const fifo = `${dir}/pipe.trail.yaml`;
      const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
      assertEquals(made.code, 0);
      const big = `${dir}/big.trail.yaml`;
      await Deno.writeTextFile(big, "");
      await Deno.truncate(big, 64 * 2 ** 20 + 1); // sparse: nothing of it is written
      const cases: [string, string][] = [
        ["/dev/zero", "/dev/zero: is a device, not a file"],
        [fifo, `${fifo}: is a FIFO, not a file`],
        [dir, `${dir}: is a folder; name a trail file`],
        [big, `${big}: 67108865 bytes, over the limit of 64 MiB per file (--max-file-size)`],
        [`${dir}/none.trail.yaml`, `${dir}/none.trail.yaml: no such file`],
      ];
      for (const [file, why] of cases) {
        const started = performance.now();
        const answer = await call({ trailFile: file }).catch((err) => {
          throw new Error(`${file}: ${killed ?? (err as Error).message}`);
        });
        assert(answer.isError, `${file}: ${text(answer)}`);
        assertEquals(text(answer), `invalid_request: trailFile: ${why}`, file);
        assert(performance.now() - started < ANSWER_MS, `${file} answered at once`);
      }

      // control: a regular trail file is read and played to the end
      const ok = `${dir}/ok.trail.yaml`;
      await Deno.writeTextFile(
        ok,
        "config:\n  platform: web\n" +
          "trail:\n  - step: read the page\n    recording:\n" +
          `      - navigate: http://127.0.0.1:${server.addr.port}/\n` +
          '      - assertText: { selector: { id: greeting }, equals: "hello from the page" }\n',
      );
      const play = await call({ trailFile: ok, timeoutMs: 10_000 });
      assert(!play.isError, text(play));
      const playbackId = String(play.structuredContent?.playbackId);
      let report: Record<string, unknown> | undefined;
      for (let i = 0; i < 300; i++) {
        report = (await client.callTool({
          name: "playback_results",
          arguments: { playbackId },
        }) as ToolAnswer).structuredContent;
        if (report?.status !== "running") break;
        await new Promise((r) => setTimeout(r, 200));
      }
      assertEquals(report?.status, "completed", JSON.stringify(report));
      watching = false;
      await watchdog;
      assertEquals(killed, undefined);
    } finally {
      watching = false;
      await client.close().catch(() => {});
      await server.shutdown();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
