/**
 * import∘export on every importable file Cairn has: each file of `examples/`, `tests/testdata/`
 * and the shared corpus that `cairn ingest` detects goes into a real SQLite store; each of its
 * sessions is exported in every format the session allows, ingested again, and must give the
 * original's events (`comparableEvents`: types and data in order) — except for the losses named
 * below, where a format has no place for something. A second round trip of the copy must lose
 * nothing more: the round trip is stable.
 *
 * `tests/testdata/formats/blaze_dialogs.events.jsonl` is a real session, for what only Cairn's
 * own recorders write (screens with a viewport and tab, dialogs, memory, steps): `cairn blaze` in
 * headless Chromium on `tests/testdata/web/dialogs.html` served on 127.0.0.1:8765 (tap Save: an
 * alert; tap Delete: a confirm; read #result), then `cairn export --format events`.
 * `blaze_unended.events.jsonl` is its first eleven lines: the same session exported while it
 * ran, after the first tap — no `SessionEnded`, its step still open — which must come back
 * from every format as a session that has not ended.
 */
import { isDeepStrictEqual } from "node:util";
import { assertEquals, assertRejects, assertThrows } from "../../_fixtures/assert.ts";
import { UsageError } from "../../../cli/args.ts";
import {
  type LoadedSession,
  loadSession,
  renderSession,
  SESSION_EXPORT_FORMATS,
  type SessionExportFormat,
} from "../../../cli/export.ts";
import { InputError } from "../../../cli/errors.ts";
import { ingestFile } from "../../../cli/ingest.ts";
import type { ActionKind } from "../../../events/schemas.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { FormatError } from "../../../engine/input/format_error.ts";
import { detectImportFormat } from "../../../engine/formats/import_file.ts";
import { recordingActionType } from "../../../engine/formats/recording_v1.ts";
import { type ComparableEvent, comparableEvents } from "../../../engine/formats/round_trip.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
const CORPUS = new URL("../../../../shared/corpus", import.meta.url).pathname;
const FOLDERS = [`${ROOT}examples`, `${ROOT}tests/testdata`, CORPUS];

/** Files ingest detects but refuses, for they hold no session: what ingest says. */
const NOT_SESSIONS: Record<string, string> = {
  [`${ROOT}tests/testdata/playback/report_golden/events.jsonl`]:
    "line 1: type: PlaybackStarted is not a session event",
};

type Data = Record<string, unknown>;
type Event = ComparableEvent & { data: Data };

/** Something a format cannot hold: what the re-imported events lack, and why. */
interface Loss {
  name: string;
  reason: string;
  /**
   * The expected events: `events` without what the format cannot hold (the session's blobs at
   * hand, for what a format reads back from a hierarchy).
   */
  apply(events: Event[], blobs: ReadonlyMap<string, Uint8Array>): Event[];
}

function without(data: Data, keys: readonly string[]): Data {
  return Object.fromEntries(Object.entries(data).filter(([k]) => !keys.includes(k)));
}

function mapType(events: Event[], type: string, f: (data: Data) => Data): Event[] {
  return events.map((e) => e.type === type ? { type, data: f(e.data) } : e);
}

/** The next event after `i` of one of `types`. */
function nextOf(events: Event[], i: number, types: readonly string[]): Event | undefined {
  return events.slice(i + 1).find((e) => types.includes(e.type));
}

const CAPTURE_LOSSES: Loss[] = [
  {
    name: "navigations",
    reason: "a capture is one entry per action, and a NavigationOccurred is no action",
    apply: (events) => events.filter((e) => e.type !== "NavigationOccurred"),
  },
  {
    name: "one screen per action",
    reason: "an action carries the last screen captured before it: the screens before that " +
      "one, and those after the last action, have no action to go with",
    apply: (events) =>
      events.filter((e, i) =>
        e.type !== "ScreenCaptured" ||
        nextOf(events, i, ["ScreenCaptured", "ActionPerformed"])?.type === "ActionPerformed"
      ),
  },
  {
    name: "step boundaries come before the action's screen",
    reason: "a step is an action's nlStep, so it starts (and the one before ends) right before " +
      "the action's own screen",
    apply: (events) => {
      const out = [...events];
      for (let moved = true; moved;) {
        moved = false;
        for (let i = 0; i + 1 < out.length; i++) {
          const [a, b] = [out[i]!, out[i + 1]!];
          if (a.type === "ScreenCaptured" && /^Step(Started|Ended)$/.test(b.type)) {
            [out[i], out[i + 1]] = [b, a];
            moved = true;
          }
        }
      }
      return out;
    },
  },
  {
    name: "step results",
    reason: "a capture has no step results: a step failed when one of its actions failed",
    apply: (events) => {
      let failed = false;
      return events.map((e) => {
        if (e.type === "StepStarted") failed = false;
        if (e.type === "ActionCompleted" && e.data.ok === false) failed = true;
        return e.type === "StepEnded" ? { type: e.type, data: { ...e.data, ok: !failed } } : e;
      });
    },
  },
];

