/// <reference lib="dom" />
/**
 * Robustness benchmark of optimized trails: three apps written for it (a shop, a settings page
 * with tabs and a table of rows sharing control names, a task list; none is a page the optimizer
 * was tuned on), each flow blazed through the CLI as an agent would (`cairn blaze start`,
 * `snapshot`, then `tap`/`type`/`select`/`check`/`press`/`read`/`assert` by ref), optimized with
 * `cairn optimize --mode strict|flexible|adaptive`, and every trail replayed by the playback runner
 * on ten variants of its app: unchanged, and nine mutations made by one function for every app
 * (`tests/testdata/robustness_apps/bench.js`: ids randomised, classes churned, copy changed, a
 * banner inserted, lists reordered, layout changed, a smaller viewport, test ids removed, all
 * combined). Beside them: the same flow as a Chrome DevTools Recorder JSON (five selectors a
 * step, generated from the page's identities) replayed by `@puppeteer/replay` and by Cairn.
 *
 * Every action is scored by the logical element it really hit: each element carries a
 * `data-ident` no selector reads, and the page logs which one received each click, input,
 * change and keydown. A read or assertion is scored by its value: the value read (or asserted)
 * is unique on the page, so it is correct only on the intended element; a mismatch while every
 * earlier action was correct is a wrong-element read. Scores: `ok` (the intended element),
 * `miss` (not located, failed, or the trail lost the action) and `wrong` (another element).
 *
 * Run: `deno run -A scripts/bench_robustness.ts [--json] [--out=FILE] [--apps=shop,tasks]
 * [--variants=N] [--modes=adaptive] [--debug]` (the default command; `--shop` runs the older
 * recording benchmark).
 *
 * @module
 */
import type { Page } from "puppeteer-core";
import { createRunner, PuppeteerRunnerExtension } from "@puppeteer/replay";
import { ChromeDriver } from "../drivers/chrome/chrome_driver.ts";
import type { Driver } from "../drivers/driver.ts";
import { runPlayback } from "../runners/playback/runner.ts";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import type { PlaybackPlan } from "../engine/playback/actions.ts";
import type { PlaybackReport } from "../engine/playback/report.ts";
import { planFromText, rebasePlan } from "../engine/playback/load_plan.ts";
import { recordTarget } from "../tests/_fixtures/playback_record_helper.ts";
import { recorderSelectorsInPage } from "./bench_robustness_shared.ts";

const APPS_ROOT = new URL("../tests/testdata/robustness_apps/", import.meta.url).pathname;
const MAIN = new URL("../main.ts", import.meta.url).pathname;
const BLAZE_VIEWPORT = { width: 1280, height: 800 };
/** How long a lookup or an assertion may wait (both engines): bounded so a run takes minutes. */
const WAIT_MS = 1_000;
/** `@puppeteer/replay`'s step timeout: its wait for the element and the typing together. */
const PEER_TIMEOUT_MS = 3_000;

// ---- the apps and their flows ---------------------------------------------------------------

/** How the agent finds an element in a snapshot: its role and name, near a text. */
export interface Locator {
  role: string;
  name?: string;
  /** A text shown in the element's row, list item or paragraph (the agent's "in Bob's row"). */
  within?: string;
}

/** One action of a flow. */
export interface FlowStep {
  tool: "tap" | "type" | "select" | "check" | "press" | "read" | "assert";
  /** The logical element it must hit (for `press`, the element that has focus). */
  ident: string;
  find?: Locator;
  text?: string;
  value?: string;
  checked?: boolean;
  key?: string;
  /** `read`: memory key; `read`/`assert`: the value the intended element shows. */
  storeAs?: string;
  expect?: string;
  /** Starts a new NL step (`cairn blaze step`) before this action. */
  nl?: string;
}

/** An app of the benchmark and its flow. */
export interface BenchApp {
  name: string;
  file: string;
  prompt: string;
  flow: FlowStep[];
  /**
   * The secret the flow types into a password field: the trail keeps its memory key as `null`,
   * and the run supplies it (as `cairn replay --memory password=…` does).
   */
  secret?: string;
}

