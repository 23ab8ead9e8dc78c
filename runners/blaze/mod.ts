/**
 * Blaze sessions: an agent drives an app tool by tool while every action is captured as events.
 *
 * @module
 */
export * from "./_actions.ts";
export * from "./_editable.ts";
export * from "./_no_outcome.ts";
export * from "./_params.ts";
export * from "./session.ts";
