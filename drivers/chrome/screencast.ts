/**
 * Records a Chromium tab as a WebM video: CDP screencast frames (`Page.startScreencast`, JPEG,
 * each with the time Chromium painted it) piped to ffmpeg at a constant frame rate. Chromium
 * sends a frame only when the page changes, so each frame is repeated until the next one's
 * timestamp (and the last one until the recording stops): a still page is held, not skipped, and
 * the video lasts as long as the recording did. Whatever the page shows is in the video — the
 * playback subtitle overlay included.
 *
 * ffmpeg is Debian's (`apt-get install ffmpeg`; `deno task setup` installs it), found on `PATH`,
 * or the program `CAIRN_FFMPEG` names.
 *
 * @module
 */
import type { CDPSession, Page } from "puppeteer-core";

/** Frames per second of the videos written. */
export const VIDEO_FPS = 10;

/** How long the recording goes on after the last action, its outcome on screen (ms). */
export const VIDEO_TAIL_MS = 800;

/** The one-line error when ffmpeg cannot be found. */
export class FfmpegMissingError extends Error {
  override name = "FfmpegMissingError";
  constructor(detail: string) {
    super(
      `Video needs ffmpeg, and ${detail}: install it (apt-get install ffmpeg, or deno task setup) ` +
        `or set CAIRN_FFMPEG to its path`,
    );
  }
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/**
 * Where ffmpeg is: `CAIRN_FFMPEG` when set, else the first `ffmpeg` on `PATH`.
 *
 * @param env the environment to read (default: the process's)
 * @returns the program's path
 * @throws {FfmpegMissingError} when there is none
 */
export function findFfmpeg(
  env: { get(key: string): string | undefined } = Deno.env,
): string {
  const given = env.get("CAIRN_FFMPEG");
  if (given !== undefined && given !== "") {
    if (isFile(given)) return given;
    throw new FfmpegMissingError(`CAIRN_FFMPEG names ${given}, which is not a file`);
  }
  for (const dir of (env.get("PATH") ?? "").split(":")) {
    if (dir && isFile(`${dir}/ffmpeg`)) return `${dir}/ffmpeg`;
  }
  throw new FfmpegMissingError("no ffmpeg is on PATH");
}

/**
 * How many frames a constant-rate video holds from `startSec` up to `atSec`.
 *
 * @param startSec when the recording started (seconds)
 * @param atSec a later moment (seconds)
 * @param fps frames per second
 * @returns the frame count (0 before the start)
 * @example
 * ```ts
 * if (framesDue(100, 101.25, 10) !== 12 || framesDue(100, 99, 10) !== 0) throw new Error();
 * ```
 */
export function framesDue(startSec: number, atSec: number, fps: number): number {
  return Math.max(0, Math.floor((atSec - startSec) * fps + 1e-6));
}

/**
 * The width and height of a JPEG image (its first start-of-frame marker).
 *
 * @param jpeg the image
 * @returns its size, or undefined when it is not a JPEG
 */
export function jpegSize(jpeg: Uint8Array): { width: number; height: number } | undefined {
  if (jpeg[0] !== 0xff || jpeg[1] !== 0xd8) return undefined;
  let i = 2;
  while (i + 9 < jpeg.length) {
    if (jpeg[i] !== 0xff) return undefined;
    const marker = jpeg[i + 1]!;
    const length = (jpeg[i + 2]! << 8) | jpeg[i + 3]!;
    // SOF0…SOF15, except DHT (c4), JPG (c8) and DAC (cc)
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return {
        height: (jpeg[i + 5]! << 8) | jpeg[i + 6]!,
        width: (jpeg[i + 7]! << 8) | jpeg[i + 8]!,
      };
    }
    i += 2 + length;
  }
  return undefined;
}

/** What a finished recording wrote. */
export interface VideoFile {
  path: string;
  durationMs: number;
  frames: number;
}

/**
 * An ffmpeg process turning JPEG frames at a constant rate into a VP8 WebM file. Frames of
 * another size than the first are scaled and padded to it.
 */
export class WebmEncoder {
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #writing: Promise<void> = Promise.resolve();
  #failed: Error | undefined;
  #stderr: Promise<string>;
  frames = 0;

  private constructor(child: Deno.ChildProcess, readonly path: string, readonly fps: number) {
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#stderr = new Response(child.stderr).text().catch(() => "");
  }