const isNumber = (v: unknown) => typeof v === "number";

/** The toolParams a recording_v1 step or entry has a field for, and the values it takes. */
const RECORDING_PARAMS: Record<string, (v: unknown) => boolean> = {
  timeout_ms: isNumber,
  retries: isNumber,
  confidence: isNumber,
  notes: (v) => typeof v === "string",
  // a switch to a tab the person opened (`new_tab`), a value's first keystroke (`started_at`)
  newTab: (v) => v === true,
  startedAt: (v) => typeof v === "string",
};

/** What a screen's Chrome hierarchy says of its page: viewport, pixel ratio and scroll. */
function chromeView(screen: Data, blobs: ReadonlyMap<string, Uint8Array>): Data {
  if (screen.format !== "chrome") return {};
  const bytes = blobs.get((screen.hierarchy as { hash: string }).hash)!;
  const { viewport, devicePixelRatio, scroll } = JSON.parse(new TextDecoder().decode(bytes));
  return { viewport, devicePixelRatio, scroll };
}

const RECORDING_LOSSES: Loss[] = [
  {
    name: "session header",
    reason: "the header has a prompt, the URLs, mode agent or human and the extension version " +
      "only (no device, app, system prompt, start memory or other drivers); the viewport and " +
      "pixel ratio are read from the first Chrome snapshot",
    apply: (events, blobs) => {
      const first = events.find((e) => e.type === "ScreenCaptured" && e.data.format === "chrome");
      const { viewport, devicePixelRatio } = first ? chromeView(first.data, blobs) : {};
      return mapType(events, "SessionStarted", (d) => {
        const extension = (d.drivers as Record<string, string> | undefined)?.extension;
        return {
          mode: d.mode === "human" ? "human" : "agent",
          platform: d.platform,
          ...(d.prompt ? { prompt: d.prompt } : {}),
          ...(d.url !== undefined ? { url: d.url } : {}),
          ...(viewport !== undefined ? { viewport, devicePixelRatio } : {}),
          ...(extension !== undefined ? { drivers: { extension } } : {}),
        };
      });
    },
  },
  {
    name: "steps",
    reason: "a recording has no natural-language steps",
    apply: (events) =>
      mapType(
        events.filter((e) => e.type !== "StepStarted" && e.type !== "StepEnded"),
        "ActionPerformed",
        (d) => without(d, ["stepIndex"]),
      ),
  },
  {
    name: "memory",
    reason: "a recording has no memory",
    apply: (events) => events.filter((e) => e.type !== "MemorySnapshotted"),
  },
  {
    name: "snapshot fields",
    reason: "an ax_snapshot has the hierarchy, its url and tab only (no screenshot): a screen's " +
      "viewport, pixel ratio and scroll are its Chrome snapshot's (none for another hierarchy)",
    apply: (events, blobs) =>
      mapType(events, "ScreenCaptured", (d) => ({
        ...without(d, ["screenshot", "viewport", "devicePixelRatio", "scroll"]),
        ...chromeView(d, blobs),
      })),
  },
  {
    name: "raw tool name",
    reason: "a step's action_type must name its kind: a raw tool name that names another (or " +
      "none) is written as the kind's own name, which reads back as no raw tool name",
    apply: (events) =>
      mapType(events, "ActionPerformed", (d) => {
        const kind = d.kind as ActionKind;
        const type = recordingActionType(kind, d.toolName as string | undefined);
        const rest = without(d, ["toolName"]);
        return type === recordingActionType(kind) ? rest : { ...rest, toolName: type };
      }),
  },
  {
    name: "raw tool parameters",
    reason: "a step has timeout_ms, retries and new_tab, its entry confidence, notes and " +
      "started_at: no other raw parameter has a field",
    apply: (events) =>
      mapType(events, "ActionPerformed", (d) => {
        const kept = Object.entries((d.toolParams ?? {}) as Data)
          .filter(([k, v]) => RECORDING_PARAMS[k]?.(v));
        const rest = without(d, ["toolParams"]);
        return kept.length > 0 ? { ...rest, toolParams: Object.fromEntries(kept) } : rest;
      }),
  },
  {
    name: "action fields without a place",
    reason: "a step has no swipe end point (to), memory key (storeAs), ref or runtime selector " +
      "(but its selector_type)",
    apply: (events) =>
      mapType(events, "ActionPerformed", (d) => {
        const rest = without(d, ["to", "storeAs", "target"]);
        const t = (d.target ?? {}) as Data;
        const type = (t.selector as Data | undefined)?.type;
        const target = {
          ...without(t, ["ref", "selector"]),
          ...(typeof type === "string" && type !== "ax_node_id" ? { selector: { type } } : {}),
        };
        return Object.keys(target).length > 0 ? { ...rest, target } : rest;
      }),
  },
  {
    name: "result fields",
    reason: "an action_result has a status, an error and a duration: no value read, no dialogs",
    apply: (events) => mapType(events, "ActionCompleted", (d) => without(d, ["value", "dialogs"])),
  },
];

