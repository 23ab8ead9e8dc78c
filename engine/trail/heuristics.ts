/**
 * The optimizer heuristics version and the one function that maps public selector modes to
 * internal flags. Changing any pass's logic bumps the version; a projection names the version
 * it ran, so a stored capture can be re-projected under a newer one (`cairn reproject`).
 *
 * v2 changes:
 * - resolve: a read or assertion keeps the recorded target (role + name) the point hit inside of.
 * - slots: slot values (≥ 8 chars, provisioned ≥ 3) inside an assertion text → `{{key}}` in it.
 * - slots: a step with a provisioning call (it runs again on replay) is `recordable: false`.
 * - slots: assertVisible of a target whose name shows the value the NL is about → assertText of it.
 * - generalize: a format-intent value no known format fits → its shape (`ORD-\d{4}-\d{6}`).
 * - generalize: known formats add ISO date-time and semver; a count's noun may be singular.
 * - generalize: known formats add a month-and-day date (`Mar 10`, `10 March 2026`).
 * - generalize: a format noun that names one particular value ("the selected product's id",
 *   "the id of the order", "its date") is no format intent: the value stays exact.
 * - slots: an assertion of a value read earlier, in a step asking for a format ("Verify a date
 *   is shown"), is the format, not the read slot (`{{emailDate}}` there is a tautology).
 * - expressions: a number inside a longer text may be the expression (`Total {{a + b}}`).
 * - concision: a step with no captured action gets `recording: []` (was `recordable: false`).
 * - concision: a dropped failed call's explanation lists no selector choice.
 * - Android tap, no clickable ancestor near: its focusable, named ancestor (RN `loginBtn`).
 * - Android tap on a control with no label or id: named by its first unique child label.
 * - Android tap: the clickable node drawn on top at the point (sibling `drawing-order`, else the
 *   later sibling), not a deeper node of a list beneath it (Gmail's Compose button).
 * - Android selectors: an index is the last resort, after every candidate without one (a unique
 *   label text before `contentDescription` + `index`), before xy.
 * - Android selectors: no `testId` candidate repeating the `id` (a bare resource name is both:
 *   one lookup), so a fallback chain no longer lists `id: X, index: N` and `testId: X, index: N`.
 * - Android assertion: on the node whose text or content description is the expected value (the
 *   labelled frame, not the image the point hit in it); a description is asserted by
 *   `assertVisible` of a `contentDescription` selector (the player's assertText reads text).
 * - iOS tap, inputText: the interactive node drawn on top at the point (document order: a later
 *   sibling over an earlier one's subtree), not a deeper, empty full-size layer beneath it
 *   (Safari's address field over the web view, an alert's button). Interactive: XCUITest's
 *   control types (parse_ios `IOS_INTERACTIVE_TYPES`); on Maestro/Trailblaze iOS trees (no types)
 *   a labelled leaf, or a labelled node holding one. An unlabelled container draws nothing: it
 *   does not hide the control, nor keep a tap on a row's background from going to the row.
 * - iOS input slot names: the accessibility label before the identifier (`address`, not
 *   `tabBarItem` from `TabBarItemTitle`).
 * - Android inputText: the editable field under the point, not a label drawn over it.
 * - Android scroll, swipe: the scrollable container under the point, else a screen swipe.
 * - Android ids `eq`, `up`, `fab` are authored unless 4+ short ids share the screen; `r7` is not.
 * - Android: an obfuscated resource name unique on the screen (TikTok's close button `bf2`) is a
 *   selector after every durable candidate and before an index (family `obfuscatedId`); strict
 *   mode still takes none (the next build may rename it).
 * - Android: a content description holding a clock time (a Messages bubble's "You said  Hiii
 *   12:30 pm .") is no selector, nor a `childOf` scope: it changes from run to run.
 * - Android input slot names: ids lose a `RNE__Input__` prefix; `text-input` → `textInput`.
 * - Android assertion whose selector holds a slot value (Gmail's account disc described "Signed
 *   in as … <the email typed earlier>"): the best unique selector without it (the disc's id); a
 *   value only the description carried is then checked for presence.
 * - Android assertion whose point hit a node that shows no text (Gmail's avatar ImageView): the
 *   frame around it whose description holds the value (the disc), checked by that description;
 *   none: `assertVisible` of the node. Never `assertText` there: the player reads text only.
 * - Explain: a slot value from the user's prompt is "a value of the prompt", not the system's.
 * - web reads/asserts on text without an id: a row-anchored value pattern
 *   (`{ textRegex, childOf: { text } }`), never coordinates the player refuses; none left:
 *   `recordable: false`.
 * - web names and texts with a count, price or time (`Checkout (2 items) $37.50`): a `textRegex`
 *   of the element's text (`\(\d+ items?\) \$\d[\d.,]*`), the exact copy rejected.
 * - web controls repeated in rows: scoped to the row by its texts
 *   (`childOf: { text, childOf: { text } }`), an index only among identical rows; positional
 *   candidates rejected; `assertVisible` keeps the text it saw (`assertText`).
 * - Recorder `aria/Name`: no aria-label guessed from it; strict takes a recorded id/test id, then
 *   the name.
 * - web strict: authored test id / id before aria-label, unique role + name accepted; flexible: a
 *   glyph (`+`) loses to the label naming the control.
 * - Recorder `aria` chain read hop by hop: `aria/X >>> aria/[role="generic"]` → `name: X`.
 * - Recorder doubleClick → `doubleTap` (web `doubleClick`), not a single `tap`.
 * - Recorder hover → `hover` (the player moves the mouse there), not `assertVisible`.
 * - Recorder right/middle/back/forward click, step in a frame → own step, `recordable: false`.
 * - Recorder emulateNetworkConditions, waitForExpression, customStep, close, later setViewport:
 *   dropped (was `wait: {}`), with a warning when replay loses what they did.
 * - Recorder `text/X`, the first words of the element's text (Chrome matches it contained):
 *   `textRegex: "X.*"` unless X is whole (under 12 characters, or the step's `aria/` name); was
 *   an exact `text` no longer element equals.
 * - Recorder flow's `selectorAttribute` (`[data-devtools-test='x']`): a test id, not a CSS path.
 * - web row anchors in rows of plain divs and spans (the accessibility tree drops the row): the
 *   row read from the control's CSS path, the texts between rows split by the rows' shape.
 * - human recording, screen before not the page at the action (`screenBefore` `earlier`,
 *   `none`): the recorder's own target over the hit test, else its selectors (unverified), with
 *   a warning.
 *
 * v3 changes (durable trails: every action keeps a ranked fallback chain):
 * - adaptive: every targeted action gets the best selector and then every other kind of
 *   candidate unique on the captured screen and picking the acted-on node (web: test id,
 *   aria-label, role + name, id, text, text scoped to its row, CSS path, then xy; Android/iOS:
 *   id, content description, text, type under a durable parent, class + index, then xy), at most
 *   five, deduplicated, no obfuscated id after the first; one selector keeps the short form.
 * - every mode: no selector by a value the action types, reads or asserts, nor by a slot's value
 *   (a typed text, a value read, a memory value): Calculator's result described as "5". A read
 *   never falls back to one (strict refuses it, adaptive keeps the point); a tap or a presence
 *   check does when nothing else but the point picks the element.
 * - flexible: only text, description, role + name and row-scoped selectors that do not hold the
 *   value, for reads and assertions too (was the test id), else the adaptive chain; a visibility
 *   check is never loosened into a `textRegex` of its text ("exactly Mon, Sep 23" stays exact).
 * - strict: an id, test id or content description unique within a parent one exact property
 *   names (`childOf`), or within the row a row anchor names (`childOf: { text }`), is exact
 *   (parent context), no longer `recordable: false`.
 * - web: a row anchor (`childOf: { text }`) is a fallback beside a durable id too when the text
 *   alone is not unique; a read's value shape unique on the page (`textRegex` of the one price
 *   shown) is a fallback of its own.
 * - Android/iOS: a class unique alone is written `className` + `index: 0` (the Android player
 *   looks a class up by instance); an index is a candidate after a unique text combination too,
 *   so an assertion keeps a fallback that holds no text; a field's text (typed) is no label of
 *   the control around it.
 * - a key press carries the chain of the element that had focus on the screen captured before it
 *   (`keyPress` + `selectors`, no coordinates); typing into a `<select>` and pressing Enter is one
 *   `select` of the option the typing chose.
 * v3 also holds the following (briefly written into v2, moved here so that v2 writes exactly
 * what it wrote before them):
 * - expressions: "N times", "half", "N percent", sums, differences,
 *   products and ratios of two values (also "decreased by the amount"), over numbers typed, read
 *   or in the initial memory; a number in a longer text may be a value read earlier the step
 *   refers to (`{{subtotal}}×4`).
 * - generalize: a library of date and time shapes (weekday-first, day-month, dotted, ISO with a
 *   zone, relative, 12/24 h, date with time), money in many currencies, measures with a unit;
 *   format nouns add timestamp, deadline, due, distance, weight, size, duration.
 * - slot names from the NL step before an element's id; a known kind in the step ("Search")
 *   before a field id of noise words only.
 * - substitution: the 8-character guard for the initial memory too; a memory value inside a
 *   longer text only when the step asks for it.
 * - Android assertion: a frame around a label checks the label inside it; a description holds a
 *   value only as a whole phrase. iOS and web assertions too: a frame (a cell, a region) checks
 *   the one element inside it that shows the value; a value shown by a button or a link is held
 *   by that control, not the region around it.
 * - a recorder's key press on the body (nothing focused) is a key of the page, no target.
 * - a person's click on an element the accessibility tree leaves out (an SVG shape, a plain
 *   `div`), resolved to an unnamed wrapper around it (not the page, not a control), is written as
 *   the element pressed (the recorder's CSS path of it) before the wrapper's selectors.
 *
 * @module
 */
