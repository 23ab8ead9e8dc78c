/**
 * The fuzzers of `scripts/` in a bounded short form: the ingest fuzzer (mutants of every
 * format `cairn ingest` reads, file references to devices, FIFOs and outside paths among them,
 * into a real SQLite file) and the HTTP fuzzer (mutated bodies for every write endpoint of a
 * real server on 127.0.0.1, with a real Chromium): 0 crashes, 0 hangs, 0 partial appends, 0
 * answers of 500 or more, 0 stack traces in bodies. The full runs (500 a format, 500 an
 * endpoint) are `deno run -A scripts/fuzz_ingest.ts` and `scripts/fuzz_http.ts`.
 */
import { assert, assertEquals } from "../_fixtures/assert.ts";
import { fuzzIngest } from "../../scripts/fuzz_ingest.ts";
import { fuzzHttp } from "../../scripts/fuzz_http.ts";

Deno.test("ingest fuzzer, short form: every format, 0 crashes, 0 hangs, 0 partial appends", async () => {
  const s = await fuzzIngest({ perFormat: 60, seed: 23 });
  assertEquals(Object.keys(s.mutants).sort(), [
    "capture",
    "chrome-recorder",
    "events",
    "recording_v1",
  ]);
  for (const n of Object.values(s.mutants)) assertEquals(n, 60);
  assert(s.stored > 0 && s.refused > 0, `both outcomes happen: ${JSON.stringify(s)}`);
  assertEquals(s.crashes, []);
  assertEquals([s.hangs, s.partialAppends], [0, 0]);
});

Deno.test("HTTP fuzzer, short form: every write endpoint, no answer of 500 or more (a url the browser cannot open is 422), no stack trace, no partial append", async () => {
  const s = await fuzzHttp({ perEndpoint: 25, seed: 23 });
  assertEquals(Object.keys(s.requests).length, 9, JSON.stringify(s.requests));
  for (const n of Object.values(s.requests)) assert(n >= 25, JSON.stringify(s.requests));
  assertEquals(s.serverErrors, []);
  // every unopenable url given to a blaze start, unmutated: 422 navigation_failed
  assert(s.unopenable.sent >= 9, JSON.stringify(s.unopenable));
  assertEquals(s.unopenable.refused422, s.unopenable.sent);
  assertEquals(s.stackTraces, []);
  assertEquals(s.notJson, []);
  assertEquals(s.partialAppends, 0);
  assert((s.statuses["400"] ?? 0) > 0, "bad bodies are refused");
});