/** The apps. */
export const APPS: BenchApp[] = [
  {
    name: "shop",
    file: "shop.html",
    prompt: "Sign in, buy a lamp, a notebook and a mug with express shipping",
    secret: "hunter22",
    flow: [
      {
        nl: "Sign in",
        tool: "type",
        ident: "email",
        find: { role: "textbox", name: "Email" },
        text: "ann@example.com",
      },
      {
        tool: "type",
        ident: "password",
        find: { role: "textbox", name: "Password" },
        text: "hunter22",
      },
      { tool: "press", ident: "password", key: "Enter" },
      {
        nl: "Add three products",
        tool: "tap",
        ident: "add-lamp",
        find: { role: "button", name: "Add Desk lamp to cart" },
      },
      {
        tool: "tap",
        ident: "add-notebook",
        find: { role: "button", name: "Add Notebook to cart" },
      },
      { tool: "tap", ident: "add-mug", find: { role: "button", name: "Add Coffee mug to cart" } },
      { nl: "Open the cart", tool: "tap", ident: "nav-cart", find: { role: "button" } },
      {
        tool: "read",
        ident: "cart-total",
        find: { role: "generic", within: "Total:" },
        storeAs: "total",
        expect: "$37.65",
      },
      {
        nl: "Check out with express shipping",
        tool: "tap",
        ident: "checkout",
        find: { role: "button", name: "Checkout" },
      },
      {
        tool: "select",
        ident: "shipping",
        find: { role: "combobox", name: "Shipping" },
        value: "express",
      },
      {
        tool: "type",
        ident: "note",
        find: { role: "textbox", name: "Note" },
        text: "Leave at the door",
      },
      {
        tool: "check",
        ident: "terms",
        find: { role: "checkbox", name: "I accept the terms" },
        checked: true,
      },
      {
        tool: "assert",
        ident: "grand-total",
        find: { role: "generic", within: "Grand total:" },
        expect: "$47.65",
      },
      {
        nl: "Place the order",
        tool: "tap",
        ident: "place-order",
        find: { role: "button", name: "Place order" },
      },
      {
        tool: "assert",
        ident: "order-number",
        find: { role: "generic", within: "is on its way" },
        expect: "A-4765X17",
      },
    ],
  },
  {
    name: "settings",
    file: "settings.html",
    prompt: "Update the profile, turn on the digest and tidy the team",
    flow: [
      {
        nl: "Update the profile",
        tool: "type",
        ident: "display-name",
        find: { role: "textbox", name: "Display name" },
        text: "Robin",
      },
      {
        tool: "select",
        ident: "timezone",
        find: { role: "combobox", name: "Time zone" },
        value: "cet",
      },
      { tool: "tap", ident: "save-profile", find: { role: "button", name: "Save" } },
      {
        tool: "assert",
        ident: "profile-status",
        find: { role: "generic", name: "Saved Robin (CET)" },
        expect: "Saved Robin (CET)",
      },
      {
        nl: "Turn on the weekly digest",
        tool: "tap",
        ident: "tab-notify",
        find: { role: "tab", name: "Notifications" },
      },
      {
        tool: "check",
        ident: "notify-digest",
        find: { role: "checkbox", name: "Weekly digest" },
        checked: true,
      },
      { tool: "tap", ident: "save-notify", find: { role: "button", name: "Save" } },
      {
        tool: "read",
        ident: "notify-status",
        find: { role: "generic", name: "2 of 3 channels on" },
        storeAs: "channels",
        expect: "2 of 3 channels on",
      },
      {
        nl: "Make Bob an admin, deactivate Cat, remove Dan, invite Eve",
        tool: "tap",
        ident: "tab-users",
        find: { role: "tab", name: "Users" },
      },
      {
        tool: "select",
        ident: "role-bob",
        find: { role: "combobox", name: "Role", within: "Bob Stone" },
        value: "admin",
      },
      {
        tool: "check",
        ident: "active-cat",
        find: { role: "checkbox", name: "Active", within: "Cat Moss" },
        checked: false,
      },
      {
        tool: "tap",
        ident: "remove-dan",
        find: { role: "button", name: "Remove", within: "Dan Wu" },
      },
      {
        tool: "type",
        ident: "invite",
        find: { role: "textbox", name: "Invite" },
        text: "eve@example.com",
      },
      { tool: "press", ident: "invite", key: "Enter" },
      {
        tool: "assert",
        ident: "user-summary",
        find: { role: "generic", within: "members" },
        expect: "4 members, 3 active, 2 admins",
      },
    ],
  },
  {
    name: "tasks",
    file: "tasks.html",
    prompt: "Add three tasks, finish one, delete one and count what is open",
    flow: [
      {
        nl: "Add three tasks",
        tool: "type",
        ident: "new-task",
        find: { role: "textbox", name: "New task" },
        text: "Buy milk",
      },
      { tool: "press", ident: "new-task", key: "Enter" },
      {
        tool: "select",
        ident: "new-priority",
        find: { role: "combobox", name: "Priority" },
        value: "high",
      },
      {
        tool: "type",
        ident: "new-task",
        find: { role: "textbox", name: "New task" },
        text: "Pay rent",
      },
      { tool: "press", ident: "new-task", key: "Enter" },
      {
        tool: "type",
        ident: "new-task",
        find: { role: "textbox", name: "New task" },
        text: "Call Ann",
      },
      { tool: "press", ident: "new-task", key: "Enter" },
      {
        nl: "Finish one, delete one",
        tool: "check",
        ident: "done-buy-milk",
        find: { role: "checkbox", name: "Done", within: "Buy milk" },
        checked: true,
      },
      {
        tool: "tap",
        ident: "delete-call-ann",
        find: { role: "button", name: "Delete", within: "Call Ann" },
      },
      {
        nl: "Count the open tasks",
        tool: "tap",
        ident: "filter-open",
        find: { role: "button", name: "Open" },
      },
      {
        tool: "read",
        ident: "items-left",
        find: { role: "generic", within: "urgent" },
        storeAs: "open",
        expect: "1 open",
      },
      {
        tool: "assert",
        ident: "high-count",
        find: { role: "generic", name: "1 urgent" },
        expect: "1 urgent",
      },
      { tool: "tap", ident: "filter-done", find: { role: "button", name: "Done" } },
      {
        tool: "assert",
        ident: "title-buy-milk",
        find: { role: "text", within: "Buy milk" },
        expect: "Buy milk",
      },
    ],
  },
  {
    name: "clinic",
    file: "clinic.html",
    prompt: "Book a video visit with a dermatologist, then cancel Dr. Haddad's appointment",
    flow: [
      {
        nl: "Find Dr. Brandt, a dermatologist, for a video call",
        tool: "type",
        ident: "doctor-search",
        find: { role: "combobox", name: "Search specialty or doctor" },
        text: "derm",
      },
      {
        tool: "tap",
        ident: "opt-brandt",
        find: { role: "option", name: "Dr. Leo Brandt · Dermatology" },
      },
      {
        tool: "check",
        ident: "visit-video",
        find: { role: "radio", name: "Video call" },
        checked: true,
      },
      { tool: "tap", ident: "continue-doctor", find: { role: "button", name: "Continue" } },
      {
        nl: "Pick July 14 at 10:00",
        tool: "tap",
        ident: "cal-next",
        find: { role: "button", name: "Next month" },
      },
      {
        tool: "tap",
        ident: "day-2027-07-14",
        find: { role: "button", name: "July 14, 2027" },
      },
      { tool: "tap", ident: "slot-1000", find: { role: "button", name: "10:00" } },
      { tool: "tap", ident: "continue-date", find: { role: "button", name: "Continue" } },
      {
        nl: "Fill in the patient's details, insured with TK",
        tool: "type",
        ident: "patient-name",
        find: { role: "textbox", name: "Full name" },
        text: "Jonas Weber",
      },
      {
        tool: "type",
        ident: "patient-dob",
        find: { role: "textbox", name: "Date of birth" },
        text: "12/04/1988",
      },
      {
        tool: "type",
        ident: "patient-phone",
        find: { role: "textbox", name: "Phone number" },
        text: "+49 30 1234567",
      },
      {
        tool: "type",
        ident: "patient-email",
        find: { role: "textbox", name: "Email" },
        text: "jonas@example.com",
      },
      {
        tool: "type",
        ident: "patient-reason",
        find: { role: "textbox", name: "Reason for visit" },
        text: "Itchy rash on the arm",
      },
      {
        tool: "select",
        ident: "insurer",
        find: { role: "combobox", name: "Insurer" },
        value: "tk",
      },
      {
        tool: "check",
        ident: "consent",
        find: { role: "checkbox", name: "I consent to sharing my records with the insurer" },
        checked: true,
      },
      { tool: "tap", ident: "continue-details", find: { role: "button", name: "Continue" } },
      {
        nl: "Note the fee and book the appointment",
        tool: "read",
        ident: "fee",
        find: { role: "generic", name: "€9.60" },
        storeAs: "fee",
        expect: "€9.60",
      },
      { tool: "tap", ident: "book", find: { role: "button", name: "Book appointment" } },
      { tool: "tap", ident: "confirm-book", find: { role: "button", name: "Confirm booking" } },
      {
        tool: "assert",
        ident: "booking-ref",
        find: { role: "strong", within: "Your reference is" },
        expect: "RC-BRA07141000TK",
      },
      {
        nl: "Cancel the appointment with Dr. Omar Haddad",
        tool: "tap",
        ident: "nav-appointments",
        find: { role: "link", name: "My appointments" },
      },
      { tool: "tap", ident: "page-next", find: { role: "button", name: "Next page" } },
      {
        tool: "tap",
        ident: "cancel-a5",
        find: { role: "button", name: "Cancel appointment", within: "Dr. Omar Haddad" },
      },
      { tool: "tap", ident: "confirm-cancel", find: { role: "button", name: "Yes, cancel it" } },
      {
        tool: "assert",
        ident: "appt-status",
        find: { role: "status" },
        expect: "Cancelled Dr. Omar Haddad, 7 upcoming",
      },
    ],
  },
];