import type { SelectorMode } from "./trail.ts";

/** The current heuristics version. */
export const HEURISTICS_VERSION = "v3";

/**
 * Every heuristics version this build can run: `v0` is the raw lens (the recording as the
 * blaze made it, no post-processing), `v1` the optimizer's passes, `v2` those passes with the
 * changes a pass gates on {@linkcode heuristicsLevel}, `v3` adds the fallback chains (a stored
 * trail re-projects to the same trail under its own version, so `cairn reproject` shows exactly
 * what a version changed).
 */
export const HEURISTICS_VERSIONS: readonly string[] = ["v0", "v1", "v2", "v3"];

/**
 * A known heuristics version as a number to compare against (`v2` → 2).
 *
 * @param version a version {@linkcode checkHeuristics} accepted
 * @returns its number
 * @example
 * ```ts
 * if (heuristicsLevel("v2") !== 2) throw new Error();
 * ```
 */
export function heuristicsLevel(version: string): number {
  return Number(checkHeuristics(version).slice(1));
}

/**
 * Checks a heuristics version.
 *
 * @param version the version asked for
 * @returns the version
 * @throws {RangeError} when this build does not know it
 */
export function checkHeuristics(version: string): string {
  if (!HEURISTICS_VERSIONS.includes(version)) {
    throw new RangeError(
      `Unknown heuristics version ${JSON.stringify(version)} (known: ${
        HEURISTICS_VERSIONS.join(", ")
      })`,
    );
  }
  return version;
}

