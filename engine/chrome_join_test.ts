import { assertEquals } from "../tests/assert.ts";
import { type AXNodeLike, type DomSnapshotLike, joinChromeHierarchy } from "./chrome_join.ts";

const PAGE = {
  url: "http://127.0.0.1:8000/",
  viewport: { width: 800, height: 600 },
  devicePixelRatio: 1,
  scroll: { x: 0, y: 0 },
};

/** A tiny DOM: document > html > body > [div#list (overflow auto) > li, li], button (in x-card's shadow), input. */
function snapshot(): DomSnapshotLike {
  const strings = [
    "#document",
    "HTML",
    "BODY",
    "DIV",
    "id",
    "list",
    "LI",
    "X-CARD",
    "BUTTON",
    "data-testid",
    "go",
    "class",
    "css-1a2b3c4 primary",
    "INPUT",
    "type",
    "password",
    "auto",
    "visible",
  ];
  //            0   1  2  3  4  5  6  7  8
  // nodes:     doc html body div li li xcard button input
  return {
    strings,
    documents: [{
      nodes: {
        parentIndex: [-1, 0, 1, 2, 3, 3, 2, 6, 2],
        nodeType: [9, 1, 1, 1, 1, 1, 1, 1, 1],
        nodeName: [0, 1, 2, 3, 6, 6, 7, 8, 13],
        backendNodeId: [1, 2, 3, 4, 5, 6, 7, 8, 9],
        attributes: [[], [], [], [4, 5], [], [], [], [9, 10, 11, 12], [14, 15]],
        shadowRootType: { index: [7], value: [17] },
        isClickable: { index: [7] },
      },
      layout: {
        nodeIndex: [1, 2, 3, 4, 5, 6, 7, 8],
        bounds: [
          [0, 0, 800, 600],
          [0, 0, 800, 600],
          [0, 0, 800, 100], // div#list
          [0, 0, 800, 60],
          [0, 60, 800, 60], // spills out of the list: it scrolls
          [0, 100, 800, 40],
          [0, 100, 80, 30],
          [0, 150, 200, 30],
        ],
        styles: [[17, 17], [17, 17], [16, 16], [17, 17], [17, 17], [17, 17], [17, 17], [17, 17]],
      },
    }],
  };
}

function ax(
  nodeId: string,
  role: string,
  extra: Partial<AXNodeLike> = {},
): AXNodeLike {
  return { nodeId, ignored: false, role: { value: role }, ...extra };
}

Deno.test("joinChromeHierarchy() keeps meaningful AX nodes with DOM attributes, paths and boxes", () => {
  const axNodes: AXNodeLike[] = [
    ax("1", "RootWebArea", { childIds: ["2"], backendDOMNodeId: 1, name: { value: "Page" } }),
    ax("2", "none", { ignored: true, childIds: ["3", "6", "8"], backendDOMNodeId: 3 }),
    ax("3", "list", { parentId: "2", childIds: ["4", "5"], backendDOMNodeId: 4 }),
    ax("4", "listitem", { parentId: "3", childIds: ["4t"], backendDOMNodeId: 5 }),
    ax("4t", "InlineTextBox", { parentId: "4" }),
    ax("5", "listitem", { parentId: "3", backendDOMNodeId: 6 }),
    ax("6", "generic", { parentId: "2", childIds: ["7"], backendDOMNodeId: 7 }),
    ax("7", "button", {
      parentId: "6",
      backendDOMNodeId: 8,
      name: { value: "Go" },
      properties: [{ name: "focusable", value: { value: true } }, {
        name: "disabled",
        value: { value: false },
      }],
    }),
    ax("8", "textbox", { parentId: "2", childIds: ["9"], backendDOMNodeId: 9 }),
    ax("9", "generic", { parentId: "8", backendDOMNodeId: 999 }), // the input's UA editor
  ];
  const h = joinChromeHierarchy({ axNodes, snapshot: snapshot() }, PAGE);
  assertEquals(h.nodes.map((n) => n.role), [
    "RootWebArea",
    "list",
    "listitem",
    "listitem",
    "generic",
    "button",
    "textbox",
  ]);
  assertEquals(h.nodes[0]!.children, [1, 4, 6]); // the ignored body is lifted away
  const list = h.nodes[1]!;
  assertEquals([list.cssPath, list.scrollable, list.dom], ["#list", true, { id: "list" }]);
  assertEquals(h.nodes[2]!.cssPath, "#list > li:nth-of-type(1)");
  const button = h.nodes[5]!;
  assertEquals(button.cssPath, "body > x-card >>> button.primary");
  assertEquals(button.dom, { "data-testid": "go", class: "css-1a2b3c4 primary" });
  assertEquals([button.clickable, button.states, button.bounds], [true, ["focusable"], [
    0,
    100,
    80,
    30,
  ]]);
  assertEquals(h.nodes[6]!.children, undefined); // no UA filler child
  assertEquals(h.nodes[6]!.dom, { type: "password" });
});