/** A variant: the mutation flags bench.js applies, and the replay viewport. */
export interface Variant {
  name: string;
  flags: string;
  viewport?: { width: number; height: number };
}

const SMALL = { width: 820, height: 620 };

/** The variants every app is replayed on. */
export const VARIANTS: Variant[] = [
  { name: "unchanged", flags: "" },
  { name: "ids randomised", flags: "ids" },
  { name: "classes churned", flags: "classes" },
  { name: "copy changed", flags: "copy" },
  { name: "banner inserted", flags: "banner" },
  { name: "lists reordered", flags: "reorder" },
  { name: "layout changed", flags: "layout" },
  { name: "viewport 820x620", flags: "", viewport: SMALL },
  { name: "test ids removed", flags: "notestid" },
  {
    name: "combined: no test ids, ids, classes, banner, reorder, layout, viewport",
    flags: "notestid,ids,classes,banner,reorder,layout",
    viewport: SMALL,
  },
  { name: "combined: no test ids, copy, reorder", flags: "notestid,copy,reorder" },
];

// ---- the server: one origin per variant ----------------------------------------------------

/** The apps served once per variant, each variant at its own origin. */
export interface AppServer {
  /** The origin (with a trailing slash) serving `flags`. */
  origin(flags: string): string;
  /** What the pages at `origin` logged through `/__log` since the last call. */
  takeLog(origin: string): string[];
  close(): Promise<void>;
}

/**
 * Serves `tests/testdata/robustness_apps/` on 127.0.0.1: a server per variant (so a trail's
 * navigations, re-pointed at an origin, reach that variant), each injecting its flags and
 * `bench.js` into every page.
 */
export function serveApps(flagSets: readonly string[]): AppServer {
  const servers = new Map<string, { server: Deno.HttpServer<Deno.NetAddr>; log: string[] }>();
  for (const flags of new Set(["", ...flagSets])) {
    const log: string[] = [];
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      async (req) => {
        const url = new URL(req.url);
        if (url.pathname === "/__log") {
          log.push(await req.text());
          return new Response("ok");
        }
        const file = url.pathname.replace(/^\/+/, "") || "shop.html";
        if (!/^[\w-]+\.(html|js)$/.test(file)) return new Response("Not found", { status: 404 });
        let text: string;
        try {
          text = await Deno.readTextFile(APPS_ROOT + file);
        } catch {
          return new Response("Not found", { status: 404 });
        }
        if (file.endsWith(".html")) {
          text = text.replace(
            "<head>",
            `<head><script>window.__VARIANT__ = ${
              JSON.stringify(flags)
            };</script><script src="/bench.js"></script>`,
          );
        }
        return new Response(text, {
          headers: {
            "content-type": file.endsWith(".js") ? "text/javascript" : "text/html; charset=utf-8",
            "cache-control": "no-store",
          },
        });
      },
    );
    servers.set(flags, { server, log });
  }
  const byOrigin = new Map<string, string[]>();
  for (const { server, log } of servers.values()) {
    byOrigin.set(`http://127.0.0.1:${server.addr.port}/`, log);
  }
  return {
    origin: (flags) => `http://127.0.0.1:${servers.get(flags)!.server.addr.port}/`,
    takeLog: (origin) => byOrigin.get(origin)?.splice(0) ?? [],
    close: async () => {
      for (const { server } of servers.values()) await server.shutdown();
    },
  };
}

