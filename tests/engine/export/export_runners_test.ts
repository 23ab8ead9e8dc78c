/**
 * `cairn export --format playwright|recorder` run by the other runners for real: the Playwright
 * spec by `@playwright/test` (installed from npm into a temporary folder, Debian's Chromium through
 * `launchOptions.executablePath`), the Recorder flow by `@puppeteer/replay`, both against the
 * playback test pages served from 127.0.0.1: green as recorded, red when the page breaks, and
 * the Playwright spec heals through `locator.or` when the test ids are gone.
 */
import { join } from "node:path";
import { servePlaybackPages } from "../../_fixtures/playback_server.ts";
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { createRunner, PuppeteerRunnerExtension } from "@puppeteer/replay";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
const MAIN = `${ROOT}main.ts`;
const SIGNIN = `${ROOT}tests/testdata/export/signin.trail.yaml`;
const FRUIT = `${ROOT}tests/testdata/export/fruit.trail.yaml`;
const CHROMIUM = "/usr/bin/chromium";
const PLAYWRIGHT = "@playwright/test@1.65.1";

async function cairn(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", MAIN, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** The pages the trails were recorded on, in one folder (the app and the fruit rows). */
async function pagesFolder(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-export-pages-" });
  await Deno.copyFile(`${ROOT}tests/testdata/playback/app.html`, join(dir, "app.html"));
  await Deno.copyFile(`${ROOT}tests/testdata/web/fruit_rows.html`, join(dir, "fruit_rows.html"));
  return dir;
}

async function run(
  cmd: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number; out: string }> {
  const o = await new Deno.Command(cmd, {
    args,
    cwd,
    env: { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1", CI: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: o.code, out: dec.decode(o.stdout) + dec.decode(o.stderr) };
}

Deno.test({
  name:
    "the Playwright export runs in @playwright/test: green, red when the page breaks, healed through locator.or",
  ignore: !(await Deno.stat(CHROMIUM).then(() => true, () => false)),
  fn: async () => {
    const pages = await pagesFolder();
    const server = servePlaybackPages(pages);
    const dir = await Deno.makeTempDir({ prefix: "cairn-export-pw-" });
    try {
      const install = await run(
        "npm",
        ["install", "--no-audit", "--no-fund", "--no-save", PLAYWRIGHT],
        dir,
      );
      assertEquals(install.code, 0, install.out);
      await Deno.writeTextFile(
        join(dir, "playwright.config.ts"),
        `import { defineConfig } from "@playwright/test";
export default defineConfig({
  testDir: "e2e",
  workers: 1,
  retries: 0,
  timeout: 20_000,
  expect: { timeout: 2_000 },
  use: { headless: true, actionTimeout: 3_000, launchOptions: { executablePath: ${
          JSON.stringify(CHROMIUM)
        }, args: ["--no-sandbox"] } },
});
`,
      );
      const e2e = join(dir, "e2e");
      for (const trail of [SIGNIN, FRUIT]) {
        const res = await cairn(["export", trail, "--format", "playwright", "--out", e2e + "/"]);
        assertEquals(res.code, 0, res.stderr);
      }
      // the point of the fruit trail's chain has no locator: a warning names the action
      const fruit = await cairn(["export", FRUIT, "--format", "playwright"]);
      assertStringIncludes(fruit.stderr, `step 1 "Add the banana", action 1 (tap)`);
      const spec = await Deno.readTextFile(join(e2e, "export-signin.spec.ts"));
      assertStringIncludes(spec, `.or(page.getByLabel("Email", { exact: true }))`);
      assertStringIncludes(spec, `secret("PASSWORD")`);
      assertStringIncludes(spec, `toHaveText(/^(?:\\d+)$/)`);
      assertStringIncludes(spec, `num(mem["itemCount"]) + 1`);

      const env = { CAIRN_BASE_URL: server.url, PASSWORD: "hunter2" };
      const pw = (file: string) =>
        run("npx", ["playwright", "test", file, "--reporter=line"], dir, env);

      // as recorded: both specs green (the row anchor finds Banana's Add among three)
      const green = await pw("e2e/");
      assertEquals(green.code, 0, green.out);
      assertStringIncludes(green.out, "2 passed");

      // the secret comes from the environment only: without PASSWORD the spec stops naming it
      const noSecret = await run(
        "npx",
        ["playwright", "test", "e2e/export-signin.spec.ts", "--reporter=line"],
        dir,
        { CAIRN_BASE_URL: server.url },
      );
      assertEquals(noSecret.code, 1, noSecret.out);
      assertStringIncludes(
        noSecret.out,
        "set PASSWORD: the trail's secret is read from the environment",
      );

      // the test ids removed: every chain falls through to its aria label or id — still green
      server.setVariant("notestid");
      const healed = await pw("e2e/export-signin.spec.ts");
      assertEquals(healed.code, 0, healed.out);
      assertStringIncludes(healed.out, "1 passed");

      // the same page, the same trail in strict mode (the primary selector only): red
      await Deno.writeTextFile(
        join(e2e, "strict.trail.yaml"),
        (await Deno.readTextFile(SIGNIN)).replace("selectorMode: adaptive", "selectorMode: strict")
          .replace("id: export-signin", "id: export-strict"),
      );
      const strict = await cairn([
        "export",
        join(e2e, "strict.trail.yaml"),
        "--format",
        "playwright",
        "--out",
        e2e + "/",
      ]);
      assertEquals(strict.code, 0, strict.stderr);
      const red = await pw("e2e/export-strict.spec.ts");
      assertEquals(red.code, 1, red.out);
      assertStringIncludes(red.out, `getByTestId('email-input')`);

      // the page breaks (the button's text changed): the adaptive spec goes red on the check
      server.setVariant("copy");
      const broken = await pw("e2e/export-signin.spec.ts");
      assertEquals(broken.code, 1, broken.out);
      assertStringIncludes(broken.out, `getByText('Add item', { exact: true })`);
    } finally {
      await server.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
      await Deno.remove(pages, { recursive: true }).catch(() => {});
    }
  },
});

async function replayRecorder(flowText: string, baseUrl: string): Promise<string | undefined> {
  const flow = JSON.parse(flowText) as { steps: { type: string; url?: string }[] };
  for (const s of flow.steps) {
    if (s.type === "navigate" && s.url) {
      const u = new URL(s.url);
      s.url = new URL(u.pathname + u.search, baseUrl).href;
    }
  }
  const driver = await ChromeDriver.launch({ viewport: { width: 1280, height: 800 } });
  try {
    const ext = new PuppeteerRunnerExtension(driver.browser as never, driver.page as never, {
      timeout: 3_000,
    });
    const runner = await createRunner(flow as never, ext);
    try {
      await runner.runBeforeAllSteps();
      for (const [i, step] of flow.steps.entries()) {
        try {
          await runner.runStep(step as never);
        } catch (err) {
          return `step ${i} (${step.type}): ${(err as Error).message}`;
        }
      }
      return undefined;
    } finally {
      await runner.runAfterAllSteps().catch(() => {});
    }
  } finally {
    await driver.close();
  }
}

Deno.test("the Recorder export replays in @puppeteer/replay: green as recorded and with the test ids removed, red when the page breaks", async () => {
  const pages = await pagesFolder();
  const server = servePlaybackPages(pages);
  try {
    const res = await cairn(["export", SIGNIN, "--format", "recorder"]);
    assertEquals(res.code, 0, res.stderr);
    const flow = JSON.parse(res.stdout) as { steps: Record<string, unknown>[] };
    const email = flow.steps.find((s) => s.type === "change") as { selectors: string[][] };
    assertEquals(email.selectors, [['[data-testid="email-input"]'], ["aria/Email"], ["#email"]]);
    // readText and the secret have no place in the Recorder: named, not dropped silently
    assertStringIncludes(res.stderr, `step 4 "Note the item count", action 1 (readText)`);
    assertStringIncludes(res.stderr, `step 2 "Enter the password", action 1 (inputText)`);
    const waits = flow.steps.filter((s) => s.type === "waitForElement");
    assert(waits.some((w) => JSON.stringify(w).includes('"count":0')), JSON.stringify(waits));

    assertEquals(await replayRecorder(res.stdout, server.url), undefined);
    server.setVariant("notestid");
    assertEquals(await replayRecorder(res.stdout, server.url), undefined);
    server.setVariant("copy");
    const failed = await replayRecorder(res.stdout, server.url);
    assert(failed !== undefined, "the flow fails once the button's text changed");
    assertStringIncludes(failed, "waitForElement");

    const rows = await cairn(["export", FRUIT, "--format", "recorder"]);
    assertEquals(rows.code, 0, rows.stderr);
    server.setVariant("");
    assertEquals(await replayRecorder(rows.stdout, server.url), undefined);
  } finally {
    await server.close();
    await Deno.remove(pages, { recursive: true }).catch(() => {});
  }
});
