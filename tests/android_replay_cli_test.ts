/**
 * `cairn replay TRAIL.yaml` of an Android trail, in a separate process, through `AndroidDriver`
 * and the STAND-IN WebDriver server in this process (no device can run here), serving the
 * corpus's bottom-navigation screen with the tab's resource id renamed: the cascade heals to the
 * content description and the report says so.
 */
import { startAndroidStandin } from "./android_standin.ts";
import { assertEquals, assertMatch, assertStringIncludes } from "./assert.ts";
import { cairn } from "./cli_run.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const NAV = Deno.readTextFileSync(
  new URL("../../shared/corpus/android/uiautomator_sample_bottom_navigation.xml", import.meta.url),
);
const DASH_ID = "com.example.my_sample_application:id/navigation_dashboard";

const TRAIL = `config:
  id: open-dashboard
  platform: android
  selectorMode: adaptive
  url: android-app://com.example.my_sample_application/
trail:
  - step: Open the dashboard
    recording:
      - tap:
          selectors:
            - id: "${DASH_ID}"
            - contentDescription: Dashboard
`;

Deno.test("cairn replay plays an Android trail through Appium's protocol and heals a renamed id (stand-in)", async () => {
  const standin = startAndroidStandin({
    screens: { app: NAV.replace(`resource-id="${DASH_ID}"`, 'resource-id="x:id/nav_item_2"') },
  });
  const dir = await Deno.makeTempDir({ prefix: "cairn_android_replay_cli_" });
  try {
    await Deno.writeTextFile(`${dir}/open.trail.yaml`, TRAIL);
    const run = (...extra: string[]) =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          MAIN,
          "replay",
          `${dir}/open.trail.yaml`,
          "--db",
          `${dir}/cairn.db`,
          ...extra,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
    const bad = await run("--appium", standin.url, "--app-package", "not a package");
    assertEquals(bad.code, 2);
    assertStringIncludes(new TextDecoder().decode(bad.stderr), "--app-package");

    const out = await run("--appium", standin.url, "--screenshots", `${dir}/shots`);
    const stdout = new TextDecoder().decode(out.stdout);
    assertEquals(out.code, 0, new TextDecoder().decode(out.stderr) + stdout);
    assertMatch(stdout, /healed\s+tap|healed\s+click/);
    assertStringIncludes(stdout, "content_description");
    // Android notation, not the web's (#id, [data-testid=…]).
    assertMatch(stdout, /healed\s+click id=com\.example\.my_sample_application:/);
    assertMatch(stdout, /~Dashboard\s*$/m);
    assertEquals(/#com\.example|\[data-testid=/.test(stdout), false, stdout);
    const lookups = standin.commands.filter((c) => c.path === "/elements").map((c) =>
      c.body!.using
    );
    assertEquals(lookups.slice(0, 2), ["id", "accessibility id"]);
    assertEquals(standin.gestures.map((g) => [g.kind, g.from]), [["tap", { x: 540, y: 2264 }]]);
  } finally {
    await standin.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn replay --help says it replays on Android too, not only in Chromium", async () => {
  const help = await cairn(["replay", "--help"]);
  assertEquals(help.code, 0, help.stderr);
  const first = help.stdout.split("\n")[0]!;
  assertStringIncludes(first, "in Chromium or on Android (Appium)");
  assertStringIncludes(help.stdout, "--appium");
  assertStringIncludes(help.stdout, 'id=…, ~content description, text="…"');
});
