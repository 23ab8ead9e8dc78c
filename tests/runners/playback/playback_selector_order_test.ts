/**
 * A trail's ordered `selectors:` list replayed in a real Chromium on pages served from
 * 127.0.0.1: the optimizer put the unique selector first and a positional one (an `index`, a
 * CSS path) after it. On a copy of the page with a field inserted above, replay must still type
 * into the recorded field through the first selector; a positional fallback is used only when
 * the selectors before it fail, and then the action is reported healed, naming it.
 */
import { assertEquals } from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import { parseTrail } from "../../../engine/trail/trail.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

/** The form as recorded: two fields share a `data-testid`, only their aria-labels differ. */
const FIELD_EMAIL = `<input data-testid="field" aria-label="Email" id="f-email">`;
const FIELD_PASSWORD = `<input data-testid="field" aria-label="Password" id="f-password">`;
const FIELD_NAME = `<input data-testid="field" aria-label="Name" id="f-name">`;

function page(fields: string[]): string {
  return `<!doctype html><html><body>
<form onsubmit="return false">
${fields.join("\n")}
</form>
</body></html>`;
}

function trail(url: string, selectors: string): ReturnType<typeof parseTrail> {
  return parseTrail(`config:
  platform: web
  url: ${url}
  viewport: { width: 1000, height: 700 }
trail:
  - step: Enter the email
    recording:
      - inputText:
          text: bob@example.com
          selectors:
${selectors}`);
}

/** The value of every field, by id. */
async function values(driver: ChromeDriver): Promise<Record<string, string>> {
  return await driver.page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll("input")].map((i) => [i.id, (i as HTMLInputElement).value]),
    )
  );
}

