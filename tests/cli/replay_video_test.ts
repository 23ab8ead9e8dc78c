/**
 * `cairn replay --video`: a real process plays three actions in Chromium with recorded timing
 * (a second between them), records the screencast with the subtitles and ffmpeg encodes it. The
 * file is checked with ffprobe (WebM, VP8, its length) and by its frames' colours (the page's
 * colour changes at each click, the subtitle box is drawn over the page's bottom). Without ffmpeg
 * the command fails before it starts, with one line.
 */
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { cairn } from "../_fixtures/cli_run.ts";
import type { PlaybackReport } from "../../engine/playback/report.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { framesDue, jpegSize, VIDEO_TAIL_MS } from "../../drivers/chrome/screencast.ts";

const PAGE = `<!doctype html><html><head><style>
  html,body{margin:0;height:100%;background:#fff}
  button{position:absolute;top:10px;width:60px;height:30px}
</style></head><body>
<button id="red" style="left:10px" onclick="document.body.style.background='#f00'">red</button>
<button id="blue" style="left:90px" onclick="document.body.style.background='#00f'">blue</button>
</body></html>`;

function servePage(): { url: string; close: () => Promise<void> } {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }),
  );
  return { url: `http://127.0.0.1:${server.addr.port}/`, close: () => server.shutdown() };
}

async function run(cmd: string, args: string[]): Promise<Uint8Array> {
  const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) throw new Error(`${cmd} failed: ${new TextDecoder().decode(out.stderr)}`);
  return out.stdout;
}

