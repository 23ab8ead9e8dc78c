import type { StoredEvent } from "../../../events/schemas.ts";
import { assertEquals, assertThrows } from "../../_fixtures/assert.ts";
import { evolveReport, projectReport } from "../../../engine/playback/report.ts";

const GOLDEN = new URL("../../testdata/playback/report_golden/", import.meta.url);

async function events(): Promise<StoredEvent[]> {
  const text = await Deno.readTextFile(new URL("events.jsonl", GOLDEN));
  return text.trim().split("\n").map((l) => JSON.parse(l) as StoredEvent);
}

Deno.test("projectReport() folds a stored playback stream into the golden 003 report", async () => {
  const expected = JSON.parse(await Deno.readTextFile(new URL("report.json", GOLDEN)));
  assertEquals(await projectReport(await events()), expected);
});

Deno.test("projectReport() is partial and running until PlaybackCompleted", async () => {
  const all = await events();
  const partial = (await projectReport(all.slice(0, 4)))!;
  assertEquals(partial.status, "running");
  assertEquals(partial.results.length, 2);
  assertEquals(partial.test_boundary?.ended_at, undefined);
});

Deno.test("evolveReport() refuses a stream that does not start with PlaybackStarted", async () => {
  const all = await events();
  assertThrows(() => evolveReport(undefined, all[1]!), Error, "must start with PlaybackStarted");
});

Deno.test("projectReport() counts the actions a stopped playback never played as skipped", async () => {
  const all = await events();
  const started = all[0]!;
  const firstDone = all.find((e) => e.type === "PlaybackActionCompleted")!;
  const end = all.at(-1)!;
  const stopped = [
    { ...started, data: { ...started.data as object, actionsTotal: 7, onError: "stop" } },
    { ...firstDone, data: { ...firstDone.data as object, status: "failed" } },
    { ...end, data: { ...end.data as object, status: "failed" } },
  ] as StoredEvent[];
  const report = (await projectReport(stopped))!;
  assertEquals(report.actions_failed, 1);
  assertEquals(report.actions_skipped, 6);
});

Deno.test("projectReport() leaves the page Cairn opened first out of the counts, with or without addedActions", async () => {
  const all = await events();
  const started = all[0]!;
  const done = all.find((e) => e.type === "PlaybackActionCompleted")!;
  const end = all.at(-1)!;
  const opened = { ...done, data: { ...done.data as object, index: 0, added: true } };
  const failed = {
    ...done,
    data: { ...done.data as object, index: 1, status: "failed", errorCode: "selector_not_found" },
  };
  const stream = (start: object) =>
    [
      { ...started, data: { ...started.data as object, actionsTotal: 3, ...start } },
      opened,
      failed,
      { ...end, data: { ...end.data as object, status: "failed" } },
    ] as StoredEvent[];
  for (const start of [{ addedActions: 1 }, {}]) { // {}: a stream written before addedActions
    const report = (await projectReport(stream(start)))!;
    assertEquals(report.actions_total, 2, JSON.stringify(start));
    assertEquals(report.actions_executed, 0);
    assertEquals(report.actions_failed, 1);
    assertEquals(report.actions_skipped, 1); // the one never played
    assertEquals(report.results[0]!.added, true);
  }
  // while it runs, a stream that says how many were added counts them out from the start
  const partial = (await projectReport(stream({ addedActions: 1 }).slice(0, 1)))!;
  assertEquals(partial.actions_total, 2);
});