// ---- blazing through the CLI --------------------------------------------------------------------

/** Runs `cairn ARGS` (what `deno task cairn` runs) and returns its exit code and output. */
export async function cairn(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

interface SnapLine {
  depth: number;
  role: string;
  name: string;
  ref: string;
  raw: string;
}

/** Parses `cairn blaze snapshot` lines: `- role "name" [states] [ref=R]: text`. */
export function parseSnapshot(text: string): SnapLine[] {
  const lines: SnapLine[] = [];
  for (const raw of text.split("\n")) {
    const m = raw.match(/^(\s*)- (\S+)(?: "((?:[^"\\]|\\.)*)")?.*\[ref=([^\]]+)\]/);
    if (!m) continue;
    lines.push({
      depth: m[1]!.length / 2,
      role: m[2]!,
      name: m[3] ? JSON.parse(`"${m[3]}"`) : "",
      ref: m[4]!,
      raw,
    });
  }
  return lines;
}

/**
 * The ref of the element an agent would pick: the first line with the locator's role and name,
 * whose enclosing row, list item, paragraph or group (up to three levels up) shows `within`.
 */
export function findRef(lines: readonly SnapLine[], loc: Locator): string | undefined {
  const block = (i: number): string => {
    const out = [lines[i]!.raw];
    for (let j = i + 1; j < lines.length && lines[j]!.depth > lines[i]!.depth; j++) {
      out.push(lines[j]!.raw);
    }
    return out.join("\n");
  };
  for (const [i, l] of lines.entries()) {
    if (l.role !== loc.role || (loc.name !== undefined && l.name !== loc.name)) continue;
    if (loc.within === undefined) return l.ref;
    // the nearest row, list item, paragraph or group (up to three levels up), else the parent
    let depth = l.depth;
    let parent = -1;
    for (let j = i - 1, levels = 0; j >= 0 && depth > 0 && levels < 3; j--) {
      if (lines[j]!.depth >= depth) continue;
      depth = lines[j]!.depth;
      levels++;
      if (parent < 0) parent = j;
      if (CONTAINERS.has(lines[j]!.role)) {
        parent = j;
        break;
      }
    }
    if (parent >= 0 && block(parent).includes(loc.within)) return l.ref;
  }
  return undefined;
}

const CONTAINERS = new Set(["row", "listitem", "paragraph", "group", "form"]);

/** Blazes an app's flow through the CLI; returns the session id. */
export async function blazeApp(
  app: BenchApp,
  origin: string,
  db: string,
  out: string,
): Promise<string> {
  const must = async (args: string[]) => {
    const r = await cairn([...args, "--db", db]);
    if (r.code !== 0) {
      throw new Error(`cairn ${args.join(" ")} exited ${r.code}: ${r.stdout}${r.stderr}`);
    }
    return r.stdout;
  };
  const started = await must([
    "blaze",
    "start",
    "--url",
    origin + app.file,
    "--prompt",
    app.prompt,
  ]);
  const session = started.match(/Session (\S+) started/)?.[1];
  if (!session) throw new Error(`blaze start printed no session: ${started}`);
  try {
    for (const step of app.flow) {
      if (step.nl) await must(["blaze", "step", step.nl]);
      let ref = "";
      if (step.find) {
        const snap = await must(["blaze", "snapshot"]);
        ref = findRef(parseSnapshot(snap), step.find) ?? "";
        if (!ref) {
          throw new Error(`${app.name}: no ${JSON.stringify(step.find)} in the snapshot:\n${snap}`);
        }
      }
      const words: string[] = [];
      switch (step.tool) {
        case "tap":
          words.push(`ref=${ref}`);
          break;
        case "type":
          words.push(`ref=${ref}`, `text=${step.text}`);
          break;
        case "select":
          words.push(`ref=${ref}`, `value=${step.value}`);
          break;
        case "check":
          words.push(`ref=${ref}`, ...(step.checked === false ? ["checked=false"] : []));
          break;
        case "press":
          words.push(`key=${step.key}`);
          break;
        case "read":
          words.push(`ref=${ref}`, `storeAs=${step.storeAs}`);
          break;
        case "assert":
          words.push(`ref=${ref}`, `text=${step.expect}`);
          break;
      }
      await must(["blaze", step.tool, ...words]);
    }
  } finally {
    await cairn(["blaze", "end", "--reason", "completed", "--out", out, "--db", db]);
  }
  return session;
}

// ---- the Recorder flow, generated from the page's identities ------------------------------------

