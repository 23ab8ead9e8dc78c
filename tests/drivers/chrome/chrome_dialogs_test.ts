/**
 * JavaScript dialogs in real headless Chromium (`tests/testdata/web/dialogs.html` served on
 * 127.0.0.1): the Chrome driver answers each at once — an alert accepted, a confirm, a prompt
 * and a beforeunload dismissed — so no command waits on an open dialog, and the driver, the
 * playback runner and the human recorder all go on. Every step that would hang on an
 * unanswered dialog runs under a deadline, so a regression fails instead of hanging.
 */
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { HumanRecorder } from "../../../drivers/chrome/human_recorder.ts";
import { DriverError } from "../../../drivers/driver.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { withDeadline } from "../../../drivers/with_deadline.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { center } from "../../../engine/screens/ui_node.ts";
import { assert, assertEquals, assertRejects } from "../../_fixtures/assert.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

/** Longer than any of these steps takes with the dialog answered. */
const STEP_MS = 5_000;

function bounded<T>(what: string, work: Promise<T>): Promise<T> {
  return withDeadline(work, STEP_MS, () => new Error(`${what} hung on an open dialog`));
}

async function withPage(
  fn: (d: ChromeDriver, url: string, store: SqliteEventStore) => Promise<void>,
): Promise<void> {
  const server = serveFolder();
  const store = SqliteEventStore.open(":memory:");
  const driver = await ChromeDriver.launch({ followTabs: "all" });
  try {
    await fn(driver, server.url + "dialogs.html", store);
  } finally {
    await driver.close();
    store.close();
    await server.close();
  }
}

async function tapButton(d: ChromeDriver, css: string): Promise<void> {
  const [button] = await d.find({ using: "css", value: css });
  assert(button, `no ${css}`);
  await bounded(`tap ${css}`, d.tap(center(button.bounds)));
}

async function resultText(d: ChromeDriver): Promise<string | undefined> {
  const [p] = await bounded("read #result", d.find({ using: "css", value: "#result" }));
  return p?.text;
}

Deno.test("ChromeDriver accepts an alert, dismisses confirm, prompt and beforeunload, and reports each", async () => {
  await withPage(async (d, url) => {
    await d.navigate(url);
    await tapButton(d, "#alert");
    assertEquals(await resultText(d), "alert done");
    await tapButton(d, "#confirm");
    assertEquals(await resultText(d), "confirm false");
    await tapButton(d, "#prompt");
    assertEquals(await resultText(d), "prompt null");
    assertEquals(d.takeDialogs(), [
      { type: "alert", message: "Saved", response: "accepted", tabId: "tab-1" },
      { type: "confirm", message: "Delete everything?", response: "dismissed", tabId: "tab-1" },
      { type: "prompt", message: "Your name?", response: "dismissed", tabId: "tab-1" },
    ]);
    assertEquals(d.takeDialogs(), [], "taking empties the list");

    await tapButton(d, "#guard");
    await assertRejects(
      () => bounded("navigate away", d.navigate(url.replace("dialogs.html", "login.html"))),
      DriverError,
      "ERR_ABORTED",
    );
    assertEquals(await d.url(), url, "a dismissed beforeunload keeps the page");
    assertEquals(d.takeDialogs(), [
      { type: "beforeunload", message: "", response: "dismissed", tabId: "tab-1" },
    ]);
  });
});

Deno.test("runPlayback() goes past a confirm the page opens and names it in the action's warning", async () => {
  await withPage(async (d, url, store) => {
    const report = await bounded(
      "the playback",
      runPlayback(d, store, {
        source: { kind: "actions" },
        platform: "web",
        actions: [
          { type: "navigate", url },
          { type: "click", target: { css: "#confirm" } },
          { type: "assert_text", target: { css: "#result" }, expected: "confirm false" },
        ],
      }, { overlay: false, locateWaitMs: 500 }),
    );
    assertEquals(report.results.map((r) => r.status), ["ok", "ok", "ok"]);
    assertEquals(
      report.results[1]!.warning,
      'Dialogs answered since the last action: confirm "Delete everything?" (dismissed)',
    );
    assertEquals(report.results[2]!.warning, undefined);
  });
});

Deno.test("HumanRecorder records clicks that open dialogs and stops", async () => {
  await withPage(async (d, url, store) => {
    const recorder = await HumanRecorder.start(d, store, { url, prompt: "Save, then delete" });
    await recorder.ready();
    await tapButton(d, "#alert");
    await tapButton(d, "#confirm");
    assertEquals(await resultText(d), "confirm false");
    await bounded("stop", recorder.stop());
    assertEquals(recorder.errors, []);
    const taps = [];
    for await (const e of store.readStream(recorder.streamId)) {
      if (e.type === "ActionPerformed") taps.push([e.data.kind, e.data.target?.name]);
    }
    assertEquals(taps, [["tap", "Save"], ["tap", "Delete"]]);
  });
});
