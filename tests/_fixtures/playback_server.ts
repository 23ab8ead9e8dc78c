/**
 * The server of the playback tests and the robustness benchmark: serves a folder on
 * 127.0.0.1 and injects the current *variant* (`window.__VARIANT__`) into every HTML page, so
 * the same url serves the app as recorded and, after `setVariant`, the app as changed.
 *
 * Routes besides files: `/spa/*` serves `app.html` (client-side routes), `/account` answers
 * 302 → `/login.html` while logged out (an auth wall), `/redirect?to=PATH` a 302.
 *
 * @module
 */

/** A running playback test server. */
export interface PlaybackServer {
  url: string;
  /** Sets the variant every later page load applies (comma-separated flags). */
  setVariant(variant: string): void;
  setLoggedIn(loggedIn: boolean): void;
  close(): Promise<void>;
}

/** The folder of the playback test pages. */
export const PLAYBACK_PAGES: string = new URL("../testdata/playback/", import.meta.url).pathname;

/**
 * Serves `root` on 127.0.0.1 at a free port.
 *
 * @param root the folder (default `tests/testdata/playback/`)
 * @param options `index`: the page every path without an extension serves (default `app.html`)
 * @returns the server
 */
export function servePlaybackPages(
  root: string = PLAYBACK_PAGES,
  options: { index?: string } = {},
): PlaybackServer {
  const index = options.index ?? "app.html";
  let variant = "";
  let loggedIn = true;
  const base = root.endsWith("/") ? root : root + "/";
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/redirect") {
      return new Response(null, {
        status: 302,
        headers: { location: url.searchParams.get("to") ?? "/" },
      });
    }
    if (url.pathname === "/hang.png") {
      // A resource that answers after 8 s keeps the load event from firing (navigation cap tests).
      await new Promise((r) => setTimeout(r, 8_000));
      return new Response(new Uint8Array(), { headers: { "content-type": "image/png" } });
    }
    if (url.pathname === "/account" && !loggedIn) {
      return new Response(null, { status: 302, headers: { location: "/login.html" } });
    }
    let file = url.pathname.replace(/^\/+/, "");
    if (file === "" || !/\.[a-z0-9]+$/i.test(file)) file = index;
    if (file.split("/").some((p) => p === "..")) return new Response("Bad path", { status: 400 });
    try {
      const bytes = await Deno.readFile(base + file);
      if (!file.endsWith(".html")) {
        return new Response(bytes, { headers: { "content-type": "text/plain" } });
      }
      const html = new TextDecoder().decode(bytes).replace(
        "<head>",
        `<head><script>window.__VARIANT__ = ${JSON.stringify(variant)};</script>`,
      );
      return new Response(html, {
        headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
      });
    } catch {
      return new Response("Not found", { status: 404 });
    }
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/`,
    setVariant: (v) => {
      variant = v;
    },
    setLoggedIn: (v) => {
      loggedIn = v;
    },
    close: () => server.shutdown(),
  };
}