/** Recorder selectors of each flow step (five kinds a step), recorded on the unchanged app. */
export async function recorderSelectors(app: BenchApp, origin: string): Promise<string[][][]> {
  const driver = await ChromeDriver.launch({ viewport: BLAZE_VIEWPORT });
  try {
    await driver.navigate(origin + app.file);
    const out: string[][][] = [];
    for (const step of app.flow) {
      // pierce/: an element inside an open shadow root is found as any other
      const sel = `pierce/[data-ident="${step.ident}"]`;
      if (step.tool === "press") {
        out.push([]);
        await driver.press(step.key!);
        await driver.waitForSettle({ quietMs: 80, timeoutMs: 2_000 });
        continue;
      }
      await driver.page.waitForSelector(sel, { visible: true, timeout: 5_000 });
      if (step.expect !== undefined) {
        // a read is judged by its value: the value must be the intended element's, and no other
        // visible element may show it
        const shown = await driver.page.evaluate(textHoldersInPage, step.expect);
        if (shown.length !== 1 || shown[0] !== step.ident) {
          throw new Error(
            `${app.name}: ${JSON.stringify(step.expect)} is shown by ${
              JSON.stringify(shown)
            }, not by ${step.ident} alone: a read of it could not tell the element`,
          );
        }
      }
      const target = await recordTarget(driver.page, sel);
      let { css, xpath } = await driver.page.$eval(sel, recorderSelectorsInPage);
      // as the Recorder: a CSS selector that is not unique becomes a path from the nearest id
      if ((await driver.page.$$(css)).length !== 1) {
        css = await driver.page.$eval(sel, cssPathInPage);
      }
      const candidates: string[] = [];
      if (target.name) candidates.push(`aria/${target.name}[role="${target.role}"]`);
      candidates.push(css, `xpath/${xpath}`, `pierce/${css}`);
      if (target.text && target.text.length <= 64) candidates.push(`text/${target.text}`);
      // the Recorder writes only the selectors that find the element alone
      const selectors: string[][] = [];
      for (const c of candidates) {
        const n = await driver.page.$$(c).then((h) => h.length).catch(() => 0);
        if (n === 1) selectors.push([c]);
      }
      out.push(selectors.length > 0 ? selectors : [[css]]);
      const p = target.point!;
      if (step.tool === "tap") await driver.tap(p);
      else if (step.tool === "type") await driver.type(step.text!, { point: p, clear: true });
      else if (step.tool === "select") await driver.select(p, step.value!);
      else if (step.tool === "check") await driver.check(p, step.checked !== false);
      await driver.waitForSettle({ quietMs: 80, timeoutMs: 2_000 });
    }
    return out;
  } finally {
    await driver.close();
  }
}

/** The `data-ident` (or tag) of each innermost visible element whose text is `text`. */
function textHoldersInPage(text: string): string[] {
  const out: string[] = [];
  for (const el of Array.from(document.body.querySelectorAll("*"))) {
    const e = el as HTMLElement;
    if (e.innerText?.trim() !== text || e.getClientRects().length === 0) continue;
    const inner = Array.from(e.children).some((c) => (c as HTMLElement).innerText?.trim() === text);
    if (!inner) out.push(e.getAttribute("data-ident") ?? e.tagName.toLowerCase());
  }
  return out;
}

/** A CSS path from the nearest ancestor with an id, `nth-of-type` where siblings share a tag. */
function cssPathInPage(el: Element): string {
  const parts: string[] = [];
  let e: Element | null = el;
  while (e && e !== document.body) {
    if (e.id) {
      parts.unshift(`#${CSS.escape(e.id)}`);
      break;
    }
    const tag = e.tagName.toLowerCase();
    const parent: Element | null = e.parentElement;
    const same = parent ? Array.from(parent.children).filter((c) => c.tagName === e!.tagName) : [];
    parts.unshift(same.length > 1 ? `${tag}:nth-of-type(${same.indexOf(e) + 1})` : tag);
    e = parent;
  }
  return parts.join(" > ");
}

/** The Chrome DevTools Recorder JSON of a flow (what the Recorder writes for it). */
export function recorderFlow(
  app: BenchApp,
  selectors: string[][][],
  origin: string,
  viewport: { width: number; height: number },
): { title: string; steps: Record<string, unknown>[] } {
  const steps: Record<string, unknown>[] = [
    {
      type: "setViewport",
      width: viewport.width,
      height: viewport.height,
      deviceScaleFactor: 1,
      isMobile: false,
      hasTouch: false,
      isLandscape: false,
    },
    { type: "navigate", url: origin + app.file },
  ];
  app.flow.forEach((step, i) => {
    const s = selectors[i]!;
    if (step.tool === "tap" || step.tool === "check") {
      steps.push({ type: "click", selectors: s, offsetX: 5, offsetY: 5, target: "main" });
    } else if (step.tool === "type") {
      steps.push({ type: "change", selectors: s, value: step.text, target: "main" });
    } else if (step.tool === "select") {
      steps.push({ type: "change", selectors: s, value: step.value, target: "main" });
    } else if (step.tool === "press") {
      steps.push({ type: "keyDown", key: step.key, target: "main" });
      steps.push({ type: "keyUp", key: step.key, target: "main" });
    } else if (step.tool === "read") {
      steps.push({ type: "waitForElement", selectors: s, target: "main" });
    } else {
      steps.push({
        type: "waitForElement",
        selectors: s,
        properties: { textContent: step.expect },
        target: "main",
      });
    }
  });
  return { title: `Robustness ${app.name}`, steps };
}

// ---- replay and scoring ----------------------------------------------------------------------------

/** Drains the page's log (`kind:ident` entries, kept in sessionStorage across page loads). */
async function drain(page: Page): Promise<string[]> {
  return await page.evaluate(() => {
    const w = globalThis as unknown as { __drainActed?: () => string[] };
    return w.__drainActed ? w.__drainActed() : [];
  }).catch(() => []);
}

const INPUTS = new Set(["tap", "type", "select", "check", "press", "click", "hover", "longPress"]);

