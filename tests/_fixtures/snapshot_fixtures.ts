/**
 * Synthetic screens for the snapshot bench and speed test: an Android-like screen of a given
 * size (toolbar, a scrolling list of rows with title, subtitle, icon and a switch, generic
 * wrappers around each as real apps have), every node with plausible bounds.
 *
 * @module
 */
import { makeNode, type Screen, type UiNode } from "../../engine/screens/ui_node.ts";

/**
 * Builds an Android-like screen of about `nodes` nodes.
 *
 * @param nodes the node count wanted (rounded up to whole rows of 8 nodes)
 * @returns the screen (1080 × 2400); rows past the bottom are off screen, as in a long list
 */
export function syntheticAndroidScreen(nodes: number): Screen {
  const rows: UiNode[] = [];
  const rowCount = Math.max(1, Math.ceil((nodes - 6) / 8));
  for (let i = 0; i < rowCount; i++) {
    const y = 200 + i * 160;
    const b = (x: number, dy: number, w: number, h: number) => ({ x, y: y + dy, w, h });
    rows.push(makeNode({
      className: "android.widget.LinearLayout",
      resourceId: "com.example:id/row",
      clickable: true,
      bounds: b(0, 0, 1080, 160),
      children: [
        makeNode({ className: "android.widget.ImageView", bounds: b(30, 30, 100, 100) }),
        makeNode({
          className: "android.widget.LinearLayout",
          bounds: b(160, 20, 700, 120),
          children: [
            makeNode({
              className: "android.widget.TextView",
              resourceId: "com.example:id/title",
              text: `Item ${i}`,
              bounds: b(160, 20, 700, 60),
            }),
            makeNode({
              className: "android.widget.TextView",
              resourceId: "com.example:id/subtitle",
              text: `Updated ${i % 60} minutes ago · ${(i * 7) % 100} items`,
              bounds: b(160, 80, 700, 50),
            }),
          ],
        }),
        makeNode({
          className: "android.widget.FrameLayout",
          bounds: b(900, 40, 150, 80),
          children: [
            makeNode({
              className: "android.widget.Switch",
              resourceId: "com.example:id/toggle",
              checkable: true,
              checked: i % 3 === 0,
              clickable: true,
              bounds: b(920, 50, 110, 60),
            }),
          ],
        }),
        makeNode({
          className: "android.view.View",
          contentDescription: i % 5 === 0 ? "New" : "",
          bounds: b(1040, 10, 30, 30),
        }),
      ],
    }));
  }
  const root = makeNode({
    className: "hierarchy",
    bounds: { x: 0, y: 0, w: 1080, h: 2400 },
    children: [makeNode({
      className: "android.widget.FrameLayout",
      attrs: { package: "com.example" },
      bounds: { x: 0, y: 0, w: 1080, h: 2400 },
      children: [
        makeNode({
          className: "android.view.ViewGroup",
          resourceId: "com.example:id/toolbar",
          bounds: { x: 0, y: 60, w: 1080, h: 140 },
          children: [
            makeNode({
              className: "android.widget.ImageButton",
              contentDescription: "Navigate up",
              clickable: true,
              bounds: { x: 10, y: 80, w: 100, h: 100 },
            }),
            makeNode({
              className: "android.widget.TextView",
              text: "Settings",
              bounds: { x: 140, y: 90, w: 600, h: 80 },
            }),
          ],
        }),
        makeNode({
          className: "androidx.recyclerview.widget.RecyclerView",
          resourceId: "com.example:id/list",
          scrollable: true,
          bounds: { x: 0, y: 200, w: 1080, h: 2200 },
          children: rows,
        }),
      ],
    })],
  });
  return { platform: "android", format: "uiautomator2", root, width: 1080, height: 2400 };
}

/** The number of nodes of a tree. */
export function countNodes(root: UiNode): number {
  let n = 1;
  for (const c of root.children) n += countNodes(c);
  return n;
}
