/**
 * The HTTP fuzzer: mutated bodies for every write endpoint of the API, sent to a real server
 * (the app on 127.0.0.1) over a real SQLite file, its playbacks, validations and blaze sessions
 * each in a real Chromium. Every answer must be below 500, JSON, and free of stack traces; a
 * refused append must leave its stream as it was. Blaze starts, playbacks and validations are
 * also given urls the browser cannot open (a closed or blocked port, a name that does not
 * resolve, TLS to a plain server, a download, a redirect loop, a redirect to `file:`): a start
 * answers 422 `navigation_failed`, never 502. A bounded short run is part of the tests
 * (`tests/security/security_fuzz_test.ts`).
 *
 *     deno run -A scripts/fuzz_http.ts [--per-endpoint 500] [--seed 1]
 *
 * @module
 */
import { createApp } from "../api/app.ts";
import { blazeRegistry } from "../api/blaze.ts";
import { playbackRegistry } from "../api/playbacks.ts";
import { validationRegistry } from "../api/validations.ts";
import { ingestFile } from "../cli/ingest.ts";
import { ChromeDriver } from "../drivers/chrome/chrome_driver.ts";
import { closeLaunchedBrowsers } from "../drivers/chrome/launch.ts";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import { mutateJson, mutateText, Prng } from "./_fuzz_mutate.ts";

const CAPTURE = new URL("../examples/web_checkout.capture.json", import.meta.url).pathname;

/** What one run found. */
export interface HttpFuzzSummary {
  requests: Record<string, number>;
  statuses: Record<string, number>;
  /** Answers of 500 or more (none may happen). */
  serverErrors: { endpoint: string; status: number; body: string }[];
  /**
   * Blaze starts sent a url the browser cannot open, how many got 422 navigation_failed, and
   * the answers that did not.
   */
  unopenable: {
    sent: number;
    refused422: number;
    other: { url: string; status: number; body: string }[];
  };
  stackTraces: { endpoint: string; body: string }[];
  notJson: { endpoint: string; status: number; body: string }[];
  partialAppends: number;
}

/** A line of a stack trace as V8 prints it. */
const STACK = /\bat (?:async )?\S+ \(?(?:file|ext|node|https?):[^\s)]*:\d+:\d+\)?/;

/** How long one request may take. */
const REQUEST_MS = 30_000;

/**
 * Runs the fuzzer.
 *
 * @param options bodies per endpoint, the PRNG seed
 * @returns the counts
 */