/** The driver, each input followed by reading what the page logged. */
function logging(inner: ChromeDriver, inputs: string[][]): Driver {
  return new Proxy(inner, {
    get(target, key) {
      const v = Reflect.get(target, key, target);
      if (typeof v !== "function") return v;
      if (typeof key === "string" && INPUTS.has(key)) {
        return async (...args: unknown[]) => {
          try {
            return await (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          } finally {
            inputs.push(await drain(target.page));
          }
        };
      }
      return (v as (...a: unknown[]) => unknown).bind(target);
    },
  }) as unknown as Driver;
}

/** One action's verdict. */
export type Verdict = "ok" | "miss" | "wrong";

/** Tallies of one engine on one app and variant. */
export interface Tally {
  steps: number;
  ok: number;
  miss: number;
  wrong: number;
  ms: number;
  verdicts: Verdict[];
  /** What the page logged for each played action (and the value read), in order. */
  details?: string[];
}

/** What one played action did, as the scorer sees it. */
export interface Played {
  /** The flow kind it plays (`tap`, `type`, … `read`, `assert`), or undefined when it is none. */
  kind: FlowStep["tool"] | "nav" | undefined;
  acted: boolean;
  /** The page's log entries of its inputs. */
  entries: string[];
  value?: string;
  /** The action located its element but the text did not match. */
  mismatch?: boolean;
}

const COMPAT: Record<FlowStep["tool"], readonly string[]> = {
  tap: ["tap"],
  type: ["type"],
  select: ["select", "type"],
  check: ["check", "tap"],
  press: ["press"],
  read: ["read", "assert"],
  assert: ["assert", "read"],
};

/**
 * Scores a run: the played actions are aligned with the flow in order (a flow step the trail
 * lost is a `miss`), then each is judged by the logical element it hit.
 */
export function scoreRun(flow: readonly FlowStep[], played: readonly Played[]): Tally {
  const verdicts: Verdict[] = [];
  let next = 0;
  for (const p of played) {
    if (p.kind === undefined || p.kind === "nav") continue;
    let j = next;
    while (j < flow.length && j < next + 3 && !COMPAT[flow[j]!.tool].includes(p.kind)) j++;
    if (j >= flow.length || !COMPAT[flow[j]!.tool].includes(p.kind)) continue; // an extra action
    for (; next < j; next++) verdicts.push("miss");
    const step = flow[next]!;
    const cleanSoFar = !verdicts.some((v) => v !== "ok");
    if (step.tool === "read" || step.tool === "assert") {
      if (p.acted && (p.value === undefined || p.value.trim() === step.expect)) verdicts.push("ok");
      else if ((p.acted || p.mismatch) && cleanSoFar) verdicts.push("wrong");
      else verdicts.push("miss");
    } else {
      const idents = p.entries.map((e) => e.slice(e.indexOf(":") + 1));
      // the intended element reached but the action reported failed (a timeout mid-typing) is
      // a miss; only inputs that reached other elements alone are a wrong element
      if (idents.includes(step.ident)) verdicts.push(p.acted ? "ok" : "miss");
      else if (idents.length > 0) verdicts.push("wrong");
      else verdicts.push("miss");
    }
    next++;
  }
  for (; next < flow.length; next++) verdicts.push("miss");
  // what each imperfect verdict rests on (`--debug`)
  const details: string[] = [];

  for (const p of played) {
    if (p.kind === undefined || p.kind === "nav") continue;
    if (p.entries.length > 0 || p.value !== undefined) {
      details.push(
        `${p.kind}${p.acted ? "" : " (failed)"}: ${p.entries.join(" ")}${
          p.value !== undefined ? ` value=${JSON.stringify(p.value)}` : ""
        }`,
      );
    }
  }
  return {
    details,
    steps: flow.length,
    ok: verdicts.filter((v) => v === "ok").length,
    miss: verdicts.filter((v) => v === "miss").length,
    wrong: verdicts.filter((v) => v === "wrong").length,
    ms: 0,
    verdicts,
  };
}

const KIND: Record<string, Played["kind"]> = {
  click: "tap",
  tap: "tap",
  type: "type",
  select: "select",
  check: "check",
  key_press: "press",
  read_text: "read",
  assert_text: "assert",
  assert_visible: "assert",
  navigate: "nav",
};

/** Plays a plan with the runner on `driver`, and scores it against the flow. */
export async function playAndScore(
  chrome: ChromeDriver,
  store: SqliteEventStore,
  plan: PlaybackPlan,
  flow: readonly FlowStep[],
  memory: Readonly<Record<string, string>> = {},
): Promise<{ tally: Tally; report: PlaybackReport }> {
  const inputs: string[][] = [];
  const t0 = performance.now();
  await drain(chrome.page);
  const report = await runPlayback(logging(chrome, inputs), store, plan, {
    locateWaitMs: WAIT_MS,
    expectWaitMs: WAIT_MS,
    actionTimeoutMs: 8_000,
    settleAfterMs: 50,
    overlay: false,
    ...(Object.keys(memory).length > 0 ? { memory, secrets: Object.values(memory) } : {}),
  });
  const ms = Math.round(performance.now() - t0);
  // the inputs the runner made, in order: attribute each to the action that made it
  let n = 0;
  const played: Played[] = report.results.map((r, i) => {
    const action = plan.actions[i];
    const kind = KIND[action?.type ?? ""];
    const acted = r.status === "ok" || r.status === "healed";
    const isInput = kind !== undefined && kind !== "read" && kind !== "assert" && kind !== "nav";
    const entries = acted && isInput ? (inputs[n++] ?? []) : [];
    const value = kind === "read" ? r.value : undefined;
    return {
      kind,
      acted,
      entries,
      ...(value !== undefined ? { value } : {}),
      ...(r.error_code === "assertion_failed" ? { mismatch: true } : {}),
    };
  });
  const tally = scoreRun(flow, played);
  tally.ms = ms;
  return { tally, report };
}

/** Plays the Recorder flow with `@puppeteer/replay`, step by step, and scores it. */
export async function peerAndScore(
  chrome: ChromeDriver,
  flowJson: ReturnType<typeof recorderFlow>,
  flow: readonly FlowStep[],
): Promise<Tally> {
  const t0 = performance.now();
  const extension = new PuppeteerRunnerExtension(
    chrome.browser as never,
    chrome.page as never,
    // a step's timeout covers its typing too (a `change` types the value key by key)
    { timeout: PEER_TIMEOUT_MS },
  );
  const runner = await createRunner(flowJson as never, extension);
  await runner.runBeforeAllSteps();
  const played: Played[] = [];
  await drain(chrome.page);
  for (const step of flowJson.steps) {
    let ok = true;
    try {
      await runner.runStep(step as never);
    } catch {
      ok = false;
    }
    await new Promise((r) => setTimeout(r, 50));
    const entries = await drain(chrome.page);
    const kind: Played["kind"] = step.type === "click"
      ? "tap"
      : step.type === "change"
      ? "type"
      : step.type === "keyDown"
      ? "press"
      : step.type === "waitForElement"
      ? "assert"
      : undefined;
    if (step.type === "keyUp" && played.length > 0) {
      played[played.length - 1]!.entries.push(...entries);
      continue;
    }
    played.push({ kind, acted: ok, entries });
  }
  await runner.runAfterAllSteps();
  const tally = scoreRun(flow, played);
  tally.ms = Math.round(performance.now() - t0);
  return tally;
}

// ---- the whole benchmark -----------------------------------------------------------------------------

/** The engines a run compares. */
export const MODES = ["adaptive", "flexible", "strict"] as const;

/** One row: an app, an engine and a variant. */
export interface Row {
  app: string;
  engine: string;
  variant: string;
  tally: Tally;
  /** Per failing action: what the report said (debugging). */
  notes?: string[];
}

/** Options of {@linkcode runBenchmark}. */
export interface BenchOptions {
  apps?: readonly string[];
  variants?: readonly string[];
  modes?: readonly (typeof MODES)[number][];
  /** Leave out `@puppeteer/replay` and Cairn playing the Recorder JSON. */
  noRecorder?: boolean;
  /**
   * More trails to play beside the modes' (tests: a deliberately wrong trail), by engine name,
   * made from the app's optimized trails (by mode).
   */
  addTrails?: (app: string, trails: Readonly<Record<string, string>>) => Record<string, string>;
  log?: (line: string) => void;
  /** How many app × variant replays run at once (default 3). */
  parallel?: number;
}

/** The trails and Recorder flows of one run, for the record. */
export interface BenchResult {
  rows: Row[];
  trails: Record<string, Record<string, string>>;
  seconds: number;
}

/** Blazes, optimizes and replays every app on every variant; returns the scored rows. */
export async function runBenchmark(options: BenchOptions = {}): Promise<BenchResult> {
  const t0 = performance.now();
  const log = options.log ?? (() => {});
  const apps = APPS.filter((a) => !options.apps || options.apps.includes(a.name));
  const variants = VARIANTS.filter((v) =>
    !options.variants || options.variants.some((name) => v.name === name)
  );
  const modes = options.modes ?? MODES;
  const server = serveApps(variants.map((v) => v.flags));
  const dir = await Deno.makeTempDir({ prefix: "cairn-bench-apps-" });
  const store = SqliteEventStore.open(`${dir}/replay.db`);
  const rows: Row[] = [];
  const trails: Record<string, Record<string, string>> = {};
  try {
    // first every app is blazed (one CLI session at a time), optimized and its Recorder flow made
    const prepared: { app: BenchApp; selectors: string[][][]; extra: Record<string, string> }[] =
      [];
    for (const app of apps) {
      const blazeOrigin = server.origin("");
      server.takeLog(blazeOrigin);
      const session = await blazeApp(app, blazeOrigin, `${dir}/blaze.db`, `${dir}/runs`);
      // the blaze itself must have hit the intended elements, else the flow is wrong
      const hit = server.takeLog(blazeOrigin).map((e) => e.slice(e.indexOf(":") + 1));
      const missed = app.flow.filter((s) =>
        s.tool !== "read" && s.tool !== "assert" && !hit.includes(s.ident)
      );
      if (missed.length > 0) {
        throw new Error(
          `${app.name}: the blazed flow did not reach ${missed.map((s) => s.ident).join(", ")}`,
        );
      }
      log(`${app.name}: blazed session ${session}`);
      trails[app.name] = {};
      for (const mode of modes) {
        const r = await cairn(["optimize", session, "--mode", mode, "--db", `${dir}/blaze.db`]);
        if (r.code !== 0) throw new Error(`optimize ${mode} exited ${r.code}: ${r.stderr}`);
        trails[app.name]![mode] = r.stdout;
      }
      const extra = options.addTrails?.(app.name, trails[app.name]!) ?? {};
      const selectors = options.noRecorder ? [] : await recorderSelectors(app, blazeOrigin);
      prepared.push({ app, selectors, extra });
    }
    // then every app × variant is replayed, a few at once (each in its own browser): most of a
    // replay's time is waiting (for the page to settle, for a selector that will not match)
    const jobs = prepared.flatMap((p) => variants.map((variant) => ({ ...p, variant })));
    const replayJob = async (
      { app, selectors, extra, variant }: (typeof jobs)[number],
    ): Promise<Row[]> => {
      const out: Row[] = [];
      const origin = server.origin(variant.flags);
      const viewport = variant.viewport ?? BLAZE_VIEWPORT;
      const chrome = await ChromeDriver.launch({ viewport });
      try {
        const play = async (engine: string, plan: PlaybackPlan) => {
          // the secret for each memory key the trail leaves to the run (`password: null`)
          const memory: Record<string, string> = {};
          for (const k of plan.unsetMemory ?? []) {
            if (app.secret !== undefined) memory[k] = app.secret;
          }
          const { tally, report } = await playAndScore(chrome, store, plan, app.flow, memory);
          const notes = report.results.filter((r) => r.status !== "ok").map((r) =>
            `${r.index} ${r.action} ${r.status} ${r.selector_used ?? ""} ${r.error ?? ""}`.trim()
          );
          out.push({ app: app.name, engine, variant: variant.name, tally, notes });
        };
        for (const mode of modes) {
          const plan = await planFromText(trails[app.name]![mode]!, { file: `${mode}.yaml` });
          await play(`Cairn ${mode}`, { ...rebasePlan(plan, origin), viewport });
        }
        for (const [engine, yaml] of Object.entries(extra)) {
          const plan = await planFromText(yaml, { file: `${engine}.yaml` });
          await play(engine, { ...rebasePlan(plan, origin), viewport });
        }
        if (!options.noRecorder) {
          const json = recorderFlow(app, selectors, origin, viewport);
          const plan = await planFromText(JSON.stringify(json), { file: "recorder.json" });
          await play("Cairn Recorder JSON", plan);
          const tally = await peerAndScore(chrome, json, app.flow);
          out.push({ app: app.name, engine: "@puppeteer/replay", variant: variant.name, tally });
        }
      } finally {
        await chrome.close();
      }
      log(
        `${app.name} / ${variant.name}: ${
          out.map((r) => `${r.engine} ${r.tally.ok}/${r.tally.steps} w${r.tally.wrong}`).join(", ")
        }`,
      );
      return out;
    };
    const results: Row[][] = new Array(jobs.length);
    let nextJob = 0;
    const worker = async () => {
      while (nextJob < jobs.length) {
        const i = nextJob++;
        results[i] = await replayJob(jobs[i]!);
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(options.parallel ?? 3, jobs.length) }, worker),
    );
    rows.push(...results.flat());
  } finally {
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  return { rows, trails, seconds: Math.round((performance.now() - t0) / 1000) };
}

const pct = (a: number, b: number) => (b === 0 ? "—" : `${((100 * a) / b).toFixed(1)} %`);

/** The markdown tables: per engine and variant (all apps), then per app and engine. */
export function markdown(result: BenchResult): string {
  const { rows } = result;
  const engines = [...new Set(rows.map((r) => r.engine))];
  const variants = [...new Set(rows.map((r) => r.variant))];
  const apps = [...new Set(rows.map((r) => r.app))];
  const sum = (rs: Row[]) => ({
    steps: rs.reduce((a, r) => a + r.tally.steps, 0),
    ok: rs.reduce((a, r) => a + r.tally.ok, 0),
    miss: rs.reduce((a, r) => a + r.tally.miss, 0),
    wrong: rs.reduce((a, r) => a + r.tally.wrong, 0),
  });
  const cell = (rs: Row[]) => {
    const s = sum(rs);
    return `${s.ok}/${s.steps}${s.wrong ? ` **w${s.wrong}**` : ""}`;
  };
  const out: string[] = [];
  out.push(
    `Correct element / actions, per engine and variant (all ${apps.length} apps; **wN**: N wrong-element actions):`,
    "",
    `| engine | ${variants.join(" | ")} | all | located right | wrong element |`,
    `| --- | ${variants.map(() => "---").join(" | ")} | --- | --- | --- |`,
  );
  for (const e of engines) {
    const mine = rows.filter((r) => r.engine === e);
    const s = sum(mine);
    out.push(
      `| ${e} | ${variants.map((v) => cell(mine.filter((r) => r.variant === v))).join(" | ")} | ${
        cell(mine)
      } | ${pct(s.ok, s.steps)} | ${s.wrong} |`,
    );
  }
  out.push(
    "",
    "Per app (all variants): correct / actions, misses, wrong-element actions:",
    "",
    `| app | ${engines.join(" | ")} |`,
    `| --- | ${engines.map(() => "---").join(" | ")} |`,
  );
  for (const a of apps) {
    out.push(
      `| ${a} | ${
        engines.map((e) => {
          const s = sum(rows.filter((r) => r.app === a && r.engine === e));
          return `${s.ok}/${s.steps} (${pct(s.ok, s.steps)}), miss ${s.miss}, wrong ${s.wrong}`;
        }).join(" | ")
      } |`,
    );
  }
  out.push(
    "",
    "Per app, engine and variant: correct / actions (variants in the order of the first table):",
    "",
    `| app | engine | ${variants.map((_, i) => `v${i + 1}`).join(" | ")} |`,
    `| --- | --- | ${variants.map(() => "---").join(" | ")} |`,
  );
  for (const a of apps) {
    for (const e of engines) {
      const mine = rows.filter((r) => r.app === a && r.engine === e);
      out.push(
        `| ${a} | ${e} | ${
          variants.map((v) => cell(mine.filter((r) => r.variant === v))).join(" | ")
        } |`,
      );
    }
  }
  return out.join("\n");
}

/**
 * The command line: `--json`, `--out=FILE` (the JSON written there too), `--apps=a,b`,
 * `--variants=N` (the first N), `--modes=a,b`, `--parallel=N` (replays at once, default 3),
 * `--debug` (each imperfect run's verdicts).
 */
export async function main(args: readonly string[]): Promise<void> {
  const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
  const json = args.includes("--json");
  const nVariants = flag("variants");
  const result = await runBenchmark({
    ...(flag("apps") ? { apps: flag("apps")!.split(",") } : {}),
    ...(nVariants
      ? {
        variants: /^\d+$/.test(nVariants)
          ? VARIANTS.slice(0, Number(nVariants)).map((v) => v.name)
          : VARIANTS.filter((v) => v.name.includes(nVariants)).map((v) => v.name),
      }
      : {}),
    ...(flag("modes") ? { modes: flag("modes")!.split(",") as (typeof MODES)[number][] } : {}),
    ...(flag("parallel") ? { parallel: Number(flag("parallel")) } : {}),
    log: (l) => console.error(l),
  });
  const out = flag("out");
  if (out) await Deno.writeTextFile(out, JSON.stringify(result, null, 2));
  if (json) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(markdown(result));
    console.log(`\n${result.seconds} s`);
    if (args.includes("--debug")) {
      for (const r of result.rows) {
        if (r.tally.ok < r.tally.steps) {
          console.log(`${r.app} ${r.engine} ${r.variant}: ${r.tally.verdicts.join(" ")}`);
          for (const n of r.notes ?? []) console.log(`    ${n}`);
          for (const d of r.tally.details ?? []) console.log(`      ${d}`);
        }
      }
    }
  }
}

if (import.meta.main) await main(Deno.args);
