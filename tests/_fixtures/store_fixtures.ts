/**
 * Synthetic capture sessions for store tests and benches: the event mix of a real capture
 * (step, screen, action, memory, completion) with ~1 KB of data per event.
 *
 * @module
 */
import type { BlobRef, NewEvent } from "../../events/schemas.ts";

const hex = (n: number) => n.toString(16).padStart(64, "0");

/**
 * Makes `count` events of a session: `SessionStarted`, then cycles of StepStarted,
 * ScreenCaptured, ActionPerformed, MemorySnapshotted, ActionCompleted (every 7th fails).
 *
 * @param count how many events
 * @param sessionId the session id in `SessionStarted`
 * @returns the events to append
 */
export function syntheticSession(count: number, sessionId = "bench"): NewEvent[] {
  const pad = "lorem ipsum dolor sit amet ".repeat(40).slice(0, 950);
  const out: NewEvent[] = [{
    type: "SessionStarted",
    data: {
      sessionId,
      mode: "agent",
      platform: "web",
      prompt: `Check the inventory ${pad.slice(0, 400)}`,
      url: "http://127.0.0.1/app",
      memory: { email: "alice@example.com" },
    },
  }];
  for (let i = 0; out.length < count; i++) {
    const hierarchy: BlobRef = { hash: hex(i), mediaType: "application/json", size: 20_000 + i };
    const screenshot: BlobRef = { hash: hex(i + 1_000_000), mediaType: "image/png", size: 90_000 };
    const actionId = `a${i}`;
    const cycle: NewEvent[] = [
      { type: "StepStarted", data: { index: i, text: `Step ${i}: ${pad}` } },
      {
        type: "ScreenCaptured",
        data: {
          hierarchy,
          screenshot,
          format: "chrome",
          url: `http://127.0.0.1/app/page/${i % 9}?q=${encodeURIComponent(pad.slice(0, 500))}`,
          viewport: { width: 1280, height: 800 },
          scroll: { x: 0, y: i % 300 },
        },
      },
      {
        type: "ActionPerformed",
        data: {
          actionId,
          kind: "tap",
          point: { x: 100 + (i % 50), y: 200 + (i % 70) },
          toolName: "tap",
          toolParams: { ref: `y${i % 999}`, note: pad.slice(0, 800) },
          target: { ref: `y${i % 999}`, role: "button", name: `Button ${i}` },
          source: "agent",
          stepIndex: i,
        },
      },
      {
        type: "MemorySnapshotted",
        data: {
          memory: { email: "alice@example.com", counter: String(i), note: pad.slice(0, 900) },
        },
      },
      {
        type: "ActionCompleted",
        data: {
          actionId,
          ok: i % 7 !== 0,
          durationMs: 12 + (i % 5),
          value: pad,
          ...(i % 7 === 0 ? { error: `not found ${pad.slice(0, 100)}` } : {}),
        },
      },
    ];
    for (const e of cycle) if (out.length < count) out.push(e);
  }
  return out;
}
