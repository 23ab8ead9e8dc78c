/**
 * `cairn blaze --platform android` across separate processes (CLI → blaze daemon → HTTP →
 * `AndroidDriver`) against the STAND-IN WebDriver server in this process (no device can run
 * here), serving real corpus page sources; the capture lands in the event log.
 */
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { startAndroidStandin } from "../../_fixtures/android_standin.ts";
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";
import { alive, blazeCli as cairn } from "../../_fixtures/blaze_cli_run.ts";
import { cairn as cli } from "../../_fixtures/cli_run.ts";
import { waitUntil } from "../../_fixtures/wait.ts";

const CORPUS = new URL("../../../../shared/corpus/android/", import.meta.url);

Deno.test("cairn blaze --platform android records a blaze through Appium's protocol (stand-in)", async () => {
  const standin = startAndroidStandin({
    screens: {
      login: Deno.readTextFileSync(new URL("uiautomator_wdio_demo_reactnative_login.xml", CORPUS)),
      home: Deno.readTextFileSync(new URL("uiautomator_sample_bottom_navigation.xml", CORPUS)),
    },
    onTap: (_p, hit, screen) => {
      for (let n = hit; n; n = n.parent) {
        if (screen === "login" && n.attrs["content-desc"] === "button-LOGIN") return "home";
      }
      return undefined;
    },
  });
  const dir = await Deno.makeTempDir({ prefix: "cairn_android_cli_" });
  const db = `${dir}/cairn.db`;
  let pid: number | undefined;
  try {
    const bad = await cairn(db, "start", "--platform", "android", "--prompt", "x");
    assertEquals(bad.code, 2);
    assertStringIncludes(bad.stderr, "--app-package");

    const start = await cairn(
      db,
      "start",
      "--platform",
      "android",
      "--appium",
      standin.url,
      "--app-package",
      "com.wdiodemoapp",
      "--prompt",
      "Log in",
    );
    assertEquals(start.code, 0, start.stderr);
    assertStringIncludes(start.stdout, "android-app://com.wdiodemoapp/");
    pid = JSON.parse(await Deno.readTextFile(`${db}.blaze.json`)).pid;
    const snap = await cairn(db, "snapshot");
    assertEquals(snap.code, 0, snap.stderr);
    assertStringIncludes(snap.stdout, "EditText");
    const email = refIn(snap.stdout, "Email");
    const typed = await cairn(db, "type", `ref=${email}`, "text=alice@example.com");
    assertEquals(typed.code, 0, typed.stderr);
    const login = refIn(snap.stdout, "button-LOGIN");
    assertEquals((await cairn(db, "tap", `ref=${login}`)).code, 0);
    assertEquals(standin.screen(), "home");
    assertEquals((await cairn(db, "press", "key=Back")).code, 0);
    const end = await cairn(db, "end", "--out", `${dir}/out`);
    assertEquals(end.code, 0, end.stderr);
    // recording_v1 holds web sessions: end writes the capture file only, as export agrees
    const sessionId = /Session (\S+) started/.exec(start.stdout)![1]!;
    assertEquals(
      (await Array.fromAsync(Deno.readDir(`${dir}/out`))).map((f) => f.name),
      [`${sessionId}.capture.json`],
    );
    assertStringIncludes(end.stdout, `Wrote ${dir}/out/${sessionId}.capture.json`);
    assertStringIncludes(
      end.stdout,
      `No recording_v1 written: recording_v1 holds web sessions and ${sessionId} is android`,
    );
    const exported = await cli(["export", sessionId, "--format", "recording_v1", "--db", db]);
    assertEquals(exported.code, 2, exported.stderr);
    assertStringIncludes(exported.stderr, "recording_v1 holds web sessions");

    assertEquals(standin.typed.map((t) => t.text), ["alice@example.com"]);
    const keys = standin.commands.filter((c) => c.body?.script === "mobile: pressKey");
    assertEquals(keys.map((c) => c.body!.args), [[{ keycode: 4 }]]);
    assert(standin.commands.some((c) => c.path === "" && c.method === "DELETE"), "no session end");

    // the daemon exits after its answer: its last events are in the log once it has
    await waitUntil("the daemon to exit", () => !alive(pid!));
    const store = SqliteEventStore.open(db);
    try {
      const [stream] = await store.streams("session-");
      const events = [];
      for await (const e of store.readStream(stream!.streamId)) events.push(e);
      const started = events[0]!.data as { platform: string; drivers?: Record<string, string> };
      assertEquals(started.platform, "android");
      assertEquals(started.drivers?.automationName, "UiAutomator2");
      const kinds = events.filter((e) => e.type === "ActionPerformed").map((e) =>
        (e.data as { kind: string }).kind
      );
      assertEquals(kinds, ["inputText", "tap", "keyPress"]);
    } finally {
      store.close();
    }
  } finally {
    if (pid !== undefined && alive(pid)) Deno.kill(pid, "SIGTERM");
    await standin.close();
    await Deno.remove(dir, { recursive: true });
  }
});
