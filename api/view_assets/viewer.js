// The run viewer: reads /v1/view/:id once, then the snapshot text at the selected position.
const $ = (id) => document.getElementById(id);

// A server started with CAIRN_TOKEN wants it as a bearer token on every data request: it comes
// in the URL fragment (#token=…, taken out of the address bar at once) or from a prompt after a
// 401, and is kept for this tab only (sessionStorage).
const TOKEN_KEY = "cairn-token";
let token = sessionStorage.getItem(TOKEN_KEY);
{
  const fromHash = new URLSearchParams(location.hash.slice(1)).get("token");
  if (fromHash) {
    token = fromHash;
    sessionStorage.setItem(TOKEN_KEY, token);
    history.replaceState(null, "", location.pathname + location.search);
  }
}
const authorized = (init = {}) =>
  token
    ? { ...init, headers: { ...(init.headers ?? {}), Authorization: `Bearer ${token}` } }
    : init;

/** fetch with the token; a 401 asks for it (once per request) and tries again. */
async function api(url, init) {
  let res = await fetch(url, authorized(init));
  if (res.status === 401) {
    const given = prompt("This Cairn server needs its token (CAIRN_TOKEN):");
    if (given) {
      token = given.trim();
      sessionStorage.setItem(TOKEN_KEY, token);
      res = await fetch(url, authorized(init));
    }
  }
  return res;
}

/** Points an image or video at a url: directly, or through a fetch with the token. */
const objectUrls = new Map();
async function setSource(el, url) {
  el.dataset.want = url;
  if (!url || !token) {
    el.src = url;
    return;
  }
  let objectUrl = objectUrls.get(url);
  if (!objectUrl) {
    const res = await api(url);
    if (!res.ok) return;
    objectUrl = URL.createObjectURL(await res.blob());
    objectUrls.set(url, objectUrl);
  }
  if (el.dataset.want === url) el.src = objectUrl; // not replaced by a later selection
}
const runId = decodeURIComponent(location.pathname.split("/").pop());
const BOUNDS = /\s*\{x:(-?[\d.]+),y:(-?[\d.]+),w:([\d.]+),h:([\d.]+)\}/;
let view = null;
let shown = []; // indices of items the filter keeps
let current = -1;
let snapshotSeq = 0;

function posOfUrl() {
  const at = new URLSearchParams(location.search).get("at");
  return at === null ? null : Number(at);
}

function render() {
  const q = $("filter").value.trim().toLowerCase();
  shown = view.items.map((_, i) => i).filter((i) => {
    const it = view.items[i];
    return !q || `${it.status} ${it.label} ${it.step ?? ""}`.toLowerCase().includes(q);
  });
  const ol = $("timeline");
  ol.textContent = "";
  const frag = document.createDocumentFragment();
  for (const i of shown) {
    const it = view.items[i];
    const li = document.createElement("li");
    li.dataset.index = String(i);
    li.dataset.position = String(it.position);
    li.innerHTML = `<div class="step"></div><span class="st ${it.status}">${it.status}</span>` +
      `<span class="dur">${
        it.durationMs === null ? "" : `${Math.round(it.durationMs)} ms`
      }</span>` +
      `<span class="label"></span>`;
    li.querySelector(".step").textContent = it.step ?? "";
    li.querySelector(".label").textContent = ` @${it.position} ${it.label}`;
    li.addEventListener("click", () => select(i));
    frag.append(li);
  }
  ol.append(frag);
}

function blobUrl(ref) {
  return ref ? `/v1/blobs/${ref.hash}` : "";
}

function place(el, img, it, box) {
  if (!box || !img.naturalWidth) {
    el.style.display = "none";
    return;
  }
  const unit = img.clientWidth / (it.viewport?.width ?? img.naturalWidth);
  el.style.left = `${box.x * unit}px`;
  el.style.top = `${box.y * unit}px`;
  if (box.w !== undefined) {
    el.style.width = `${box.w * unit}px`;
    el.style.height = `${box.h * unit}px`;
  }
  el.style.display = "block";
}

let targetBox = null;
function drawMarks() {
  const it = view.items[current];
  if (!it) return;
  const img = $("before");
  const box = it.box ?? targetBox;
  $("box").className = `mark box${it.status === "healed" ? " healed" : ""}`;
  place($("box"), img, it, box);
  $("point").className = `mark point${it.status === "failed" ? " failed" : ""}`;
  place($("point"), img, it, it.point);
}

