/**
 * The video of a playback (`replay --video`, `video: true` on `POST /v1/playbacks`): started once
 * the run has its browser or device, stopped before `PlaybackCompleted`, which says where the file
 * went (or why there is none).
 *
 * - Chromium: the tab's CDP screencast with the subtitle overlay burnt in
 *   ({@linkcode ScreencastRecorder}), encoded by ffmpeg.
 * - Android: Appium's screen recording (`start_recording_screen`), an MP4 ffmpeg turns into WebM;
 *   a device or driver that cannot record gives a "not available" reason instead of a file.
 *
 * @module
 */
import { dirname } from "node:path";
import type { Driver } from "../../drivers/mod.ts";
import { ScreencastRecorder, VIDEO_FPS } from "../../drivers/chrome/mod.ts";
import type { Page } from "puppeteer-core";

/** What a playback's video came to: the file, or why there is none. */
export interface PlaybackVideoOutcome {
  path?: string;
  durationMs?: number;
  frames?: number;
  error?: string;
}

/** The hook the playback runner calls ({@linkcode PlaybackOptions.video}). */
export interface PlaybackVideo {
  /** Starts recording (never throws: a failure becomes the outcome's `error`). */
  start(driver: Driver, playbackId: string): Promise<void>;
  /** Stops and finishes the file (never throws; a second call answers the first's outcome). */
  stop(): Promise<PlaybackVideoOutcome>;
}

/** A driver that records its device's screen (the Android driver through Appium). */
interface ScreenRecordingDriver {
  startRecordingScreen(): Promise<void>;
  stopRecordingScreen(): Promise<Uint8Array>;
}

function pageOf(driver: Driver): Page | undefined {
  const page = (driver as { page?: unknown }).page;
  return page && typeof (page as Page).createCDPSession === "function" ? page as Page : undefined;
}

function recordsScreen(driver: Driver): ScreenRecordingDriver | undefined {
  const d = driver as Partial<ScreenRecordingDriver>;
  return typeof d.startRecordingScreen === "function" &&
      typeof d.stopRecordingScreen === "function"
    ? d as ScreenRecordingDriver
    : undefined;
}

/**
 * A playback's video recorder.
 *
 * @param options where the file goes (a path, or one per playback id) and the ffmpeg to encode with
 * @returns the hook for {@linkcode PlaybackOptions.video}
 */
export function playbackVideo(options: {
  path: string | ((playbackId: string) => string);
  ffmpeg: string;
}): PlaybackVideo {
  let stopping: Promise<PlaybackVideoOutcome> | undefined;
  let stopFn: (() => Promise<PlaybackVideoOutcome>) | undefined;
  let failed: string | undefined;
  return {
    async start(driver, playbackId) {
      const path = typeof options.path === "string" ? options.path : options.path(playbackId);
      try {
        await Deno.mkdir(dirname(path), { recursive: true });
        const page = pageOf(driver);
        if (page) {
          const rec = await ScreencastRecorder.start(page, { path, ffmpeg: options.ffmpeg });
          stopFn = async () => ({ ...(await rec.stop()) });
          return;
        }
        const device = recordsScreen(driver);
        if (!device) {
          failed = `Video not available: the ${driver.platform} driver cannot record its screen`;
          return;
        }
        try {
          await device.startRecordingScreen();
        } catch (err) {
          failed = `Video not available on this device: ${(err as Error).message}`;
          return;
        }
        const started = performance.now();
        stopFn = async () => {
          const mp4 = await device.stopRecordingScreen();
          const durationMs = Math.round(performance.now() - started);
          await mp4ToWebm(options.ffmpeg, mp4, path);
          return { path, durationMs };
        };
      } catch (err) {
        failed = `Video not recorded: ${(err as Error).message}`;
      }
    },
    stop() {
      stopping ??= (async () => {
        if (failed) return { error: failed };
        if (!stopFn) return { error: "Video not recorded: the recording never started" };
        try {
          return await stopFn();
        } catch (err) {
          return { error: `Video not recorded: ${(err as Error).message}` };
        }
      })();
      return stopping;
    },
  };
}

/** Transcodes a device's MP4 recording into a VP8 WebM file. */
async function mp4ToWebm(ffmpeg: string, mp4: Uint8Array, path: string): Promise<void> {
  const tmp = await Deno.makeTempFile({ suffix: ".mp4" });
  try {
    await Deno.writeFile(tmp, mp4);
    const out = await new Deno.Command(ffmpeg, {
      args: [
        ...["-hide_banner", "-loglevel", "error", "-y", "-i", tmp],
        ...["-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "16", "-b:v", "1M"],
        ...["-r", String(VIDEO_FPS), "-an", "-f", "webm", path],
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) {
      const why = new TextDecoder().decode(out.stderr).trim().split("\n")[0] ?? "";
      throw new Error(`ffmpeg exited with ${out.code} converting the device's recording: ${why}`);
    }
  } finally {
    await Deno.remove(tmp).catch(() => {});
  }
}
