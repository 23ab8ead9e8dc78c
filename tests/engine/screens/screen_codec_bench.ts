// deno bench -A tests/engine/screens/screen_codec_bench.ts
// What a stored screen costs to read: parsing its hierarchy (what a projection did before
// screens were kept parsed) against decoding the bytes ingest kept (`decodeScreen`), on the
// largest corpus dump and on a Chrome hierarchy; and encoding, which ingest pays once.
import { parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { decodeScreen, encodeScreen } from "../../../engine/screens/screen_codec.ts";

const TASKS = new URL(
  "../../../../shared/corpus/android/uiautomator_google_tasks_list.xml",
  import.meta.url,
);
const CHROME = new URL("../../testdata/snapshots/web_sample_app_form.chrome.json", import.meta.url);

for (
  const [name, url] of [["Google Tasks dump (79 KB)", TASKS], ["Chrome form", CHROME]] as const
) {
  const text = Deno.readTextFileSync(url);
  const screen = parseHierarchy(text);
  const bytes = encodeScreen(screen)!;
  if (JSON.stringify(decodeScreen(bytes)) !== JSON.stringify(screen)) throw new Error(name);
  Deno.bench(`parse the hierarchy: ${name}`, { group: name, baseline: true }, () => {
    parseHierarchy(text);
  });
  Deno.bench(`decode the kept screen (${bytes.byteLength} bytes): ${name}`, { group: name }, () => {
    decodeScreen(bytes);
  });
  Deno.bench(`encode the screen (once, at ingest): ${name}`, { group: name }, () => {
    encodeScreen(screen);
  });
}
