/**
 * A static web server for tests: serves a folder on 127.0.0.1 at a free port. Besides the
 * files it answers `/redirect?to=PATH` with a 302 (navigation tests see requested → final url)
 * and `/slow?ms=N&to=PATH` after a delay.
 *
 * @module
 */

/** A running test server. */
export interface WebServer {
  /** Base url with a trailing slash, e.g. `http://127.0.0.1:41234/`. */
  url: string;
  /** The port it listens on. */
  port: number;
  /** Stops the server and waits for it to finish. */
  close(): Promise<void>;
}

/** The folder of Cairn's test pages. */
export const TEST_PAGES: string = new URL("../testdata/web/", import.meta.url).pathname;

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  mjs: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  json: "application/json",
  png: "image/png",
  svg: "image/svg+xml",
  txt: "text/plain; charset=utf-8",
};

/**
 * Serves `root` (default: `tests/testdata/web/`) on 127.0.0.1, port 0.
 *
 * @param root the folder to serve
 * @returns the url and `close`
 * @example
 * ```ts
 * import { serveFolder } from "./web_server.ts";
 * const server = serveFolder();
 * const res = await fetch(server.url + "login.html");
 * await res.body?.cancel();
 * await server.close();
 * ```
 */
export function serveFolder(root: string = TEST_PAGES, port = 0): WebServer {
  const base = root.endsWith("/") ? root : root + "/";
  const server = Deno.serve(
    { hostname: "127.0.0.1", port, onListen: () => {} },
    (req) => handle(base, req),
  );
  port = server.addr.port;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    close: async () => {
      await server.shutdown();
    },
  };
}

async function handle(base: string, req: Request): Promise<Response> {
  const url = new URL(req.url);
  if (url.pathname === "/redirect") {
    return new Response(null, {
      status: 302,
      headers: { location: url.searchParams.get("to") ?? "/" },
    });
  }
  if (url.pathname === "/slow") {
    const ms = Math.min(Number(url.searchParams.get("ms") ?? "0") || 0, 10_000);
    await new Promise((r) => setTimeout(r, ms));
    return new Response(null, {
      status: 302,
      headers: { location: url.searchParams.get("to") ?? "/" },
    });
  }
  let path = decodeURIComponent(url.pathname).replace(/^\/+/, "");
  if (path === "" || path.endsWith("/")) path += "index.html";
  if (path.split("/").some((part) => part === "..")) {
    return new Response("Bad path", { status: 400 });
  }
  // An SPA route (no extension) falls back to spa.html, as a real SPA host would.
  const file = /\.[a-z0-9]+$/i.test(path) ? path : "spa.html";
  try {
    const bytes = await Deno.readFile(base + file);
    const ext = file.slice(file.lastIndexOf(".") + 1).toLowerCase();
    return new Response(bytes, {
      headers: {
        "content-type": TYPES[ext] ?? "application/octet-stream",
        "cache-control": "no-store",
      },
    });
  } catch {
    return new Response("Not found", { status: 404 });
  }
}

if (import.meta.main) {
  // `deno run -A tests/_fixtures/web_server.ts [PORT] [FOLDER]`: the test pages for trying Cairn by hand.
  const server = serveFolder(Deno.args[1] ?? TEST_PAGES, Number(Deno.args[0] ?? 8000));
  console.log(`serving ${Deno.args[1] ?? "tests/testdata/web/"} at ${server.url} (Ctrl-C stops)`);
}