  /**
   * Starts ffmpeg writing `path`.
   *
   * @param ffmpeg the program ({@linkcode findFfmpeg})
   * @param path the .webm file
   * @param size the video's size (made even)
   * @param fps frames per second
   * @returns the encoder
   */
  static start(
    ffmpeg: string,
    path: string,
    size: { width: number; height: number },
    fps = VIDEO_FPS,
  ): WebmEncoder {
    const w = Math.max(2, size.width - (size.width % 2));
    const h = Math.max(2, size.height - (size.height % 2));
    const child = new Deno.Command(ffmpeg, {
      args: [
        ...["-hide_banner", "-loglevel", "error", "-y"],
        ...["-f", "image2pipe", "-framerate", String(fps), "-c:v", "mjpeg", "-i", "-"],
        "-vf",
        `scale=${w}:${h}:force_original_aspect_ratio=decrease,pad=${w}:${h}:(ow-iw)/2:(oh-ih)/2,format=yuv420p`,
        ...["-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "16", "-b:v", "1M"],
        ...["-r", String(fps), "-an", "-f", "webm", path],
      ],
      stdin: "piped",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    return new WebmEncoder(child, path, fps);
  }

  /** Queues one frame (the writes keep their order). */
  write(jpeg: Uint8Array): void {
    this.frames += 1;
    this.#writing = this.#writing.then(() => this.#writer.write(jpeg)).catch((err) => {
      this.#failed ??= err as Error;
    });
  }

  /**
   * Ends the input and waits for ffmpeg to finish the file.
   *
   * @throws {Error} when ffmpeg failed (its own message)
   */
  async finish(): Promise<void> {
    await this.#writing;
    await this.#writer.close().catch(() => {});
    const status = await this.#child.status;
    const stderr = (await this.#stderr).trim();
    if (!status.success) {
      throw new Error(
        `ffmpeg exited with ${status.code} writing ${this.path}${
          stderr ? `: ${stderr.split("\n")[0]}` : ""
        }`,
      );
    }
    if (this.#failed) throw new Error(`ffmpeg stopped reading frames: ${this.#failed.message}`);
  }

  /** Stops ffmpeg at once (the file is left incomplete). */
  kill(): void {
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // already ended
    }
  }
}

/** Screencast frame event of CDP (the fields read). */
interface ScreencastFrame {
  data: string;
  sessionId: number;
  metadata: { timestamp?: number };
}

/**
 * Records a tab's screencast into a WebM file until {@linkcode ScreencastRecorder.stop}.
 */
export class ScreencastRecorder {
  #session: CDPSession;
  #startSec: number;
  #encoder: WebmEncoder | undefined;
  #last: Uint8Array | undefined;
  #stopped = false;
  #error: string | undefined;

  private constructor(
    session: CDPSession,
    readonly path: string,
    readonly ffmpeg: string,
    readonly fps: number,
    readonly tailMs: number,
  ) {
    this.#session = session;
    this.#startSec = Date.now() / 1000;
  }

  /**
   * Starts the screencast of `page`.
   *
   * @param page the tab
   * @param options the output file, ffmpeg and frame rate
   * @returns the recorder
   */
  static async start(
    page: Page,
    options: { path: string; ffmpeg: string; fps?: number; tailMs?: number },
  ): Promise<ScreencastRecorder> {
    const session = await page.createCDPSession();
    const rec = new ScreencastRecorder(
      session,
      options.path,
      options.ffmpeg,
      options.fps ?? VIDEO_FPS,
      options.tailMs ?? VIDEO_TAIL_MS,
    );
    session.on("Page.screencastFrame", (e: ScreencastFrame) => {
      session.send("Page.screencastFrameAck", { sessionId: e.sessionId }).catch(() => {});
      // the paint time (seconds since the epoch); the arrival time when it is absent or on
      // another clock
      const now = Date.now() / 1000;
      const ts = e.metadata.timestamp;
      rec.#frame(decodeBase64(e.data), ts !== undefined && Math.abs(ts - now) < 5 ? ts : now);
    });
    await session.send("Page.startScreencast", { format: "jpeg", quality: 80, everyNthFrame: 1 });
    return rec;
  }

  #frame(jpeg: Uint8Array, atSec: number): void {
    if (this.#stopped || this.#error) return;
    if (!this.#encoder) {
      const size = jpegSize(jpeg);
      if (!size) return;
      try {
        this.#encoder = WebmEncoder.start(this.ffmpeg, this.path, size, this.fps);
      } catch (err) {
        this.#error = `cannot start ffmpeg: ${(err as Error).message}`;
        return;
      }
    }
    this.#hold(atSec);
    this.#last = jpeg;
  }

  /** Repeats the frame shown until `atSec` (the first one covers the time before it came). */
  #hold(atSec: number): void {
    const enc = this.#encoder;
    if (!enc) return;
    const due = framesDue(this.#startSec, atSec, this.fps);
    const frame = this.#last;
    if (!frame) return;
    while (enc.frames < due) enc.write(frame);
  }

  /**
   * Stops the screencast and finishes the file, the last frame held until now (after
   * {@linkcode VIDEO_TAIL_MS}, so the end state stays on screen a moment).
   *
   * @returns the file, its duration and frame count
   * @throws {Error} when no frame came or ffmpeg failed
   */
  async stop(): Promise<VideoFile> {
    if (this.#stopped) throw new Error("The recording was already stopped");
    // the last action's paint is still on its way, and a video that ends on its action's
    // frame shows its outcome too briefly to see
    await new Promise((r) => setTimeout(r, this.tailMs));
    await this.#session.send("Page.stopScreencast").catch(() => {});
    await this.#session.detach().catch(() => {});
    const end = Date.now() / 1000;
    this.#stopped = true;
    const enc = this.#encoder;
    if (this.#error) {
      enc?.kill();
      throw new Error(this.#error);
    }
    if (!enc || !this.#last) throw new Error("The browser sent no screencast frame");
    // the first frame covers the time before it came; at least one frame in all
    const due = Math.max(framesDue(this.#startSec, end, this.fps), 1);
    while (enc.frames < due) enc.write(this.#last);
    await enc.finish();
    return {
      path: this.path,
      durationMs: Math.round(enc.frames * 1000 / this.fps),
      frames: enc.frames,
    };
  }
}

function decodeBase64(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
