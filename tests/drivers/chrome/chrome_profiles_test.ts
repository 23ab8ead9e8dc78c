/**
 * Profile folders a killed Cairn left behind are removed by the next launch: Chromium dies with
 * a SIGKILLed Cairn (it runs over a pipe), but its `cairn-chrome-…` folder stayed in the temp
 * folder for good. Real folders in a temp dir, a real process holding one (`sh` with the flag on
 * its command line, as a live Chromium has), and a real Chromium launch with `TMPDIR` pointed at
 * the temp dir.
 */
import { launchChrome } from "../../../drivers/chrome/launch.ts";
import { removeStaleProfiles, STALE_PROFILE_MS } from "../../../drivers/chrome/profiles.ts";
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { waitUntil } from "../../_fixtures/wait.ts";

const exists = (p: string) => Deno.lstat(p).then(() => true, () => false);

/** Makes a folder with a file in it, last changed `agoMs` ago. */
async function folder(path: string, agoMs: number): Promise<string> {
  await Deno.mkdir(path);
  await Deno.writeTextFile(`${path}/Local State`, "{}");
  const when = new Date(Date.now() - agoMs);
  await Deno.utime(path, when, when);
  return path;
}

Deno.test("removeStaleProfiles() removes old unused cairn-chrome folders and nothing else", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "cairn_profiles_" });
  const old = STALE_PROFILE_MS + 60_000;
  const gone = await folder(`${tmp}/cairn-chrome-dead1`, old);
  const used = await folder(`${tmp}/cairn-chrome-live1`, old);
  const fresh = await folder(`${tmp}/cairn-chrome-new1`, 1_000);
  const other = await folder(`${tmp}/someone-else`, old);
  const own = await folder(`${tmp}/cairn-chrome-own1`, old);
  await Deno.symlink(other, `${tmp}/cairn-chrome-link1`);
  // a live process started with the flag, as a running Chromium is (two commands: sh stays)
  const holder = new Deno.Command("sh", {
    args: ["-c", "sleep 30; true", "sh", `--user-data-dir=${used}`],
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    // the holder's command line, once it has one (bounded)
    await waitUntil("the holder's command line", async () => {
      const line = await Deno.readTextFile(`/proc/${holder.pid}/cmdline`).catch(() => "");
      return line.includes("--user-data-dir=");
    }, { everyMs: 20, timeoutMs: 10_000 });
    assertEquals(await removeStaleProfiles(tmp, own), [gone]);
    assert(!(await exists(gone)), "the dead browser's folder is gone");
    for (const kept of [used, fresh, other, own, `${tmp}/cairn-chrome-link1`]) {
      assert(await exists(kept), `${kept} kept`);
    }
  } finally {
    holder.kill("SIGKILL");
    await holder.status;
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("launchChrome() removes a stale profile folder of its temp folder, and its own on close", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "cairn_profiles_launch_" });
  const stale = await folder(`${tmp}/cairn-chrome-killed`, STALE_PROFILE_MS + 60_000);
  const before = Deno.env.get("TMPDIR");
  Deno.env.set("TMPDIR", tmp);
  try {
    const launched = await launchChrome();
    try {
      assert(launched.userDataDir!.startsWith(`${tmp}/cairn-chrome-`), launched.userDataDir);
      assert(!(await exists(stale)), "the killed run's folder is removed by the launch");
    } finally {
      await launched.close();
    }
    assert(!(await exists(launched.userDataDir!)), "its own folder is removed on close");
  } finally {
    if (before === undefined) Deno.env.delete("TMPDIR");
    else Deno.env.set("TMPDIR", before);
    await removeWhenQuiet(tmp);
  }
});

/**
 * Removes a folder Chromium's helpers used as TMPDIR: they may write their last files there a
 * moment after the browser is gone, so the removal is retried (bounded, 5 s).
 */
async function removeWhenQuiet(dir: string): Promise<void> {
  for (let i = 0;; i++) {
    try {
      return await Deno.remove(dir, { recursive: true });
    } catch (err) {
      if (i >= 50) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

Deno.test("launchChrome(): a kill while a close is under way returns once the browser is gone and its profile removed", async () => {
  const launched = await launchChrome();
  const child = launched.browser.process()!;
  // the close asks the browser to exit and waits for it; the kill (a forced end) comes meanwhile
  const closing = launched.close();
  await launched.kill();
  // whoever waited for the kill sees the release done, not still under way
  assert(child.exitCode !== null || child.signalCode !== null, "the browser still runs");
  assert(!(await exists(launched.userDataDir!)), "the profile is still there");
  await closing;
});
