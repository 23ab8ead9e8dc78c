/**
 * Checks of a SQLite log whose session kept its parsed screens: the trail is the same when the
 * screens are parsed from the hierarchies (no kept row) and when only the kept rows can be read
 * (the hierarchies broken).
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { assertEquals } from "./assert.ts";
import { SqliteEventStore } from "../../events/mod.ts";
import { projectSessionTrail } from "../../engine/optimizer/mod.ts";

/**
 * Asserts a session's trail does not depend on its kept parsed screens. The log must be closed.
 *
 * @param dbPath the SQLite log (changed: its hierarchies are broken by `breakHierarchies`)
 * @param sessionId the session
 * @param trail the trail projected before
 * @param breakHierarchies SQL that makes every stored hierarchy unparseable
 */
export async function assertTrailWithoutParsedScreens(
  dbPath: string,
  sessionId: string,
  trail: string,
  breakHierarchies: string,
): Promise<void> {
  const trailOf = async (path: string, sql: string) => {
    const db = new DatabaseSync(path);
    db.exec(sql);
    db.close();
    const st = SqliteEventStore.open(path);
    try {
      return (await projectSessionTrail(st, sessionId)).yaml;
    } finally {
      st.close();
    }
  };
  const copy = `${dbPath}.parsed.db`;
  await Deno.copyFile(dbPath, copy);
  // the hierarchies parsed (no kept screen) give the same trail
  assertEquals(await trailOf(copy, "DELETE FROM derived"), trail);
  // and the kept screens alone (the hierarchies no longer parse) give it too
  assertEquals(await trailOf(dbPath, breakHierarchies), trail);
}
