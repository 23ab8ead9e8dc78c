/**
 * Two `cairn serve` nodes on one PostgreSQL database (a throwaway cluster on 127.0.0.1): an
 * event appended through either node reaches the other node's SSE stream (LISTEN/NOTIFY wakes
 * it, then it reads by position), in position order, both ways.
 */
import { pgTestsSkipped, startCluster } from "../../events/postgres_cluster.ts";
import { assert, assertEquals } from "../_fixtures/assert.ts";
import { startServe } from "../_fixtures/cli_run.ts";

interface Seen {
  position: number;
  streamId: string;
}

/** Follows an SSE response, collecting its events; `waitFor` resolves when a position came. */
function follow(res: Response) {
  const seen: Seen[] = [];
  let wake = () => {};
  const done = (async () => {
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        let i;
        while ((i = buf.indexOf("\n\n")) >= 0) {
          const data = buf.slice(0, i).split("\n").find((l) => l.startsWith("data:"));
          buf = buf.slice(i + 2);
          if (data) seen.push(JSON.parse(data.slice(5)));
          wake();
        }
      }
    } catch {
      // aborted at the end of the test (or by its time limit)
    }
  })();
  return {
    seen,
    done,
    async waitFor(position: number): Promise<void> {
      while (!seen.some((e) => e.position === position)) {
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 100);
        });
      }
    },
  };
}

Deno.test({
  name: "two cairn serve nodes on one PostgreSQL database stream each other's appends over SSE",
  ignore: pgTestsSkipped(),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const cluster = await startCluster();
    const db = await cluster.createDatabase("nodes");
    const nodes = [] as Awaited<ReturnType<typeof startServe>>[];
    try {
      nodes.push(await startServe(["--db", db]));
      nodes.push(await startServe([], { CAIRN_DB: db }));
      const [a, b] = nodes as [typeof nodes[0], typeof nodes[0]];
      const post = async (node: typeof a, stream: string, index: number) => {
        const r = await fetch(`${node.url}/v1/streams/${stream}/events`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            events: [{ type: "StepStarted", data: { index, text: `step ${index}` } }],
          }),
        });
        const body = await r.json();
        assertEquals(r.status, 201, JSON.stringify(body));
        return body.positions[0] as number;
      };
      // each node follows the log from the start
      const ac = new AbortController();
      const limit = AbortSignal.any([ac.signal, AbortSignal.timeout(20_000)]);
      const [sseA, sseB] = await Promise.all(
        [a, b].map((n) =>
          fetch(`${n.url}/v1/events?from=1`, {
            headers: { accept: "text/event-stream" },
            signal: limit,
          })
        ),
      );
      assertEquals(sseB!.status, 200);
      const [onA, onB] = [follow(sseA!), follow(sseB!)];
      // each append, made on one node, is awaited on the other before the next is made
      let waited = 0;
      const positions: number[] = [];
      for (let i = 0; i < 6; i++) {
        const [writer, reader] = i % 2 === 0 ? [a, onB] : [b, onA];
        const t0 = performance.now();
        const p = await post(writer, `notes-n${i % 2}`, i);
        await reader.waitFor(p);
        waited += performance.now() - t0;
        positions.push(p);
      }
      assertEquals(positions, [1, 2, 3, 4, 5, 6]);
      await onA.waitFor(6);
      await onB.waitFor(6);
      ac.abort();
      await Promise.all([onA.done, onB.done]);
      for (const on of [onA, onB]) {
        assertEquals(on.seen.map((e) => e.position), positions);
        assertEquals(on.seen.map((e) => e.streamId), positions.map((_, i) => `notes-n${i % 2}`));
      }
      // woken by notifications: the 1 s fallback poll alone would take ~3 s for six round trips
      assert(waited < 1500, `six appends took ${waited.toFixed(0)} ms to reach the other node`);
      console.log(`six cross-node appends reached the other node in ${waited.toFixed(0)} ms`);
    } finally {
      for (const n of nodes) {
        n.child.kill("SIGTERM");
        await n.child.status;
        const err = await n.stderr;
        if (err.trim()) console.error(err);
      }
      await cluster.stop();
    }
  },
});
