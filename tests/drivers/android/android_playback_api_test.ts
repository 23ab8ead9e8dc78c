/**
 * `POST /v1/playbacks` of an Android trail through `createApp` (no network for the API), a
 * device session per playback over the W3C protocol to the STAND-IN server (no device can run
 * here), and a real SQLite file: the report heals a renamed id; a second Android playback while
 * one runs gets 409; an unreachable Appium is a 502 naming it, and nothing is left running.
 */
import { createApp } from "../../../api/app.ts";
import { playbackRegistry } from "../../../api/playbacks.ts";
import type { PlaybackReportAnswer as PlaybackReport } from "../../../api/playbacks.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { startAndroidStandin } from "../../_fixtures/android_standin.ts";
import { assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { waitUntil } from "../../_fixtures/wait.ts";

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
trail:
  - step: Open the dashboard
    recording:
      - tap:
          selectors:
            - id: "${DASH_ID}"
            - contentDescription: Dashboard
`;

Deno.test("POST /v1/playbacks plays an Android trail on a device session and heals (stand-in)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_android_playback_api_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  playbackRegistry(store, { screenshotDir: `${dir}/shots`, locateWaitMs: 0 });
  const standin = startAndroidStandin({
    screens: { app: NAV.replace(`resource-id="${DASH_ID}"`, 'resource-id="x:id/renamed"') },
  });
  const app = createApp({ store });
  const post = (body: unknown) =>
    app.request("/v1/playbacks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  try {
    const res = await post({ trail: TRAIL, android: { appium: standin.url } });
    assertEquals(res.status, 202, await res.clone().text());
    const { playbackId } = await res.json() as { playbackId: string };
    const busy = await post({ trail: TRAIL, android: { appium: standin.url } });
    assertEquals(busy.status, 409);
    await busy.body?.cancel();
    let report: PlaybackReport | undefined;
    for (let i = 0; i < 200; i++) {
      report = await (await app.request(`/v1/playbacks/${playbackId}`)).json() as PlaybackReport;
      if (report.status !== "running") break;
      await new Promise((r) => setTimeout(r, 25));
    }
    assertEquals(report?.status, "completed");
    assertEquals(report!.results.map((r) => [r.status, r.healedSelector]), [
      ["healed", "~Dashboard"],
    ]);
    // The device session was closed when the playback ended.
    // it is closed a moment after the report: awaited, bounded
    await waitUntil(
      "the device session to close",
      () => standin.commands.at(-1)?.method === "DELETE",
      { everyMs: 25, timeoutMs: 20_000 },
    )
      .catch(() => {});
    assertEquals(standin.commands.at(-1)?.method, "DELETE");

    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const nowhere = `http://127.0.0.1:${(l.addr as Deno.NetAddr).port}`;
    l.close();
    const down = await post({ trail: TRAIL, android: { appium: nowhere } });
    assertEquals(down.status, 502);
    const body = await down.json() as { error: { code: string; message: string } };
    assertEquals(body.error.code, "appium_unreachable");
    assertStringIncludes(body.error.message, nowhere);
  } finally {
    await playbackRegistry(store).close();
    await standin.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("POST /v1/playbacks of an Android trail with a key Android lacks is a 400 naming the action, before a device session (stand-in)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_android_playback_keys_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  playbackRegistry(store, { screenshotDir: `${dir}/shots`, locateWaitMs: 0 });
  const standin = startAndroidStandin({ screens: { app: NAV } });
  const app = createApp({ store });
  try {
    const trail = `config:
  id: keys
  platform: android
trail:
  - step: Select all
    recording:
      - keyPress: Ctrl+A
      - keyPress: Super+A
`;
    const res = await app.request("/v1/playbacks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ trail, android: { appium: standin.url } }),
    });
    assertEquals(res.status, 400);
    const body = await res.json() as { error: { message: string } };
    assertEquals(
      body.error.message,
      'action 1 (step 1, key_press "Super+A"): "Super" in "Super+A" is not a modifier (Shift, Ctrl, Alt, Meta)',
    );
    assertEquals(standin.commands.length, 0, "a device session was opened");
  } finally {
    await playbackRegistry(store).close();
    await standin.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
