/**
 * `cairn replay --video` of an Android trail through the Appium stand-in: a device that answers
 * Appium's screen recording gives a WebM (its MP4 converted by ffmpeg); one that cannot record
 * gives one "not available" line, and the replay itself still passes.
 */
import { startAndroidStandin } from "../../_fixtures/android_standin.ts";
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { cairn } from "../../_fixtures/cli_run.ts";
import type { PlaybackReport } from "../../../engine/playback/report.ts";

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
  url: android-app://com.example.my_sample_application/
trail:
  - step: Open the dashboard
    recording:
      - tap:
          selectors:
            - id: "${DASH_ID}"
`;

async function replay(dir: string, appium: string, video: string, json = false) {
  return await cairn([
    ...["replay", `${dir}/open.trail.yaml`, "--db", `${dir}/cairn.db`, "--appium", appium],
    ...["--screenshots", `${dir}/shots`, "--video", video, ...(json ? ["--json"] : [])],
  ]);
}

Deno.test("replay --video on Android: a device that cannot record says so in one line; the replay passes", async () => {
  const standin = startAndroidStandin({ screens: { app: NAV } });
  const dir = await Deno.makeTempDir({ prefix: "cairn_android_video_" });
  try {
    await Deno.writeTextFile(`${dir}/open.trail.yaml`, TRAIL);
    const out = await replay(dir, standin.url, `${dir}/v.webm`);
    assertEquals(out.code, 0, out.stderr + out.stdout);
    const lines = out.stdout.split("\n").filter((l) => l.startsWith("video:"));
    assertEquals(lines.length, 1, out.stdout);
    assertStringIncludes(lines[0]!, "video: Video not available on this device: ");
    assert(standin.commands.some((c) => c.path === "/appium/start_recording_screen"));
    assert(!(await Deno.stat(`${dir}/v.webm`).then(() => true, () => false)));
    const json = JSON.parse(
      (await replay(dir, standin.url, `${dir}/v.webm`, true)).stdout,
    ) as PlaybackReport;
    assertStringIncludes(json.video_error ?? "", "not available");
    assertEquals(json.video, undefined);
  } finally {
    await standin.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("replay --video on Android: the device's screen recording becomes a WebM", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_android_video_ok_" });
  // what Appium would send: an MP4 of the screen (here 1.5 s of a solid colour)
  const mp4 = `${dir}/screen.mp4`;
  const made = await new Deno.Command("/usr/bin/ffmpeg", {
    args: [
      "-v",
      "error",
      "-f",
      "lavfi",
      "-i",
      "color=c=green:s=360x640:d=1.5",
      "-c:v",
      "mpeg4",
      mp4,
    ],
  }).output();
  assert(made.success, new TextDecoder().decode(made.stderr));
  const standin = startAndroidStandin({
    screens: { app: NAV },
    screenRecording: await Deno.readFile(mp4),
  });
  try {
    await Deno.writeTextFile(`${dir}/open.trail.yaml`, TRAIL);
    const out = await replay(dir, standin.url, `${dir}/v.webm`, true);
    assertEquals(out.code, 0, out.stderr + out.stdout);
    const report = JSON.parse(out.stdout) as PlaybackReport;
    assertEquals(report.video?.path, `${dir}/v.webm`);
    const probe = await new Deno.Command("/usr/bin/ffprobe", {
      args: [
        ...["-v", "error", "-show_entries", "format=format_name,duration:stream=codec_name"],
        ...["-of", "json", `${dir}/v.webm`],
      ],
    }).output();
    const info = JSON.parse(new TextDecoder().decode(probe.stdout));
    assertStringIncludes(info.format.format_name, "webm");
    assertEquals(info.streams.map((s: { codec_name: string }) => s.codec_name), ["vp8"]);
    assert(Math.abs(Number(info.format.duration) - 1.5) < 0.2, info.format.duration);
    const paths = standin.commands.map((c) => c.path);
    assert(
      paths.indexOf("/appium/start_recording_screen") <
        paths.indexOf("/appium/stop_recording_screen"),
      paths.join(),
    );
  } finally {
    await standin.close();
    await Deno.remove(dir, { recursive: true });
  }
});
