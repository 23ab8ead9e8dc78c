/**
 * Installs Appium and its UiAutomator2 driver from npm into a Cairn-owned `APPIUM_HOME`
 * (`.cairn/appium/` at the project root, or `CAIRN_APPIUM_HOME`), once: later calls find the
 * pinned versions in place and return at once.
 *
 * Both packages are plain npm dependencies of that folder; Appium discovers the driver in
 * `APPIUM_HOME/node_modules` (install type `npm`), so nothing but the npm registry is needed.
 *
 * @module
 */
import { DriverError } from "../driver.ts";

/** The pinned Appium server version. */
export const APPIUM_VERSION = "3.8.0";
/** The pinned UiAutomator2 driver version. */
export const UIAUTOMATOR2_VERSION = "8.7.0";

/** A lock older than this belongs to an install that died (a real one takes well under it). */
const STALE_LOCK_MS = 10 * 60_000;

/** Where an installed Appium lives. */
export interface AppiumInstall {
  /** The `APPIUM_HOME` folder. */
  home: string;
  /** Appium's CLI entry (`node <main> server …`). */
  main: string;
  appiumVersion: string;
  driverVersion: string;
}

/** Options of {@linkcode ensureAppium}. */
export interface EnsureAppiumOptions {
  /** The `APPIUM_HOME` folder (default {@linkcode defaultAppiumHome}). */
  home?: string;
  /**
   * Progress lines. Default: none, but for the line an install starts with, written to stderr
   * (a first run's npm install takes a while and writes into the project).
   */
  log?: (line: string) => void;
  /** How long to wait for another process's install in the same folder (default 5 min). */
  lockTimeoutMs?: number;
}

/**
 * The default `APPIUM_HOME`: `CAIRN_APPIUM_HOME`, else `.cairn/appium` at the project root.
 *
 * @returns an absolute path
 */
export function defaultAppiumHome(): string {
  const fromEnv = Deno.env.get("CAIRN_APPIUM_HOME");
  if (fromEnv) return fromEnv;
  return new URL("../../.cairn/appium", import.meta.url).pathname;
}

