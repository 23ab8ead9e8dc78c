/**
 * Heuristics v2 for Chrome DevTools Recorder steps a trail cannot write as an ordinary action
 * (the import keeps the raw step: `toolName` is its type, `toolParams` its other fields):
 *
 * - a `doubleClick` is a `doubleTap` (the web player double-clicks: `dblclick` fires);
 * - a `hover` is a `hover` (the player moves the mouse over the element: a menu that opens on
 *   hover opens), not the `assertVisible` the import wrote;
 * - a click with another mouse button (`auxiliary`, `secondary`, `back`, `forward`) or any step
 *   inside a frame (`frame: [0]`; the player acts on the top frame only) cannot be replayed as
 *   recorded: it becomes a step of its own for the agent (`recordable: false`);
 * - `emulateNetworkConditions`, `waitForExpression`, `customStep`, `close` and a `setViewport`
 *   after the first navigation change nothing a trail replays: dropped (the import wrote them as
 *   `wait` actions), with a warning when replay loses what they did.
 *
 * @module
 */
import type { EventData } from "../../events/mod.ts";
import type { TrailActionKind } from "../trail/mod.ts";
import { readAriaChain } from "../formats/mod.ts";

/** How v2 reads one Recorder step. */
export interface RecorderReading {
  /** The trail kind, when it is not the event's. */
  kind?: TrailActionKind;
  /** Why the player cannot do it as recorded (the agent does it, as `agentStep` says). */
  unplayable?: string;
  /** The step the agent is given for an unplayable action. */
  agentStep?: string;
  /** Why it leaves the trail. */
  drop?: string;
  /** What replay loses by the drop, when it loses something. */
  warning?: string;
}

/** A Recorder click's `button` as a person names it. */
const BUTTON_VERBS: Readonly<Record<string, { verb: string; what: string }>> = {
  auxiliary: { verb: "Middle-click", what: "a middle click" },
  secondary: { verb: "Right-click", what: "a right click" },
  back: { verb: "Click with the mouse's back button on", what: "a back-button click" },
  forward: { verb: "Click with the mouse's forward button on", what: "a forward-button click" },
};

/** What the step did, for an agent's step: a verb and, for a change, its value. */
function verbOf(d: EventData<"ActionPerformed">): string {
  switch (d.toolName) {
    case "doubleClick":
      return "Double-click";
    case "change":
      return `Type “${d.text ?? d.value ?? ""}” into`;
    case "hover":
      return "Hover over";
    case "waitForElement":
      return "Wait for";
    case "scroll":
      return "Scroll";
    default:
      return "Click";
  }
}

/** The element a step's recorded selectors name, as a person reads it. */
function elementOf(d: EventData<"ActionPerformed">): string | undefined {
  const s = d.target?.selectors;
  if (!s) return undefined;
  const aria = s.aria !== undefined ? readAriaChain(s.aria)?.name : undefined;
  const name = aria ?? s.text;
  // curly quotes: the step's text is quoted itself where warnings name it
  if (name !== undefined) return `“${name}”`;
  const css = s.css ?? s.pierce ?? s.xpath;
  return css === undefined ? undefined : `the element ${css}`;
}

/**
 * Reads a Recorder step under v2: its trail kind, or why it goes to the agent or leaves the
 * trail. A step of any other source (`source` not `human`, or a tool name no Recorder step has)
 * reads as nothing.
 *
 * @param d the action (an imported Recorder step)
 * @returns what v2 makes of it; empty when it is an ordinary action
 * @example
 * ```ts
 * const r = readRecorderStep({
 *   actionId: "a3", kind: "tap", toolName: "click", toolParams: { button: "secondary" },
 *   target: { selectors: { aria: "Menu" } }, source: "human",
 * });
 * if (r.agentStep !== "Right-click “Menu”") throw new Error();
 * ```
 */
export function readRecorderStep(d: EventData<"ActionPerformed">): RecorderReading {
  if (d.source !== "human" || d.toolName === undefined) return {};
  const params = d.toolParams ?? {};
  const element = elementOf(d);
  const on = element === undefined ? "" : ` ${element}`;
  const frame = params.frame;
  if (Array.isArray(frame) && frame.length > 0) {
    const nested = frame.length > 1 ? "a frame inside a frame" : "a frame";
    return {
      unplayable: `${d.toolName} inside ${nested} (frame ${
        JSON.stringify(frame)
      }): the player acts on the top frame only`,
      agentStep: `${verbOf(d)}${on} inside ${nested}`,
    };
  }
  const button = typeof params.button === "string" ? BUTTON_VERBS[params.button] : undefined;
  if (button && (d.toolName === "click" || d.toolName === "doubleClick")) {
    return {
      unplayable: `${button.what} (button ${
        JSON.stringify(params.button)
      }): a trail's click is a left click`,
      agentStep: `${d.toolName === "doubleClick" ? "Double-" : ""}${
        d.toolName === "doubleClick" ? button.verb.toLowerCase() : button.verb
      }${on}`,
    };
  }
  switch (d.toolName) {
    case "doubleClick":
      return d.kind === "tap" ? { kind: "doubleTap" } : {};
    case "hover":
      return d.kind === "assertVisible" ? { kind: "hover" } : {};
    case "emulateNetworkConditions": {
      const what = ["download", "upload", "latency"]
        .filter((k) => typeof params[k] === "number")
        .map((k) => `${k} ${params[k]}`).join(", ");
      return {
        drop: `emulateNetworkConditions (${what}) changes the network, not the app: not replayed`,
        warning: `emulateNetworkConditions (${what}) is not replayed: the trail runs at the ` +
          `network's own speed`,
      };
    }
    case "waitForExpression": {
      const expr = typeof params.expression === "string" ? ` ${params.expression}` : "";
      return {
        drop: `waitForExpression${expr}: a trail holds no page expression to wait for`,
        warning: `waitForExpression${expr} is not replayed: a trail holds no page expression`,
      };
    }
    case "customStep": {
      const name = typeof params.name === "string" ? ` ${JSON.stringify(params.name)}` : "";
      return {
        drop: `customStep${name} is a Recorder extension's own step: not replayed`,
        warning: `customStep${name} is not replayed: only the Recorder extension that wrote it ` +
          `knows what it does`,
      };
    }
    case "close":
      return { drop: "close ends the recording (it closes the page): nothing to replay" };
    case "setViewport": {
      const size = `${params.width}×${params.height}`;
      return {
        drop: `setViewport ${size} after the flow started: not replayed`,
        warning: `setViewport ${size} after the flow started is not replayed: the trail keeps ` +
          `the viewport it starts with`,
      };
    }
    default:
      return {};
  }
}
