/**
 * Upcasters: pure functions that lift an event's stored data from one schema version to the
 * next. They run on read; stored events are never rewritten (docs/architecture.md "Events").
 *
 * @module
 */
import { z } from "zod";
import { CURRENT_SCHEMA_VERSION, EVENT_SCHEMAS, type EventType } from "./schemas.ts";

/** Lifts data of `type` at `fromVersion` to `fromVersion + 1`. */
export type Upcaster = (data: unknown) => unknown;

/**
 * Raised when an event cannot be read: unknown type, version or shape, or (read from the
 * store) stored data that is not JSON. `position` is the stored event's, when it has one.
 */
export class UnreadableEventError extends Error {
  override name = "UnreadableEventError";
  /**
   * @param message what is wrong
   * @param position the stored event's global position, when read from the store
   */
  constructor(message: string, readonly position?: number) {
    super(message);
  }
}

const registry = new Map<string, { fn: Upcaster; input: z.ZodType }>();

function key(type: string, fromVersion: number): string {
  return `${type}@${fromVersion}`;
}

/**
 * Registers the upcaster of `type` from `fromVersion` to `fromVersion + 1`.
 *
 * @param type the event type
 * @param fromVersion the version it reads
 * @param input the schema of the data at `fromVersion` (what an import checks old data against)
 * @param fn the lifting function
 * @throws {Error} when one is already registered for that type and version
 */
export function registerUpcaster(
  type: EventType,
  fromVersion: number,
  input: z.ZodType,
  fn: Upcaster,
): void {
  const k = key(type, fromVersion);
  if (registry.has(k)) throw new Error(`An upcaster for ${k} is already registered`);
  registry.set(k, { fn, input });
}

/**
 * The schema data of `type` had at `version`: the current schema, or the input schema of the
 * upcaster that reads that version.
 *
 * @param type an event type
 * @param version a schema version
 * @returns the schema, or undefined for a version this code cannot read
 */
export function schemaAt(type: EventType, version: number): z.ZodType | undefined {
  if (version === CURRENT_SCHEMA_VERSION[type]) return EVENT_SCHEMAS[type];
  return registry.get(key(type, version))?.input;
}

/**
 * Reads stored data of any known version as the current shape: applies upcasters from
 * `version` to the current version, then parses with the type's schema.
 *
 * @param type the stored type
 * @param version the stored schema version
 * @param data the stored data
 * @returns the data in the current shape, and the current version
 * @throws {UnreadableEventError} on an unknown type, a version newer than this code or with no
 *   upcaster path, or data that does not fit after upcasting
 * @example
 * ```ts
 * const { data, schemaVersion } = upcast("StepStarted", 1, { index: 0, text: "Open" });
 * if (schemaVersion !== 1 || (data as { text: string }).text !== "Open") throw new Error();
 * ```
 */
export function upcast(
  type: string,
  version: number,
  data: unknown,
): { data: unknown; schemaVersion: number } {
  if (!Object.hasOwn(EVENT_SCHEMAS, type)) {
    throw new UnreadableEventError(`Unknown event type ${JSON.stringify(type)}`);
  }
  const t = type as EventType;
  const current = CURRENT_SCHEMA_VERSION[t];
  if (version > current) {
    throw new UnreadableEventError(
      `${type} has schema version ${version}, newer than this Cairn knows (${current})`,
    );
  }
  let value = data;
  for (let v = version; v < current; v++) {
    const fn = registry.get(key(t, v))?.fn;
    if (!fn) throw new UnreadableEventError(`No upcaster for ${type} from schema version ${v}`);
    try {
      value = fn(value);
    } catch (err) {
      const why = err instanceof z.ZodError
        ? z.prettifyError(err).split("\n").join(" ")
        : String(err);
      throw new UnreadableEventError(`${type} (schema version ${v}) does not fit: ${why}`);
    }
  }
  const parsed = EVENT_SCHEMAS[t].safeParse(value);
  if (!parsed.success) {
    throw new UnreadableEventError(
      `${type} (schema version ${version}) does not fit: ${
        z.prettifyError(parsed.error).split("\n").join(" ")
      }`,
    );
  }
  return { data: parsed.data, schemaVersion: current };
}

// ---- the upcasters ----

/**
 * `ScreenCaptured` v1, as the first capture importer wrote it: flat hashes and sizes; the
 * media types followed from the hierarchy format (XML dumps vs JSON trees) and screenshots
 * were always PNG.
 */
export const ScreenCapturedV1 = z.object({
  hierarchyHash: z.string(),
  hierarchySize: z.number().int().nonnegative(),
  format: z.string(),
  screenshotHash: z.string().optional(),
  screenshotSize: z.number().int().nonnegative().optional(),
  url: z.string().optional(),
  viewport: z.object({ width: z.number(), height: z.number() }).optional(),
  devicePixelRatio: z.number().optional(),
  scroll: z.object({ x: z.number(), y: z.number() }).optional(),
  tabId: z.string().optional(),
});

const XML_FORMATS = new Set(["uiautomator2", "uiautomator-dump", "xcuitest"]);

registerUpcaster("ScreenCaptured", 1, ScreenCapturedV1, (raw) => {
  const v1 = ScreenCapturedV1.parse(raw);
  const { hierarchyHash, hierarchySize, screenshotHash, screenshotSize, ...rest } = v1;
  return {
    ...rest,
    hierarchy: {
      hash: hierarchyHash,
      mediaType: XML_FORMATS.has(v1.format) ? "application/xml" : "application/json",
      size: hierarchySize,
    },
    ...(screenshotHash === undefined ? {} : {
      screenshot: { hash: screenshotHash, mediaType: "image/png", size: screenshotSize ?? 0 },
    }),
  };
});