/** What a selector mode lets the selector and mode passes do. */
export interface ModeFlags {
  /** Only one exact property (id, testId, contentDescription/ariaLabel) may be emitted. */
  exactOnly: boolean;
  /** Text and content description are preferred over structural properties. */
  preferLabels: boolean;
  /** An ordered fallback chain (`selectors: [...]`) is emitted when the best is weaker than an id. */
  fallbackChain: boolean;
  /** Coordinates may be emitted (as a last resort). */
  allowXy: boolean;
  /** Text may be emitted. */
  allowText: boolean;
  /** An action with no acceptable selector fails its step (marked `recordable: false`). */
  failWithoutSelector: boolean;
}

/**
 * Maps a public selector mode to the internal flags (the only place that does).
 *
 * @param mode strict, flexible or adaptive
 * @returns the flags
 * @example
 * ```ts
 * if (modeFlags("strict").allowText) throw new Error();
 * ```
 */
export function modeFlags(mode: SelectorMode): ModeFlags {
  switch (mode) {
    case "strict":
      return {
        exactOnly: true,
        preferLabels: false,
        fallbackChain: false,
        allowXy: false,
        allowText: false,
        failWithoutSelector: true,
      };
    case "flexible":
      return {
        exactOnly: false,
        preferLabels: true,
        fallbackChain: false,
        allowXy: true,
        allowText: true,
        failWithoutSelector: false,
      };
    case "adaptive":
      return {
        exactOnly: false,
        preferLabels: false,
        fallbackChain: true,
        allowXy: true,
        allowText: true,
        failWithoutSelector: false,
      };
    default: {
      const never: never = mode;
      throw new TypeError(`Unknown selector mode ${String(never)}`);
    }
  }
}