export async function fuzzHttp(
  options: { perEndpoint?: number; seed?: number } = {},
): Promise<HttpFuzzSummary> {
  const per = options.perEndpoint ?? 500;
  const r = new Prng(options.seed ?? 1);
  const dir = await Deno.makeTempDir({ prefix: "cairn-fuzz-http-" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const page = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/download") {
      return new Response("a,b", {
        headers: {
          "content-type": "text/csv",
          "content-disposition": "attachment; filename=a.csv",
        },
      });
    }
    if (path === "/to-file") {
      return new Response(null, { status: 302, headers: { location: "file:///etc/passwd" } });
    }
    if (path === "/loop") {
      return new Response(null, { status: 302, headers: { location: "/loop" } });
    }
    return new Response(
      '<!doctype html><input aria-label="Email"><button>Go</button><p id="out">hi</p>',
      { headers: { "content-type": "text/html" } },
    );
  });
  const pageUrl = `http://127.0.0.1:${page.addr.port}/`;
  // a server that closes every connection without a word (a port let go could be taken by
  // another process on the machine meanwhile: this one stays the fuzzer's)
  const mute = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const mutePort = (mute.addr as Deno.NetAddr).port;
  (async () => {
    for await (const conn of mute) conn.close();
  })().catch(() => {});
  /** Urls a browser cannot open: the client's input, never the server's failure. */
  const unopenable = [
    `http://127.0.0.1:${mutePort}/`,
    "http://127.0.0.1:1/",
    `https://127.0.0.1:${page.addr.port}/`,
    "http://nosuch.invalid/",
    "http://[::1]:1/",
    `http://user:pw@127.0.0.1:${mutePort}/a?b#c`,
    `${pageUrl}download`,
    `${pageUrl}loop`,
    `${pageUrl}to-file`,
  ];
  // each run its own Chromium, as serve launches them (a tab of a shared browser goes to the
  // background when another opens, and a background tab's screenshots wait forever)
  const createDriver = () => ChromeDriver.launch();
  const blaze = blazeRegistry(store, { createDriver, settleMs: 20, callTimeoutMs: 10_000 });
  const playbacks = playbackRegistry(store, {
    createDriver,
    screenshotDir: `${dir}/shots`,
    locateWaitMs: 200,
  });
  const validations = validationRegistry(store, { createDriver });
  const app = createApp({ store });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const base = `http://127.0.0.1:${server.addr.port}`;
  const summary: HttpFuzzSummary = {
    requests: {},
    statuses: {},
    serverErrors: [],
    unopenable: { sent: 0, refused422: 0, other: [] },
    stackTraces: [],
    notJson: [],
    partialAppends: 0,
  };
  const send = async (
    endpoint: string,
    path: string,
    body: string,
    contentType = "application/json",
  ): Promise<{ status: number; text: string }> => {
    summary.requests[endpoint] = (summary.requests[endpoint] ?? 0) + 1;
    const res = await fetch(base + path, {
      method: "POST",
      headers: { "content-type": contentType },
      body,
      signal: AbortSignal.timeout(REQUEST_MS),
    });
    const text = await res.text();
    summary.statuses[res.status] = (summary.statuses[res.status] ?? 0) + 1;
    if (res.status >= 500) {
      summary.serverErrors.push({ endpoint, status: res.status, body: text.slice(0, 300) });
    }
    if (STACK.test(text)) summary.stackTraces.push({ endpoint, body: text.slice(0, 300) });
    try {
      JSON.parse(text);
    } catch {
      summary.notJson.push({ endpoint, status: res.status, body: text.slice(0, 200) });
    }
    return { status: res.status, text };
  };
  const streamLength = async (streamId: string) => {
    let n = 0;
    for await (const _ of store.readStream(streamId)) n++;
    return n;
  };
  try {
    const sessionId = (await ingestFile(store, CAPTURE)).sessionId;
    await store.append("session-fz", [
      { type: "SessionStarted", data: { sessionId: "fz", mode: "agent", platform: "web" } },
    ]);
    const started = await send(
      "POST /v1/blaze/sessions",
      "/v1/blaze/sessions",
      JSON.stringify({ url: pageUrl, prompt: "fuzz" }),
    );
    let blazeId = started.status === 201 ? JSON.parse(started.text).sessionId as string : "none";
    const seeds: {
      endpoint: string;
      path: () => string;
      seed: () => unknown;
      stream?: () => string;
      after?: (status: number, text: string) => Promise<void>;
    }[] = [
      {
        endpoint: "POST /v1/streams/:id/events",
        path: () =>
          `/v1/streams/${r.pick(["session-fz", "session-new", "playback-fz", "x"])}/events`,
        stream: () => "session-fz",
        seed: () => ({
          events: [
            { type: "StepStarted", data: { index: 0, text: "Open" } },
            {
              type: "ActionPerformed",
              data: {
                actionId: "a1",
                kind: "tap",
                point: { x: 1, y: 2 },
                source: "agent",
                toolParams: { ref: "k1" },
              },
            },
            { type: "ActionCompleted", data: { actionId: "a1", ok: true, durationMs: 1 } },
          ],
          expectedVersion: 1,
        }),
      },
      {
        endpoint: "POST /v1/blobs",
        path: () => "/v1/blobs",
        seed: () => ({ any: "json blob", n: [1, 2, 3] }),
      },
      {
        endpoint: "POST /v1/playbacks",
        path: () => "/v1/playbacks",
        seed: () => ({
          actions: [
            { action: "navigate", url: pageUrl },
            { action: "read_text", selector: "#out", store_as: "x" },
          ],
          memory: { target: pageUrl },
        }),
      },
      {
        endpoint: "POST /v1/playbacks/:id/stop",
        path: () => `/v1/playbacks/${r.pick(["pb-x", "nosuch", "%2e%2e"])}/stop`,
        seed: () => ({}),
      },
      {
        endpoint: "POST /v1/sessions/:id/validations",
        path: () => `/v1/sessions/${r.pick([sessionId, "nosuch"])}/validations`,
        seed: () => ({ url: pageUrl, policy: "ci", max_iterations: 1 }),
      },
      {
        endpoint: "POST /v1/validations/:id/stop",
        path: () => `/v1/validations/${r.pick(["val-x", "nosuch"])}/stop`,
        seed: () => ({}),
      },
      {
        endpoint: "POST /v1/blaze/sessions",
        path: () => "/v1/blaze/sessions",
        seed: () => ({
          url: r.next() < 0.4 ? r.pick(unopenable) : pageUrl,
          prompt: "fuzz",
          memory: { a: "b" },
        }),
        after: async (status, text) => {
          // a session the fuzzer started is ended at once (one browser tab each)
          if (status !== 201) return;
          const id = JSON.parse(text).sessionId;
          await send(
            "POST /v1/blaze/sessions/:id/tools/:tool",
            `/v1/blaze/sessions/${id}/tools/end`,
            "{}",
          );
        },
      },
      {
        endpoint: "POST /v1/blaze/sessions/:id/tools/:tool",
        path: () =>
          `/v1/blaze/sessions/${blazeId}/tools/${
            r.pick([
              "snapshot",
              "tap",
              "type",
              "press",
              "scroll",
              "assert",
              "read",
              "memory",
              "step",
              "nosuch",
            ])
          }`,
        seed: () =>
          r.pick([
            { ref: "k1", text: "hello", step: "Type" },
            { x: 10, y: 10 },
            { key: "Tab" },
            { direction: "down", distance: 100 },
            { op: "set", name: "n", value: "v", secret: true },
            { text: "a step" },
            { bounds: true, depth: 3 },
          ]),
        after: async (status) => {
          if (status !== 404 && status !== 409) return;
          const again = await send(
            "POST /v1/blaze/sessions",
            "/v1/blaze/sessions",
            JSON.stringify({ url: pageUrl, prompt: "fuzz" }),
          );
          if (again.status === 201) blazeId = JSON.parse(again.text).sessionId;
        },
      },
      {
        endpoint: "POST /v1/record/:id/stop",
        path: () => `/v1/record/${r.pick(["rec-x", "nosuch"])}/stop`,
        seed: () => ({}),
      },
    ];
    const refs = [
      pageUrl,
      "file:///etc/passwd",
      "/dev/zero",
      "../../etc/passwd",
      "{{target}}",
      ...unopenable,
    ];
    // every url a browser cannot open, once unmutated: a start answers 422 navigation_failed
    for (const url of unopenable) {
      summary.unopenable.sent++;
      const { status, text } = await send(
        "POST /v1/blaze/sessions",
        "/v1/blaze/sessions",
        JSON.stringify({ url, prompt: "fuzz" }),
      );
      if (status === 422 && JSON.parse(text).error?.code === "navigation_failed") {
        summary.unopenable.refused422++;
      } else {
        summary.unopenable.other.push({ url, status, body: text.slice(0, 300) });
      }
      if (status === 201) {
        const id = JSON.parse(text).sessionId;
        await send(
          "POST /v1/blaze/sessions/:id/tools/:tool",
          `/v1/blaze/sessions/${id}/tools/end`,
          "{}",
        );
      }
    }
    for (const s of seeds) {
      for (let i = 0; i < per; i++) {
        const path = s.path();
        const roll = r.next();
        const body = roll < 0.1
          ? mutateText(r, JSON.stringify(s.seed()))
          : roll < 0.13
          ? ""
          : mutateJson(r, s.seed(), refs);
        const contentType = r.next() < 0.03
          ? r.pick([
            "text/plain",
            "application/x-www-form-urlencoded",
            "application/json; charset=utf-8",
          ])
          : "application/json";
        const streamId = path.match(/^\/v1\/streams\/([^/]+)\/events$/)?.[1];
        const before = streamId ? await streamLength(streamId) : 0;
        const { status, text } = await send(s.endpoint, path, body, contentType);
        if (streamId && status >= 400 && (await streamLength(streamId)) !== before) {
          summary.partialAppends++;
        }
        await s.after?.(status, text);
      }
    }
  } finally {
    await blaze.closeAll().catch(() => {});
    await playbacks.close?.().catch(() => {});
    await validations.close?.().catch(() => {});
    await server.shutdown();
    await page.shutdown();
    mute.close();
    await closeLaunchedBrowsers();
    store.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  return summary;
}

if (import.meta.main) {
  const arg = (name: string, fallback: number) => {
    const i = Deno.args.indexOf(`--${name}`);
    return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
  };
  const started = performance.now();
  const s = await fuzzHttp({ perEndpoint: arg("per-endpoint", 500), seed: arg("seed", 1) });
  console.log(
    JSON.stringify({ ...s, seconds: Math.round((performance.now() - started) / 1000) }, null, 2),
  );
  const bad = s.serverErrors.length + s.stackTraces.length + s.notJson.length + s.partialAppends +
    (s.unopenable.sent - s.unopenable.refused422);
  Deno.exit(bad === 0 ? 0 : 1);
}