/** The mean colour of `region` (an ffmpeg crop, or the whole frame) four times a second. */
async function meanColours(video: string, crop?: string): Promise<[number, number, number][]> {
  const vf = [...(crop ? [`crop=${crop}`] : []), "fps=4", "scale=1:1:flags=area"].join(",");
  const raw = await run("/usr/bin/ffmpeg", [
    ...["-v", "error", "-i", video, "-vf", vf, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
  ]);
  const out: [number, number, number][] = [];
  for (let i = 0; i + 2 < raw.length; i += 3) out.push([raw[i]!, raw[i + 1]!, raw[i + 2]!]);
  return out;
}

function named([r, g, b]: [number, number, number]): string {
  if (r > 200 && g > 200 && b > 200) return "white";
  if (r > 180 && g < 80 && b < 80) return "red";
  if (b > 180 && r < 80 && g < 80) return "blue";
  return "other";
}

Deno.test("framesDue counts whole frames since the start; jpegSize reads a JPEG's size", async () => {
  assertEquals(framesDue(10, 10, 10), 0);
  assertEquals(framesDue(10, 10.099, 10), 0);
  assertEquals(framesDue(10, 10.1, 10), 1);
  assertEquals(framesDue(10, 12.55, 10), 25);
  const dir = await Deno.makeTempDir({ prefix: "cairn-jpeg-" });
  try {
    await run("/usr/bin/ffmpeg", [
      ...["-v", "error", "-f", "lavfi", "-i", "color=c=red:s=234x98", "-frames:v", "1"],
      `${dir}/a.jpg`,
    ]);
    assertEquals(jpegSize(await Deno.readFile(`${dir}/a.jpg`)), { width: 234, height: 98 });
    assertEquals(jpegSize(new TextEncoder().encode("not a jpeg")), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn replay --video writes a WebM of the playback's length whose frames follow the actions, subtitles burnt in", async () => {
  const web = servePage();
  const dir = await Deno.makeTempDir({ prefix: "cairn-replay-video-" });
  try {
    const file = `${dir}/colours.json`;
    await Deno.writeTextFile(
      file,
      JSON.stringify([
        { action: "navigate", url: web.url, timestamp_ms: 0 },
        { action: "click", selector: "#red", timestamp_ms: 1200 },
        { action: "click", selector: "#blue", timestamp_ms: 2400 },
      ]),
    );
    const video = `${dir}/out/replay.webm`;
    const db = `${dir}/c.db`;
    const res = await cairn([
      ...["replay", file, "--db", db, "--timing", "recorded", "--viewport", "640x400"],
      ...["--video", video, "--json"],
    ]);
    assertEquals(res.code, 0, res.stderr + res.stdout);
    const report = JSON.parse(res.stdout) as PlaybackReport;
    assertEquals(report.results.map((r) => r.status), ["ok", "ok", "ok"]);
    assertEquals(report.video?.path, video);
    assertEquals(report.video_error, undefined);

    // a WebM with one VP8 stream, 640x400, as long as the report says and the playback lasted
    const probe = JSON.parse(
      new TextDecoder().decode(
        await run("/usr/bin/ffprobe", [
          ...["-v", "error", "-show_entries", "format=format_name,duration"],
          ...["-show_entries", "stream=codec_name,width,height", "-of", "json", video],
        ]),
      ),
    ) as {
      format: { format_name: string; duration: string };
      streams: { codec_name: string; width: number; height: number }[];
    };
    assertStringIncludes(probe.format.format_name, "webm");
    assertEquals(probe.streams.map((s) => [s.codec_name, s.width, s.height]), [["vp8", 640, 400]]);
    const seconds = Number(probe.format.duration);
    assert(
      Math.abs(seconds - report.video!.duration_ms! / 1000) < 0.25,
      `ffprobe ${seconds} s, report ${report.video!.duration_ms} ms`,
    );
    // the recorded delays (2.4 s) at least, and as long as the playback with the moment its end
    // state is held
    assert(seconds >= 2.3, `${seconds} s`);
    const expected = (report.duration_ms + VIDEO_TAIL_MS) / 1000;
    assert(Math.abs(seconds - expected) < 0.6, `${seconds} s vs ${expected} s`);

    // the page's colour, sampled 4 times a second: white, then red after the first click, then
    // blue after the second, each held for the second between the actions
    const body = (await meanColours(video, "iw:ih/2:0:ih/4")).map(named);
    const runs = body.filter((c, i) => c !== "other" && c !== body[i - 1]);
    assertEquals(runs.filter((c, i) => c !== runs[i - 1]), ["white", "red", "blue"], body.join());
    assert(body.filter((c) => c === "red").length >= 3, `red held: ${body.join()}`);
    assert(body.filter((c) => c === "blue").length >= 1, body.join());

    // the subtitle box (dark, at the bottom centre) is in the frames
    const subtitle = await meanColours(video, "120:16:(iw-120)/2:ih-36");
    const dark = subtitle.filter(([r, g, b]) => r + g + b < 200).length;
    assert(dark >= subtitle.length / 2, `subtitle region: ${JSON.stringify(subtitle)}`);

    // the event log says where the video went
    const store = SqliteEventStore.open(db);
    try {
      const events = await Array.fromAsync(store.readStream(`playback-${report.playback_id}`));
      const done = events.at(-1)!;
      assertEquals(done.type, "PlaybackCompleted");
      assertEquals((done.data as { video?: { path?: string } }).video?.path, video);
    } finally {
      store.close();
    }

    // history's timeline names it on the playback's last line
    const history = await cairn(["history", report.playback_id, "--db", db]);
    assertEquals(history.code, 0, history.stderr);
    assertStringIncludes(history.stdout, `; video ${video}`);

    // the table names it too
    const table = await cairn([
      ...["replay", file, "--db", db, "--viewport", "640x400", "--video", `${dir}/b.webm`],
    ]);
    assertEquals(table.code, 0, table.stderr);
    assertStringIncludes(table.stdout, `video: ${dir}/b.webm (`);
  } finally {
    await web.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn replay --video without ffmpeg: one line saying so, non-zero exit, nothing played", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-replay-noffmpeg-" });
  try {
    const file = `${dir}/one.json`;
    await Deno.writeTextFile(
      file,
      JSON.stringify([{ action: "navigate", url: "http://127.0.0.1:9/" }]),
    );
    const db = `${dir}/c.db`;
    for (
      const env of [
        { CAIRN_FFMPEG: `${dir}/no-such-ffmpeg` },
        { CAIRN_FFMPEG: "", PATH: `${dir}/empty-bin` },
      ]
    ) {
      const res = await cairn(["replay", file, "--db", db, "--video", `${dir}/v.webm`], env);
      assert(res.code !== 0, `${JSON.stringify(env)}: exit ${res.code}`);
      const lines = res.stderr.trim().split("\n");
      assertEquals(lines.length, 1, res.stderr);
      assertStringIncludes(lines[0]!, "--video: Video needs ffmpeg");
      assertStringIncludes(lines[0]!, "apt-get install ffmpeg");
      assertEquals(res.stdout, "");
      assert(!(await Deno.stat(`${dir}/v.webm`).then(() => true, () => false)));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
