import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { blazeRegistry } from "../../../api/blaze.ts";
import { createApp } from "../../../api/app.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { NO_OUTCOME } from "../../../runners/blaze/session.ts";
import { projectSessionTrail } from "../../../engine/optimizer/trail_projection.ts";
import { withDeadline } from "../../../drivers/with_deadline.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

const refOf = (snapshot: string, name: string): string => {
  const ref = snapshot.match(new RegExp(`button "${name}"[^\\n]*\\[ref=(\\w+)\\]`))?.[1];
  if (!ref) throw new Error(`no button ${name} in\n${snapshot}`);
  return ref;
};

Deno.test("a tap that timed out and was ended by force is a failed call: ActionCompleted ok:false, StepEnded ok:false, not in the trail", async () => {
  const server = serveFolder();
  const store = SqliteEventStore.open(":memory:");
  const registry = blazeRegistry(store, {
    settleMs: 50,
    screenshots: false,
    callTimeoutMs: 2_000,
    endGraceMs: 1_000,
  });
  const app = createApp({ store });
  const post = (path: string, body: unknown) =>
    withDeadline(
      Promise.resolve(app.request(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      })),
      15_000,
      () => new Error(`POST ${path} did not answer within 15 s`),
    );
  try {
    const started = await post("/v1/blaze/sessions", {
      url: server.url + "dialogs.html",
      prompt: "Save, then spin",
    });
    assertEquals(started.status, 201);
    const { sessionId } = await started.json();
    const tool = (name: string, params: unknown) =>
      post(`/v1/blaze/sessions/${sessionId}/tools/${name}`, params);
    const snap = (await (await tool("snapshot", {})).json()).output as string;
    const saved = await (await tool("tap", { ref: refOf(snap, "Save"), step: "Save it" })).json();
    assert(saved.ok, JSON.stringify(saved));
    const hung = await tool("tap", { ref: refOf(snap, "Hang"), step: "Spin the page" });
    assertEquals(hung.status, 504);
    await hung.body?.cancel();
    const end = await (await tool("end", { reason: "completed" })).json();
    assertEquals([end.ok, end.forced], [true, true]);

    const events = await Array.fromAsync(store.readStream(`session-${sessionId}`));
    const hangAction = events.filter((e) => e.type === "ActionPerformed").at(-1)!;
    const completions = events.filter((e) =>
      e.type === "ActionCompleted" &&
      e.data.actionId === (hangAction.data as { actionId: string }).actionId
    );
    assertEquals(completions.length, 1, "the hung action is completed once, by the end");
    const c = completions[0]!.data as { ok: boolean; error?: string };
    assertEquals([c.ok, c.error], [false, NO_OUTCOME]);
    const stepEnds = events.filter((e) => e.type === "StepEnded").map((e) => e.data);
    assertEquals(stepEnds, [{ index: 0 }, { index: 1, ok: false }]);
    assertEquals(events.at(-1)?.type, "SessionEnded");

    for (const heuristics of ["v1", "v2"]) {
      const p = await projectSessionTrail(store, sessionId, { heuristics });
      assertStringIncludes(p.yaml, "Save", `${heuristics}`);
      assert(!p.yaml.includes("Hang"), `${heuristics} replays the hung tap:\n${p.yaml}`);
      assertStringIncludes(p.yaml, "recordable: false", `${heuristics}`);
      assert(
        p.warnings.some((w) => w.includes("Spin the page") && w.includes("no outcome")),
        `${heuristics}: ${p.warnings.join("\n")}`,
      );
    }
  } finally {
    const drivers = registry.ids().map((id) => registry.get(id)!.driver);
    await withDeadline(registry.closeAll(), 15_000, () => new Error("closeAll() hung"))
      .catch(() => {});
    await Promise.all(drivers.map((d) => d.close()));
    store.close();
    await server.close();
  }
});

Deno.test("POST /v1/blaze/sessions on a page answering 404 starts (201) with playback's HTTP 404 warning, stored on its navigation", async () => {
  const server = serveFolder();
  const store = SqliteEventStore.open(":memory:");
  const registry = blazeRegistry(store, { settleMs: 50, screenshots: false });
  const app = createApp({ store });
  const start = async (url: string) => {
    const res = await app.request("/v1/blaze/sessions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url, prompt: "Look" }),
    });
    assertEquals(res.status, 201);
    return await res.json();
  };
  const navigations = async (id: string) =>
    (await Array.fromAsync(store.readStream(`session-${id}`)))
      .filter((e) => e.type === "NavigationOccurred").map((e) => e.data);
  try {
    const missing = await start(server.url + "no-such-page.html");
    assertEquals(missing.warning, "HTTP 404 Not Found");
    const navs = await navigations(missing.sessionId);
    assertEquals(navs.map((n) => [n.url, n.status, n.warning]), [
      [server.url + "no-such-page.html", 404, "HTTP 404 Not Found"],
    ]);
    const fine = await start(server.url + "login.html");
    assertEquals(fine.warning, undefined);
    const [nav] = await navigations(fine.sessionId);
    assertEquals([nav?.status, nav?.warning], [undefined, undefined]);
  } finally {
    await registry.closeAll();
    store.close();
    await server.close();
  }
});