async function withPages(
  pages: Record<string, string>,
  fn: (
    driver: ChromeDriver,
    store: SqliteEventStore,
    url: (name: string) => string,
  ) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-selector-order-" });
  for (const [name, html] of Object.entries(pages)) {
    await Deno.writeTextFile(`${dir}/${name}.html`, html);
  }
  const server = serveFolder(dir);
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch({ viewport: { width: 1000, height: 700 } });
  try {
    await fn(driver, store, (name) => `${server.url}${name}.html`);
  } finally {
    await driver.close();
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("playback in Chromium follows a trail's selector order: a field added above does not take the text of the unique first selector", async () => {
  await withPages({
    recorded: page([FIELD_EMAIL, FIELD_PASSWORD]),
    added: page([FIELD_NAME, FIELD_EMAIL, FIELD_PASSWORD]),
  }, async (driver, store, url) => {
    // The optimizer's order: the unique aria-label, then the shared test id with its index.
    const selectors = `            - { ariaLabel: Email }
            - { testId: field, index: 0 }
`;
    for (const name of ["recorded", "added"]) {
      const report = await runPlayback(driver, store, trailToPlan(trail(url(name), selectors)));
      const typed = report.results[1]!;
      assertEquals(
        [name, typed.status, typed.selector_used, typed.healed_selector],
        [name, "ok", "aria_label", undefined],
      );
      const v = await values(driver);
      assertEquals([name, v["f-email"], v["f-name"] ?? ""], [name, "bob@example.com", ""]);
    }
  });
});

Deno.test("playback in Chromium uses a positional selector only after the ones before it fail, and reports it healed", async () => {
  await withPages({ recorded: page([FIELD_EMAIL, FIELD_PASSWORD]) }, async (driver, store, url) => {
    // The label was renamed since recording: the indexed test id heals, and says so.
    const byIndex = await runPlayback(
      driver,
      store,
      trailToPlan(trail(
        url("recorded"),
        `            - { ariaLabel: E-mail address }
            - { testId: field, index: 0 }
`,
      )),
    );
    const typed = byIndex.results[1]!;
    assertEquals([typed.status, typed.selector_used, typed.healed_selector], [
      "healed",
      "test_id",
      '[data-testid="field"] >> nth=0',
    ]);
    assertEquals((await values(driver))["f-email"], "bob@example.com");
    // A role without a name, with an index (an author's positional selector), heals the same way
    // onto an element whose name does not contradict the recorded one.
    const byRole = await runPlayback(
      driver,
      store,
      trailToPlan(trail(
        url("recorded"),
        `            - { ariaLabel: Password (8+ characters) }
            - { role: textbox, index: 1 }
`,
      )),
    );
    const role = byRole.results[1]!;
    assertEquals([role.status, role.selector_used, role.healed_selector], [
      "healed",
      "role_name",
      "role=textbox >> nth=1",
    ]);
    assertEquals((await values(driver))["f-password"], "bob@example.com");
  });
});

Deno.test("playback in Chromium does not take an indexed fallback onto a field whose name contradicts the recorded one: it goes on to the next selector, else fails naming both", async () => {
  // The label was renamed AND a field inserted above: the index now points at "Name".
  const renamed = `<input data-testid="field" aria-label="E-mail address" id="f-email">`;
  await withPages(
    { changed: page([FIELD_NAME, renamed, FIELD_PASSWORD]) },
    async (driver, store, url) => {
      const failed = await runPlayback(
        driver,
        store,
        trailToPlan(trail(
          url("changed"),
          `            - { ariaLabel: Email }
            - { testId: field, index: 0 }
`,
        )),
        { locateWaitMs: 300 },
      );
      const typed = failed.results[1]!;
      assertEquals([typed.status, typed.error_code], ["failed", "selector_not_found"]);
      assertEquals(
        typed.error,
        'No selector matched exactly one visible element ([aria-label="Email"] → 0; [data-testid="field"] >> nth=0 → 3 (the element is "Name", the recording targeted "Email"))',
      );
      assertEquals(await values(driver), { "f-name": "", "f-email": "", "f-password": "" });

      // With a later selector that still names the field, that one is used, and says so.
      const next = await runPlayback(
        driver,
        store,
        trailToPlan(trail(
          url("changed"),
          `            - { ariaLabel: Email }
            - { testId: field, index: 0 }
            - { id: f-email }
`,
        )),
        { locateWaitMs: 300 },
      );
      const healed = next.results[1]!;
      assertEquals([healed.status, healed.selector_used, healed.healed_selector], [
        "healed",
        "id",
        "#f-email",
      ]);
      assertEquals(await values(driver), {
        "f-name": "",
        "f-email": "bob@example.com",
        "f-password": "",
      });
    },
  );
});

Deno.test("playback in Chromium treats an index past the matches on screen as not found, never as the one match there is", async () => {
  await withPages({ one: page([FIELD_EMAIL]) }, async (driver, store, url) => {
    // Recorded on a form with two `field`s, the second; the page now has only one.
    const report = await runPlayback(
      driver,
      store,
      trailToPlan(trail(
        url("one"),
        `            - { ariaLabel: Password }
            - { testId: field, index: 1 }
`,
      )),
    );
    const typed = report.results[1]!;
    assertEquals([typed.status, typed.error_code], ["failed", "selector_not_found"]);
    assertEquals(
      typed.error,
      'No selector matched exactly one visible element ([aria-label="Password"] → 0; [data-testid="field"] >> nth=1 → 1 (index 1 needs 2 matches))',
    );
    assertEquals((await values(driver))["f-email"], "");
  });
});

Deno.test("playback in Chromium scrolls an indexed or regex match below the fold into view and acts on that match", async () => {
  const tall = `<!doctype html><html><body>
<button data-testid="item" onclick="__log.push('a')">Item 1</button>
<div style="height:1500px"></div>
<button data-testid="item" onclick="__log.push('b')">Item 2</button>
<div style="height:1500px"></div>
<button data-testid="item" onclick="__log.push('c')">Item 3</button>
<div style="height:1500px"></div>
<script>window.__log = [];</script>
</body></html>`;
  await withPages({ tall }, async (driver, store, url) => {
    const plan = trailToPlan(parseTrail(`config:
  platform: web
  url: ${url("tall")}
  viewport: { width: 1000, height: 700 }
trail:
  - step: Pick the items
    recording:
      - tap: { testId: item, index: 2 }
      - tap: { textRegex: "Item \\\\d+", index: 1 }
`));
    const report = await runPlayback(driver, store, { ...plan, selectorMode: "strict" });
    assertEquals(report.results.map((r) => r.status), ["ok", "ok", "ok"]);
    assertEquals(
      await driver.page.evaluate(() => (globalThis as unknown as { __log: string[] }).__log),
      ["c", "b"],
    );
  });
});