async function loadSnapshot(it) {
  const seq = ++snapshotSeq;
  const pre = $("snapshot");
  targetBox = null;
  const res = await api(`/v1/view/${encodeURIComponent(runId)}/snapshot?at=${it.position}`);
  if (seq !== snapshotSeq) return;
  const body = await res.json();
  pre.textContent = "";
  if (!res.ok || body.text === null) {
    pre.textContent = res.ok ? "No hierarchy at this position." : body.error?.message ?? "error";
    pre.dataset.state = "none";
    drawMarks();
    return;
  }
  const frag = document.createDocumentFragment();
  for (const line of body.text.split("\n")) {
    const m = BOUNDS.exec(line);
    const span = document.createElement("span");
    span.textContent = line.replace(BOUNDS, "");
    if (m) {
      const b = { x: +m[1], y: +m[2], w: +m[3], h: +m[4] };
      span.addEventListener("click", () => {
        for (const s of pre.querySelectorAll("span.sel")) s.classList.remove("sel");
        span.classList.add("sel");
        place($("pick"), $("before"), view.items[current], b);
      });
      if (it.ref && line.includes(`[ref=${it.ref}]`)) targetBox = b;
    }
    frag.append(span);
  }
  pre.append(frag);
  pre.dataset.state = "shown";
  drawMarks();
}

function select(i) {
  const it = view.items[i];
  if (!it) return;
  current = i;
  for (const li of document.querySelectorAll("#timeline li.sel")) li.classList.remove("sel");
  const li = document.querySelector(`#timeline li[data-index="${i}"]`);
  if (li) {
    li.classList.add("sel");
    li.scrollIntoView({ block: "nearest" });
  }
  const url = new URL(location.href);
  url.searchParams.set("at", String(it.position));
  history.replaceState(null, "", url);
  setSource($("before"), blobUrl(it.before));
  setSource($("after"), blobUrl(it.after));
  $("pick").style.display = "none";
  $("status-line").className = it.status;
  $("status-line").textContent = `${it.status}${it.error ? `: ${it.error}` : ""}` +
    (it.reason ? `\nreason: ${it.reason}` : "");
  const mem = $("memory");
  mem.textContent = "";
  for (const [k, v] of Object.entries(it.memory)) {
    const tr = mem.insertRow();
    if (it.changed.includes(k)) tr.className = "changed";
    tr.insertCell().textContent = k;
    tr.insertCell().textContent = v;
  }
  if (!mem.rows.length) mem.insertRow().insertCell().textContent = "(empty)";
  // the video (a replay recorded with --video) shows the moment of the selected action
  const video = $("video");
  if (view.video && it.offsetMs !== null && video.readyState > 0 && video.paused) {
    video.currentTime = it.offsetMs / 1000;
  }
  $("reason").textContent = it.reason ? `Reason: ${it.reason}` : "";
  $("reason").hidden = !it.reason;
  $("call").textContent = it.call ? JSON.stringify(it.call, null, 2) : "(none)";
  $("report").textContent = it.report ? JSON.stringify(it.report, null, 2) : "(not a replay)";
  drawMarks();
  loadSnapshot(it);
  loadDiff(i);
}

// The diff tab: the screen after the selected action (just before the next one) against the
// screen it acted on.
let diffSeq = 0;
async function loadDiff(i) {
  const seq = ++diffSeq;
  const it = view.items[i];
  const next = view.items[i + 1];
  const at = next ? next.position - 1 : view.lastPosition;
  const res = await api(
    `/v1/view/${encodeURIComponent(runId)}/diff?at=${at}&from=${it.position}`,
  );
  if (seq !== diffSeq) return;
  const body = await res.json();
  const pre = $("diff");
  if (!res.ok || body.text === null) {
    $("diff-head").textContent = res.ok
      ? "No screen before and after this action to compare."
      : body.error?.message ?? "error";
    pre.textContent = "";
    pre.dataset.state = "none";
    return;
  }
  $("diff-head").textContent = body.fromPosition === body.screenPosition
    ? "No new screen after this action."
    : `Screen @${body.screenPosition} against @${body.fromPosition}: ` +
      `${body.added} added, ${body.removed} removed, ${body.changed} changed`;
  pre.textContent = "";
  for (const line of body.text.split("\n")) {
    const span = document.createElement("span");
    span.textContent = line;
    span.className = line.startsWith("+ ")
      ? "add"
      : line.startsWith("- ")
      ? "del"
      : line.startsWith("~ ")
      ? "chg"
      : "";
    pre.append(span);
  }
  pre.dataset.state = "shown";
}