/** What each export format cannot hold (`events` holds everything). */
const LOSSES: Record<SessionExportFormat, Loss[]> = {
  events: [],
  capture: CAPTURE_LOSSES,
  recording_v1: RECORDING_LOSSES,
};

async function* filesUnder(dir: string): AsyncGenerator<string> {
  const entries = [];
  for await (const e of Deno.readDir(dir)) entries.push(e);
  entries.sort((a, b) => a.name < b.name ? -1 : 1);
  for (const e of entries) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) yield* filesUnder(path);
    else if (/\.jsonl?$/.test(e.name)) yield path;
  }
}

/** Every file of the folders that ingest detects as one of its formats, but the non-sessions. */
async function importableFiles(): Promise<string[]> {
  const out: string[] = [];
  for (const folder of FOLDERS) {
    for await (const path of filesUnder(folder)) {
      if (Object.hasOwn(NOT_SESSIONS, path)) continue;
      try {
        detectImportFormat(await Deno.readTextFile(path));
      } catch (err) {
        if (err instanceof FormatError) continue; // a hierarchy, a trail, …: not an import
        throw err;
      }
      out.push(path);
    }
  }
  return out;
}

Deno.test("export → ingest of every importable file gives its events back, but what a format cannot hold", async (t) => {
  const files = await importableFiles();
  const kinds = await Promise.all(
    files.map(async (f) => detectImportFormat(await Deno.readTextFile(f)).format),
  );
  assertEquals(new Set(kinds), new Set(["capture", "recording_v1", "chrome-recorder", "events"]));
  assertEquals(files.filter((f) => f.startsWith(`${CORPUS}/chrome-recorder/`)).length, 12);
  const needed = new Set<string>();
  const dir = await Deno.makeTempDir({ prefix: "cairn_roundtrip_" });
  const store = SqliteEventStore.open(`${dir}/c.db`);
  let n = 0;
  /** Exports a session in a format, writes the file, ingests it and reads the copy back. */
  const roundTrip = async (session: LoadedSession, format: SessionExportFormat) => {
    const rendered = renderSession(session, format);
    const path = `${dir}/${++n}-${rendered.fileName}`;
    await Deno.writeTextFile(path, rendered.text);
    const again = await ingestFile(store, path);
    assertEquals(again.sessions.length, 1);
    return await loadSession(store, again.sessionId);
  };
  try {
    for (const [file, message] of Object.entries(NOT_SESSIONS)) {
      await assertRejects(() => ingestFile(store, file), InputError, message);
    }
    for (const file of files) {
      const name = file.startsWith(ROOT) ? file.slice(ROOT.length) : file.split("/").at(-1)!;
      await t.step(name, async (t) => {
        const result = await ingestFile(store, file);
        for (const session of result.sessions) {
          const original = await loadSession(store, session.sessionId);
          const web = (original.events[0]!.data as { platform: string }).platform === "web";
          for (const format of SESSION_EXPORT_FORMATS) {
            const what = `${session.name ? `${session.name} ` : ""}via ${format}`;
            await t.step(what, async () => {
              if (format === "recording_v1" && !web) {
                assertThrows(() => renderSession(original, format), UsageError, "web sessions");
                return;
              }
              const copy = await roundTrip(original, format);
              let expected = comparableEvents(original.events) as Event[];
              for (const loss of LOSSES[format]) {
                const next = loss.apply(expected, original.blobs);
                if (!isDeepStrictEqual(next, expected)) needed.add(`${format}: ${loss.name}`);
                expected = next;
              }
              assertEquals(comparableEvents(copy.events), expected);
              // what a format cannot hold goes in the first trip: the second loses nothing
              const second = await roundTrip(copy, format);
              assertEquals(comparableEvents(second.events), expected, "second round trip");
            });
          }
        }
      });
    }
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
  // each named loss is one some real file has: the list is no longer than it must be
  const named = Object.entries(LOSSES).flatMap(([f, ls]) => ls.map((l) => `${f}: ${l.name}`));
  assertEquals([...needed].sort(), named.sort());
});