async function readVersion(path: string): Promise<string | undefined> {
  try {
    const pkg = JSON.parse(await Deno.readTextFile(path)) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads what is installed in an `APPIUM_HOME` without installing anything.
 *
 * @param home the folder
 * @returns the install, or undefined unless both pinned versions are there
 */
export async function findAppium(
  home: string = defaultAppiumHome(),
): Promise<AppiumInstall | undefined> {
  const appiumVersion = await readVersion(`${home}/node_modules/appium/package.json`);
  const driverVersion = await readVersion(
    `${home}/node_modules/appium-uiautomator2-driver/package.json`,
  );
  if (appiumVersion !== APPIUM_VERSION || driverVersion !== UIAUTOMATOR2_VERSION) return undefined;
  return { home, main: `${home}/node_modules/appium/index.js`, appiumVersion, driverVersion };
}

/**
 * Makes sure the pinned Appium and UiAutomator2 driver are installed in `home`, installing
 * them with `npm install` when missing. Concurrent callers wait on a lock folder.
 *
 * @param options the folder and a progress logger
 * @returns the install
 * @throws {DriverError} when npm is missing or the install fails (code `appium_install_failed`)
 */
export async function ensureAppium(options: EnsureAppiumOptions = {}): Promise<AppiumInstall> {
  const home = options.home ?? defaultAppiumHome();
  const found = await findAppium(home);
  if (found) return found;
  const lock = `${home}.lock`;
  const deadline = Date.now() + (options.lockTimeoutMs ?? 300_000);
  await Deno.mkdir(home.replace(/\/+[^/]+\/*$/, "") || ".", { recursive: true });
  for (;;) {
    try {
      await Deno.mkdir(lock);
      break;
    } catch (err) {
      if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
      const held = await Deno.stat(lock).then((st) => st.mtime?.getTime() ?? Date.now(), () => 0);
      if (Date.now() - held > STALE_LOCK_MS) {
        // An install killed midway left its lock: npm install is idempotent, take over.
        await Deno.remove(lock).catch(() => {});
        continue;
      }
      if (Date.now() > deadline) {
        throw new DriverError(
          `Cannot install Appium: ${lock} is held by another install (remove it if none is running)`,
          "appium_install_failed",
        );
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    const again = await findAppium(home);
    if (again) return again;
    await Deno.mkdir(home, { recursive: true });
    const pkg = { name: "cairn-appium-home", private: true, version: "0.0.0" };
    await Deno.writeTextFile(`${home}/package.json`, JSON.stringify(pkg, null, 2) + "\n");
    (options.log ?? ((line: string) => console.error(line)))(
      `appium: installing appium@${APPIUM_VERSION} and appium-uiautomator2-driver@${UIAUTOMATOR2_VERSION} into ${home} (first run)…`,
    );
    let out: Deno.CommandOutput;
    try {
      out = await new Deno.Command("npm", {
        args: [
          "install",
          "--no-audit",
          "--no-fund",
          "--loglevel=error",
          `appium@${APPIUM_VERSION}`,
          `appium-uiautomator2-driver@${UIAUTOMATOR2_VERSION}`,
        ],
        cwd: home,
        stdout: "piped",
        stderr: "piped",
      }).output();
    } catch (err) {
      throw new DriverError(
        `Cannot install Appium: npm could not be run (${
          err instanceof Error ? err.message : err
        }); install Node.js and npm`,
        "appium_install_failed",
        { cause: err },
      );
    }
    if (!out.success) {
      const tail = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-3).join(" ");
      throw new DriverError(
        `Cannot install Appium: npm install exited with ${out.code}: ${tail}`,
        "appium_install_failed",
      );
    }
    const installed = await findAppium(home);
    if (!installed) {
      throw new DriverError(
        `Cannot install Appium: npm finished but ${home} lacks the pinned versions`,
        "appium_install_failed",
      );
    }
    // Let Appium index its extensions once now (it writes a manifest under APPIUM_HOME), so
    // servers started side by side later never race to write it; and check it sees the driver.
    const drivers = await installedDrivers(installed);
    if (!drivers.some((d) => d.name === "uiautomator2")) {
      throw new DriverError(
        `Cannot install Appium: appium does not list the uiautomator2 driver in ${home}`,
        "appium_install_failed",
      );
    }
    options.log?.(`appium: installed in ${home}`);
    return installed;
  } finally {
    await Deno.remove(lock).catch(() => {});
  }
}

/** A driver Appium lists as installed. */
export interface InstalledDriver {
  name: string;
  automationName: string;
  version: string;
  installType: string;
  platformNames: string[];
}

/**
 * Asks Appium itself which drivers are installed (`appium driver list --installed --json`).
 *
 * @param install the install to ask
 * @returns the installed drivers
 * @throws {DriverError} when the Appium CLI fails
 */
export async function installedDrivers(install: AppiumInstall): Promise<InstalledDriver[]> {
  const out = await new Deno.Command("node", {
    args: [install.main, "driver", "list", "--installed", "--json"],
    env: { APPIUM_HOME: install.home },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new DriverError(
      `Cannot list Appium drivers: appium exited with ${out.code}: ${
        new TextDecoder().decode(out.stderr).trim().slice(0, 300)
      }`,
      "appium_failed",
    );
  }
  const json = JSON.parse(text.slice(text.indexOf("{"))) as Record<string, Record<string, unknown>>;
  return Object.entries(json).map(([name, d]) => ({
    name,
    automationName: String(d.automationName ?? ""),
    version: String(d.version ?? ""),
    installType: String(d.installType ?? ""),
    platformNames: Array.isArray(d.platformNames) ? d.platformNames.map(String) : [],
  }));
}
