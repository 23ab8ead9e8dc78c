/**
 * What `deno task test` needs before it runs, installed by the project itself:
 * the WASM module (built from `wasm/assembly/`), Debian's Chromium at `/usr/bin/chromium`, and
 * Xvfb and xdotool for the recorder's headed tests, ffmpeg for replay videos (each installed with apt-get when missing;
 * needs root, as on CI).
 *
 * @module
 */
import { pgAvailable } from "../events/postgres_cluster.ts";

async function run(cmd: string, args: string[]): Promise<void> {
  const { code } = await new Deno.Command(cmd, { args, stdout: "inherit", stderr: "inherit" })
    .output();
  if (code !== 0) throw new Error(`${cmd} ${args.join(" ")} exited with ${code}`);
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

if (import.meta.main) {
  // every npm package the CLI loads, in node_modules before the tests start: otherwise the first
  // of many `cairn` subprocesses run in parallel installs them, and the others print "Blocking
  // waiting for file lock" into the output the tests compare
  await run(Deno.execPath(), [
    "install",
    "--entrypoint",
    new URL("../main.ts", import.meta.url).pathname,
  ]);
  // and every other package deno.json names (the ones only tests and scripts load, such as ajv or
  // @puppeteer/replay): a test's subprocess that loads one would install it mid-run
  await run(Deno.execPath(), ["install"]);
  await run(Deno.execPath(), ["run", "-A", new URL("build_wasm.ts", import.meta.url).pathname]);
  await run(Deno.execPath(), ["run", "-A", new URL("setup_appium.ts", import.meta.url).pathname]);
  // Debian packages the tests need, each installed when its program is missing: Chromium, and
  // Xvfb + xdotool (the recorder's tests drive a headed Chromium on a virtual display with real
  // OS input), ffmpeg
  const chromium = Deno.env.get("CAIRN_CHROMIUM") ?? "/usr/bin/chromium";
  const missing: string[] = [];
  if (!(await exists(chromium))) missing.push("chromium");
  if (!(await exists("/usr/bin/Xvfb"))) missing.push("xvfb");
  if (!(await exists("/usr/bin/xdotool"))) missing.push("xdotool");
  // ffmpeg encodes replay videos (replay --video) and ffprobe checks them in the tests
  if (!(await exists("/usr/bin/ffmpeg")) || !(await exists("/usr/bin/ffprobe"))) {
    missing.push("ffmpeg");
  }
  if (missing.length > 0) {
    console.log(
      `setup: installing Debian ${missing.join(", ")} with apt-get (this takes a minute)`,
    );
    const env = { DEBIAN_FRONTEND: "noninteractive" };
    const apt = async (args: string[]) => {
      const { code } = await new Deno.Command("apt-get", {
        args,
        env,
        stdout: "null",
        stderr: "inherit",
      })
        .output();
      if (code !== 0) throw new Error(`apt-get ${args.join(" ")} exited with ${code}`);
    };
    await apt(["update", "-q"]);
    await apt(["install", "-y", "-q", ...missing]);
    console.log(`setup: ${missing.join(", ")} installed`);
  }
  // the PostgreSQL event store's tests start a throwaway server from Debian's package
  if (!pgAvailable()) {
    console.log("setup: installing Debian postgresql with apt-get");
    for (const args of [["update", "-q"], ["install", "-y", "-q", "postgresql"]]) {
      const out = await new Deno.Command("apt-get", {
        args,
        env: { DEBIAN_FRONTEND: "noninteractive" },
        stdout: "null",
      }).output();
      if (!out.success) throw new Error(`apt-get ${args.join(" ")} exited with ${out.code}`);
    }
  }
}
