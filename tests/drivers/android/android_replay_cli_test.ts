/**
 * `cairn replay TRAIL.yaml` of an Android trail, in a separate process, through `AndroidDriver`
 * and the STAND-IN WebDriver server in this process (no device can run here), serving the
 * corpus's bottom-navigation screen with the tab's resource id renamed: the cascade heals to the
 * content description and the report says so.
 */
import { startAndroidStandin } from "../../_fixtures/android_standin.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../../_fixtures/assert.ts";
import { cairn } from "../../_fixtures/cli_run.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;
const NAV = Deno.readTextFileSync(
  new URL(
    "../../../../shared/corpus/android/uiautomator_sample_bottom_navigation.xml",
    import.meta.url,
  ),
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
          "-q",
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
    // The strategy column fits `content_description`: the detail column stays aligned.
    const lines = stdout.split("\n");
    const header = lines.find((l) => /^\s+#\s+status\s+action\s+strategy\s+ms\s+detail$/.test(l));
    const row = lines.find((l) => l.includes("content_description"));
    assert(header && row, stdout);
    // the detail names the chain level that found it, then the selector
    assertEquals(row.indexOf("level 2: ~Dashboard"), header.indexOf("detail"), stdout);
    assertEquals(row.indexOf("content_description"), header.indexOf("strategy"), stdout);
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

Deno.test("cairn replay on Android without --appium names a missing SDK or adb before installing Appium, and says when an install starts", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_android_sdk_" });
  try {
    // an npm that only notes it was run: the install Cairn would start is seen, never made
    await Deno.mkdir(`${dir}/bin`);
    await Deno.writeTextFile(
      `${dir}/bin/npm`,
      `#!/bin/sh\necho "$@" >> ${dir}/npm-runs\necho "npm: offline" >&2\nexit 1\n`,
    );
    await Deno.chmod(`${dir}/bin/npm`, 0o755);
    await Deno.mkdir(`${dir}/sdk/platform-tools`, { recursive: true });
    const home = `${dir}/appium`;
    const replay = (androidHome: string) =>
      cairn(["replay", "examples/inventory.capture.json", "--db", `${dir}/cairn.db`], {
        ANDROID_HOME: androidHome,
        ANDROID_SDK_ROOT: "",
        CAIRN_APPIUM_HOME: home,
        CAIRN_APPIUM_URL: "",
        PATH: `${dir}/bin:${Deno.env.get("PATH") ?? ""}`,
      });
    const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

    const noSdk = await replay("");
    assertEquals(noSdk.code, 1, noSdk.stderr);
    assertEquals(
      noSdk.stderr,
      "cairn replay: Cannot start an Android session: ANDROID_HOME is not set: install the Android SDK platform-tools and export ANDROID_HOME (or ANDROID_SDK_ROOT) before starting Appium\n",
    );
    const noAdb = await replay(`${dir}/sdk`);
    assertEquals(noAdb.code, 1, noAdb.stderr);
    assertStringIncludes(noAdb.stderr, "adb was not found under ANDROID_HOME");
    assertEquals(noAdb.stderr.trim().split("\n").length, 1, noAdb.stderr);
    assertEquals([await exists(home), await exists(`${dir}/npm-runs`)], [false, false]);

    // with the SDK's adb there, the first run installs Appium and says so first
    await Deno.writeTextFile(`${dir}/sdk/platform-tools/adb`, "#!/bin/sh\nexit 0\n");
    await Deno.chmod(`${dir}/sdk/platform-tools/adb`, 0o755);
    const install = await replay(`${dir}/sdk`);
    assertEquals(install.code, 1, install.stderr);
    const lines = install.stderr.trim().split("\n");
    assertMatch(
      lines[0]!,
      /^appium: installing appium@\S+ and appium-uiautomator2-driver@\S+ into .*\/appium \(first run\)…$/,
    );
    assertStringIncludes(
      lines[1]!,
      "Cannot install Appium: npm install exited with 1: npm: offline",
    );
    assert(await exists(`${dir}/npm-runs`), "npm was not run");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const KEYS_TRAIL = (keys: string[]) =>
  `config:
  id: keys
  platform: android
  url: android-app://com.example.my_sample_application/
trail:
  - step: Press keys
    recording:
${keys.map((k) => `      - keyPress: "${k}"`).join("\n")}
`;

Deno.test("cairn replay on Android presses key chords as key code + meta state, and refuses a key Android lacks naming the action (stand-in)", async () => {
  const standin = startAndroidStandin({ screens: { app: NAV } });
  const dir = await Deno.makeTempDir({ prefix: "cairn_android_keys_cli_" });
  try {
    const replay = (file: string) =>
      cairn(["replay", file, "--db", `${dir}/cairn.db`, "--appium", standin.url]);
    await Deno.writeTextFile(
      `${dir}/keys.trail.yaml`,
      KEYS_TRAIL(["Ctrl+A", "Shift+Tab", "Enter", "Back"]),
    );
    const out = await replay(`${dir}/keys.trail.yaml`);
    assertEquals(out.code, 0, out.stderr + out.stdout);
    assertEquals(standin.keys.map((k) => [k.keycode, k.metastate]), [
      [29, 4096],
      [61, 1],
      [66, 0],
      [4, 0],
    ]);

    const sessions = () => standin.commands.filter((c) => c.path === "/session").length;
    const before = sessions();
    await Deno.writeTextFile(`${dir}/bad.trail.yaml`, KEYS_TRAIL(["Enter", "Hyper+Q"]));
    const bad = await replay(`${dir}/bad.trail.yaml`);
    // numbered as the replay table numbers actions (from 0; the opened app has none)
    assertEquals(bad.code, 2, bad.stderr);
    assertEquals(
      bad.stderr,
      `cairn replay: ${dir}/bad.trail.yaml: action 1 (step 1, key_press "Hyper+Q"): ` +
        `"Hyper" in "Hyper+Q" is not a modifier (Shift, Ctrl, Alt, Meta)\n`,
    );
    assertEquals(sessions(), before, "a device session was opened for a plan it cannot play");
    assertEquals(standin.keys.length, 4);
  } finally {
    await standin.close();
    await Deno.remove(dir, { recursive: true });
  }
});
