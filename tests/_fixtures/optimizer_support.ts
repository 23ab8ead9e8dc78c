/**
 * Helpers of the optimizer tests: load a capture file or a golden `events.jsonl` into memory
 * (events and parsed screens), with no store.
 *
 * @module
 */
import { prepareFile } from "../../cli/ingest.ts";
import type { NewEvent } from "../../events/schemas.ts";
import { blobRefOf, type PendingBlob } from "../../engine/formats/blob_ref.ts";
import { parseEventsJsonl } from "../../engine/formats/events_jsonl.ts";
import { loadScreens } from "../../engine/optimizer/trail_projection.ts";
import type { Screen } from "../../engine/screens/ui_node.ts";

/** A capture in memory. */
export interface LoadedCapture {
  events: NewEvent[];
  screens: Map<string, Screen>;
  blobs: PendingBlob[];
}

async function withScreens(events: NewEvent[], blobs: PendingBlob[]): Promise<LoadedCapture> {
  const dec = new TextDecoder();
  const byHash = new Map(blobs.map((b) => [blobRefOf(b).hash, b]));
  const screens = await loadScreens(events, (h) => {
    const b = byHash.get(h);
    if (!b) return Promise.reject(new Error(`blob ${h} missing`));
    return Promise.resolve(dec.decode(b.bytes));
  });
  return { events, screens, blobs };
}

/**
 * Loads a capture file (any format `cairn ingest` reads) into memory.
 *
 * @param path the file
 * @param sessionId the session id to give it
 * @returns events, screens and blobs
 */
export async function loadCaptureFile(path: string, sessionId: string): Promise<LoadedCapture> {
  const p = await prepareFile(path, { sessionId });
  return await withScreens(p.sessions[0]!.events, p.blobs);
}

/**
 * Loads a golden `events.jsonl` (Cairn's event export with embedded blobs).
 *
 * @param path the file
 * @returns events, screens and blobs
 */
export async function loadEventsFile(path: string): Promise<LoadedCapture> {
  const f = parseEventsJsonl(await Deno.readTextFile(path));
  return await withScreens(f.events, f.blobs);
}

/** One action of a {@linkcode buildCapture} script. */
export interface ScriptAction {
  step?: string;
  /** The screen before the action. */
  screen?: Screen;
  kind: import("../../events/schemas.ts").ActionKind;
  point?: { x: number; y: number };
  text?: string;
  value?: string;
  expected?: string;
  storeAs?: string;
  direction?: "up" | "down" | "left" | "right";
  url?: string;
  toolName?: string;
  runtime?: Record<string, string>;
  ok?: boolean;
  memory?: Record<string, string>;
  writtenBy?: Record<string, string>;
}

/**
 * Builds a capture's events in memory from a script (screens keyed by a fake blob hash).
 *
 * @param platform the platform
 * @param actions the script
 * @param start extra SessionStarted fields (memory, prompts)
 * @returns events and screens
 */
export function buildCapture(
  platform: "web" | "android" | "ios",
  actions: ScriptAction[],
  start: { memory?: Record<string, string>; systemPrompt?: string; prompt?: string } = {},
): { events: NewEvent[]; screens: Map<string, Screen> } {
  const events: NewEvent[] = [{
    type: "SessionStarted",
    data: { sessionId: "test", mode: "agent", platform, ...start },
  }];
  const screens = new Map<string, Screen>();
  const hashes = new Map<Screen, string>();
  let step: string | undefined;
  let steps = 0;
  actions.forEach((a, i) => {
    if (a.step !== undefined && a.step !== step) {
      step = a.step;
      events.push({ type: "StepStarted", data: { index: steps++, text: a.step } });
    }
    if (a.screen) {
      let h = hashes.get(a.screen);
      if (!h) {
        h = (hashes.size + 1).toString(16).padStart(64, "0");
        hashes.set(a.screen, h);
        screens.set(h, a.screen);
      }
      events.push({
        type: "ScreenCaptured",
        data: {
          hierarchy: { hash: h, mediaType: "application/xml", size: 1 },
          format: a.screen.format,
        },
      });
    }
    const id = `a${i + 1}`;
    events.push({
      type: "ActionPerformed",
      data: {
        actionId: id,
        kind: a.kind,
        source: "agent",
        ...(a.point ? { point: a.point } : {}),
        ...(a.text !== undefined ? { text: a.text } : {}),
        ...(a.value !== undefined && a.kind !== "readText" ? { value: a.value } : {}),
        ...(a.expected !== undefined ? { expected: a.expected } : {}),
        ...(a.storeAs !== undefined ? { storeAs: a.storeAs } : {}),
        ...(a.direction !== undefined ? { direction: a.direction } : {}),
        ...(a.url !== undefined ? { url: a.url } : {}),
        ...(a.toolName !== undefined ? { toolName: a.toolName } : {}),
        ...(a.runtime ? { target: { selector: a.runtime } } : {}),
      },
    });
    events.push({
      type: "ActionCompleted",
      data: {
        actionId: id,
        ok: a.ok ?? true,
        durationMs: 1,
        ...(a.ok === false ? { error: "failed" } : {}),
        ...(a.kind === "readText" && a.value !== undefined ? { value: a.value } : {}),
      },
    });
    if (a.memory) {
      events.push({
        type: "MemorySnapshotted",
        data: { memory: a.memory, ...(a.writtenBy ? { writtenBy: a.writtenBy } : {}) },
      });
    }
  });
  return { events, screens };
}
