/**
 * Playback workers on a PostgreSQL log (a throwaway cluster): `POST /v1/playbacks` queues,
 * `cairn serve --worker` nodes claim (`SKIP LOCKED`) and run each in their own Chromium, on
 * pages served from 127.0.0.1. Three workers share twenty playbacks, each run exactly once;
 * a worker SIGKILLed mid-run leaves its run to lease expiry, and another worker ends it
 * interrupted, while a run claimed by a worker that died before it started is queued again
 * and run. A validation is queued and run by a worker as well.
 */
import { pgTestsSkipped, startCluster } from "../../events/postgres_cluster.ts";
import { PostgresEventStore } from "../../events/postgres_event_store.ts";
import { LEASE_EXPIRED, RunQueue } from "../../events/postgres_queue.ts";
import type { StoredEvent } from "../../events/schemas.ts";
import { serveFolder } from "../_fixtures/web_server.ts";
import { killChromiumUnder, type ServeChild, startServe } from "../_fixtures/cli_run.ts";
import { assert, assertEquals } from "../_fixtures/assert.ts";
import { ChromeDriver } from "../../drivers/chrome/chrome_driver.ts";
import { blazeShop } from "../_fixtures/validation_capture.ts";
import { serveVaryingShop } from "../_fixtures/validation_server.ts";

async function collect(it: AsyncIterable<StoredEvent>): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

