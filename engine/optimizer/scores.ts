/**
 * The durability scores of selector kinds (lower is more durable) and the penalties for what a
 * selector needs to be unique: a second property, a parent, an index.
 *
 * @module
 */

// Mobile scores.
export const ID_SCORE = 1; // authored resource id / accessibility identifier: survives copy and layout changes
export const TEST_ID_SCORE = 1; // authored for tests (Compose testTag, RN testID): as durable as an id
export const CONTENT_DESC_SCORE = 2; // accessibility label: stable, but copy can change
export const PARENT_CONTEXT_SCORE = 3; // type under a durable ancestor: survives copy changes, not re-parenting
export const TEXT_SCORE = 4; // visible copy: breaks on localisation and copy edits
export const CLASS_INDEX_SCORE = 5; // position among same-class nodes: breaks when a sibling is added
export const XY_SCORE = 6; // coordinates: break on any layout change

// Web scores (the cascade's order).
export const WEB_TEST_ID_SCORE = 1; // data-testid family: authored for tests
export const WEB_ARIA_LABEL_SCORE = 2; // aria-label: accessibility contract
export const WEB_ROLE_NAME_SCORE = 3; // role + accessible name: what a user perceives
export const WEB_ID_SCORE = 4; // DOM id: often stable, sometimes framework-generated
export const WEB_TEXT_SCORE = 5; // visible copy
export const WEB_CSS_PATH_SCORE = 6; // structure: breaks on markup changes
export const WEB_XY_SCORE = 7; // coordinates scaled by viewport

// Penalties for combined candidates.
// A combination that needs the node's text ranks after every single durable property (an id,
// a test id, a content description): it breaks on any copy edit, a unique label does not.
export const WITH_TEXT_FLOOR = CONTENT_DESC_SCORE;
export const WITH_TEXT_PENALTY = 0.2; // a second property that disambiguates
// An editable field's text is its placeholder or the value typed: it changes every run.
export const EDITABLE_TEXT_PENALTY = XY_SCORE;
export const WITH_PARENT_PENALTY = 0.4; // scoped under a durable ancestor
export const WITH_INDEX_PENALTY = 1.5; // n-th of several: fragile
// v2, Android: an index is the last resort (combine properties first), after every
// candidate without one, the class + text combination included, and before xy; among indexed
// candidates the more durable property first.
export const LAST_RESORT_INDEX_SCORE = CLASS_INDEX_SCORE + 0.5;
// v2, Android: an obfuscated resource name (R8's `bf2`) unique on the screen. The next build may
// rename it, so it ranks after every durable candidate and strict mode never takes it; within
// a build it holds, which an index among same-class nodes does not: it ranks before any index.
export const OBFUSCATED_ID_SCORE = CLASS_INDEX_SCORE + 0.25;
export const OBFUSCATED_RESOURCE_NAME = "generated id (an obfuscated resource name";
export const TEXT_PATTERN_PENALTY = 0.1; // copy with its numbers as \d+: survives counts, not copy edits
export const MAX_INDEX = 20; // beyond this an index is noise, not a selector
export const INDEX_AFTER_TEXT_PENALTY = 0.05; // v3: an index ranks after the unique text combination
export const MAX_PARENT_HOPS = 6; // how far up a durable ancestor is looked for