function step(delta) {
  const k = shown.indexOf(current);
  const next = shown[Math.max(0, Math.min(shown.length - 1, (k < 0 ? 0 : k) + delta))];
  if (next !== undefined) select(next);
}

async function main() {
  const res = await api(`/v1/view/${encodeURIComponent(runId)}`);
  const body = await res.json();
  if (!res.ok) {
    $("title").textContent = body.error?.message ?? `error ${res.status}`;
    return;
  }
  view = body;
  $("title").textContent = `${view.streamId} — ${view.title}`;
  render();
  showVideo();
  const at = posOfUrl();
  let i = at === null ? 0 : view.items.findLastIndex((it) => it.position <= at);
  if (i < 0) i = 0;
  if (view.items.length) select(i);
  document.body.dataset.ready = "1";
  follow();
}

// Live: a running blaze or playback appends events; the log's SSE stream says when, and the
// run's data is read again (the selection kept, or moved to the newest action when it was last).
function follow() {
  const stream = encodeURIComponent(view.streamId);
  const url = `/v1/events?from=${view.lastPosition + 1}&stream=${stream}`;
  let timer = 0;
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, 150);
  };
  if (token) {
    followWithToken(url, changed);
    return;
  }
  if (typeof EventSource === "undefined") return;
  const source = new EventSource(url);
  // each SSE message is named by its event type (no unnamed `message` events): the types a
  // run's timeline shows (events/schemas.ts)
  for (const type of LIVE_TYPES) source.addEventListener(type, changed);
}

// An EventSource cannot send a header: with a token the stream is read through fetch, and its
// `event:` lines name the types as above. A dropped stream is resumed from the last id seen.
async function followWithToken(url, changed) {
  let from = url;
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const res = await fetch(from, authorized({ headers: { Accept: "text/event-stream" } }));
      if (!res.ok || !res.body) return;
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const message = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const type = /^event: ?(.*)$/m.exec(message)?.[1];
          const id = /^id: ?(\d+)$/m.exec(message)?.[1];
          if (id) from = url.replace(/from=\d+/, `from=${Number(id) + 1}`);
          if (type && LIVE_TYPES.includes(type)) changed();
        }
      }
    } catch {
      // the connection dropped: resume after a pause
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

const LIVE_TYPES = [
  "StepStarted",
  "ScreenCaptured",
  "ActionPerformed",
  "MemorySnapshotted",
  "ActionCompleted",
  "NavigationOccurred",
  "StepEnded",
  "SessionEnded",
  "PlaybackActionResolved",
  "PlaybackActionCompleted",
  "PlaybackCompleted",
  "ValidationIterationCompleted",
  "ValidationCompleted",
];

function showVideo() {
  const video = $("video");
  if (!view.video || video.dataset.src === view.video.url) return;
  video.dataset.src = view.video.url;
  setSource(video, view.video.url);
  video.hidden = false;
}

async function refresh() {
  const res = await api(`/v1/view/${encodeURIComponent(runId)}`);
  if (!res.ok) return;
  const wasLast = current === view.items.length - 1;
  view = await res.json();
  render();
  showVideo();
  select(wasLast ? view.items.length - 1 : current);
  document.body.dataset.updates = String(Number(document.body.dataset.updates ?? 0) + 1);
}

$("filter").addEventListener("input", render);
for (const img of [$("before")]) img.addEventListener("load", drawMarks);
document.addEventListener("keydown", (e) => {
  if (e.target === $("filter")) return;
  if (e.key === "ArrowRight" || e.key === "ArrowDown") step(1), e.preventDefault();
  if (e.key === "ArrowLeft" || e.key === "ArrowUp") step(-1), e.preventDefault();
});
for (const b of document.querySelectorAll("#tabs button")) {
  b.addEventListener("click", () => {
    for (const x of document.querySelectorAll("#tabs button, .tab")) x.classList.remove("on");
    b.classList.add("on");
    $(`tab-${b.dataset.tab}`).classList.add("on");
  });
}
main();