/** Waits (bounded) until `check` holds. */
async function until(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function stopAll(nodes: ServeChild[], tmp: string): Promise<void> {
  for (const n of nodes) {
    try {
      n.child.kill("SIGTERM");
    } catch { /* exited */ }
    await n.child.status;
    await n.stderr;
  }
  await killChromiumUnder(tmp);
}

const post = async (node: ServeChild, body: unknown) => {
  const r = await fetch(`${node.url}/v1/playbacks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await r.json();
  assertEquals(r.status, 202, JSON.stringify(json));
  assertEquals(json.status, "queued");
  return json.playbackId as string;
};

Deno.test({
  name: "three serve --worker nodes share twenty queued playbacks: each runs exactly once",
  ignore: pgTestsSkipped(),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const cluster = await startCluster();
    const tmp = await Deno.makeTempDir({ prefix: "cairn_workers_" });
    const web = serveFolder();
    const nodes: ServeChild[] = [];
    const db = await cluster.createDatabase("work");
    const store = await PostgresEventStore.connect(db);
    try {
      // a plain node takes the requests; three workers run them
      nodes.push(await startServe(["--db", db], { TMPDIR: tmp }));
      const ids = [];
      for (let i = 0; i < 20; i++) {
        ids.push(
          await post(nodes[0]!, {
            actions: [{
              action: "navigate",
              url: `${web.url}login.html?run=${i}`,
              timestamp_ms: 0,
            }],
          }),
        );
      }
      for (let w = 0; w < 3; w++) {
        nodes.push(await startServe(["--db", db, "--worker"], { TMPDIR: tmp }));
      }
      const queue = new RunQueue(store);
      await until("twenty runs done", 180_000, async () => {
        const runs = await queue.all();
        return runs.filter((r) => r.status === "done").length === 20;
      });
      const runs = await queue.all();
      assertEquals(runs.map((r) => r.id).sort(), [...ids].sort());
      assert(runs.every((r) => r.attempts === 1 && r.error === null), JSON.stringify(runs));
      const workers = new Set(runs.map((r) => r.worker));
      assert(workers.size >= 2, `one worker ran everything: ${[...workers]}`);
      for (const id of ids) {
        const events = await collect(store.readStream(`playback-${id}`));
        const types = events.map((e) => e.type);
        assertEquals(types.filter((t) => t === "PlaybackStarted").length, 1, `${id}: ${types}`);
        assertEquals(types.filter((t) => t === "PlaybackCompleted").length, 1, `${id}: ${types}`);
        assertEquals((events.at(-1)!.data as { status?: string }).status, "completed");
      }
      // the report reads the same from the node that queued it
      const report = await (await fetch(`${nodes[0]!.url}/v1/playbacks/${ids[7]}`)).json();
      assertEquals(report.status, "completed");
    } finally {
      await stopAll(nodes, tmp);
      await store.end();
      await web.close();
      await cluster.stop();
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "a worker SIGKILLed mid-run: its run ends interrupted at lease expiry; an unstarted claim is run again",
  ignore: pgTestsSkipped(),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const cluster = await startCluster();
    const tmp = await Deno.makeTempDir({ prefix: "cairn_workers_" });
    const web = serveFolder();
    const nodes: ServeChild[] = [];
    const db = await cluster.createDatabase("kill");
    const store = await PostgresEventStore.connect(db);
    try {
      const lease = ["--lease-ms", "3000"];
      const front = await startServe(["--db", db], { TMPDIR: tmp });
      nodes.push(front);
      const doomed = await startServe(["--db", db, "--worker", ...lease], { TMPDIR: tmp });
      const long = await post(front, {
        actions: [
          { action: "navigate", url: web.url + "login.html", timestamp_ms: 0 },
          { action: "navigate", url: web.url + "cart.html", timestamp_ms: 60_000 },
        ],
        timing: "recorded",
      });
      await until(
        "the playback to start",
        60_000,
        async () =>
          (await collect(store.readStream(`playback-${long}`))).some((e) =>
            e.type === "PlaybackActionCompleted"
          ),
      );
      doomed.child.kill("SIGKILL");
      await doomed.child.status;
      await doomed.stderr;
      await killChromiumUnder(tmp);
      const queue = new RunQueue(store);
      assertEquals((await queue.get(long))!.status, "running");
      // a worker that claimed a run and died before it started it: a claim nobody renews
      const other = await post(front, {
        actions: [{ action: "navigate", url: web.url + "login.html", timestamp_ms: 0 }],
      });
      const dead = await queue.claim("dead-worker", 1000);
      assertEquals(dead?.id, other);
      // a second worker takes both back once their leases expire
      nodes.push(await startServe(["--db", db, "--worker", ...lease], { TMPDIR: tmp }));
      await until("both runs taken back", 60_000, async () => {
        const [a, b] = [await queue.get(long), await queue.get(other)];
        return a!.status === "interrupted" && b!.status === "done";
      });
      const ended = await collect(store.readStream(`playback-${long}`));
      assertEquals(ended.filter((e) => e.type === "PlaybackStarted").length, 1);
      assertEquals(ended.at(-1)!.type, "PlaybackCompleted");
      assertEquals((ended.at(-1)!.data as { error?: string }).error, LEASE_EXPIRED);
      const rerun = await collect(store.readStream(`playback-${other}`));
      assertEquals(rerun.filter((e) => e.type === "PlaybackStarted").length, 1);
      assertEquals((rerun.at(-1)!.data as { status?: string }).status, "completed");
      assertEquals((await queue.get(other))!.attempts, 2);
    } finally {
      await stopAll(nodes, tmp);
      await store.end();
      await web.close();
      await cluster.stop();
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

Deno.test({
  name: "a validation on a PostgreSQL log is queued and run by a serve --worker node",
  ignore: pgTestsSkipped(),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const cluster = await startCluster();
    const tmp = await Deno.makeTempDir({ prefix: "cairn_workers_" });
    const shop = await serveVaryingShop();
    const nodes: ServeChild[] = [];
    const db = await cluster.createDatabase("validate");
    const store = await PostgresEventStore.connect(db);
    const capture = await ChromeDriver.launch();
    try {
      const sessionId = await blazeShop(capture, store, shop.url, { slot: true });
      await capture.close();
      const front = await startServe(["--db", db], { TMPDIR: tmp });
      nodes.push(front);
      const res = await fetch(`${front.url}/v1/sessions/${sessionId}/validations`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: shop.url, policy: "authoring", maxIterations: 2 }),
      });
      const started = await res.json();
      assertEquals(res.status, 202, JSON.stringify(started));
      assertEquals(started.status, "queued");
      const id = started.validationId as string;
      // nobody runs it until a worker comes
      const waiting = await (await fetch(`${front.url}/v1/validations/${id}`)).json();
      assertEquals(waiting.status, "queued");
      nodes.push(await startServe(["--db", db, "--worker"], { TMPDIR: tmp }));
      let report = waiting;
      await until("the validation to end", 120_000, async () => {
        report = await (await fetch(`${front.url}/v1/validations/${id}`)).json();
        return report.status !== "queued" && report.status !== "running";
      });
      assertEquals(report.status, "unstable", JSON.stringify(report).slice(0, 400));
      assertEquals(report.sessionId, sessionId);
      const run = await new RunQueue(store).get(id);
      assertEquals([run!.status, run!.attempts, run!.error], ["done", 1, null]);
    } finally {
      await capture.close().catch(() => {});
      await stopAll(nodes, tmp);
      await store.end();
      await shop.close();
      await cluster.stop();
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
