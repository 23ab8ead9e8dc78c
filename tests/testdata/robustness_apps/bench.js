// The robustness benchmark's page-side part, shared by every app of this folder.
// 1. The log: every click, input, change and keydown is logged with the data-ident of the
//    element that received it (no selector of any engine reads data-ident). The log lives in
//    sessionStorage (it survives page loads) and is also sent to the server (/__log).
// 2. The mutation: window.__VARIANT__ (comma-separated flags, set by the server) changes the
//    app the same way whatever the app: ids, classes, copy, banner, reorder, layout, notestid.
//    It is applied at load and to every later DOM change (a MutationObserver).
(function () {
  "use strict";
  var flags = String(window.__VARIANT__ || "").split(",").filter(Boolean);
  var has = function (f) { return flags.indexOf(f) >= 0; };

  // ---- the log -----------------------------------------------------------------------
  function identOf(e) {
    // the innermost target, inside an open shadow root too (e.target is its host there)
    var t = e.composedPath ? e.composedPath()[0] || e.target : e.target;
    if (!(t instanceof Element)) return "?document";
    var el = t.closest("[data-ident]");
    return el ? el.getAttribute("data-ident") : "?" + t.tagName.toLowerCase();
  }
  function log(kind, e) {
    var entry = kind + ":" + identOf(e);
    try {
      var all = JSON.parse(sessionStorage.getItem("__acted") || "[]");
      all.push(entry);
      sessionStorage.setItem("__acted", JSON.stringify(all));
    } catch (_) { /* storage unavailable: the server copy still has it */ }
    try { navigator.sendBeacon("/__log", entry); } catch (_) { /* no beacon */ }
  }
  ["click", "input", "change", "keydown"].forEach(function (k) {
    document.addEventListener(k, function (e) { log(k, e); }, true);
  });
  // an open shadow root's events that do not leave it (change) are logged from the root itself
  window.__benchWatch = function (root) {
    ["click", "input", "change", "keydown"].forEach(function (k) {
      root.addEventListener(k, function (e) { if (!e.composed) log(k, e); }, true);
    });
  };
  window.__drainActed = function () {
    var all = JSON.parse(sessionStorage.getItem("__acted") || "[]");
    sessionStorage.setItem("__acted", "[]");
    return all;
  };

  if (flags.length === 0) return;

  // ---- the mutation --------------------------------------------------------------------
  var salt = Math.random().toString(36).slice(2, 7);
  function hash(s) {
    var h = 2166136261;
    for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
    return (h >>> 0).toString(36);
  }
  var COPY = [
    ["Add to cart", "Put in basket"], ["Sign in", "Log in"], ["Sign out", "Log out"],
    ["Place order", "Confirm purchase"], ["Checkout", "Proceed to payment"], ["Cart", "Basket"],
    ["Save changes", "Apply"], ["Save", "Apply"], ["Email", "E-mail address"],
    ["Password", "Passphrase"], ["Shipping", "Delivery"], ["Terms", "Conditions"],
    ["I accept the terms", "I agree to the conditions"], ["Note", "Comment"], ["Notes", "Memos"],
    ["Profile", "Account"], ["Notifications", "Alerts"], ["Users", "Members"],
    ["Display name", "Public name"], ["Time zone", "Region"], ["Weekly digest", "Weekly summary"],
    ["Active", "Enabled"], ["Remove", "Revoke"], ["Role", "Permission"], ["Invite", "Add member"],
    ["New task", "What needs doing"], ["Delete", "Discard"], ["Done", "Completed"],
    ["Priority", "Urgency"], ["All", "Everything"], ["Open", "Pending"], ["Add", "Create"],
    ["Tasks", "To-dos"], ["Product", "Item"], ["Quantity", "Amount"], ["Continue", "Next"],
    ["Order", "Purchase"], ["Search", "Find"], ["Filter", "Narrow"], ["Settings", "Preferences"],
  ];
  COPY.sort(function (a, b) { return b[0].length - a[0].length; });
  var copyRe = new RegExp("\\b(" + COPY.map(function (p) {
    return p[0].replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }).join("|") + ")\\b", "g");
  var copyMap = {};
  COPY.forEach(function (p) { copyMap[p[0]] = p[1]; });
  var copied = new WeakMap();
  function recopy(s) { return s.replace(copyRe, function (m) { return copyMap[m]; }); }

  var idMap = {};
  function newId(id) {
    if (!idMap[id]) idMap[id] = "r" + hash(id + salt) + "-" + salt;
    return idMap[id];
  }
  function isMapped(id) { return /^r[0-9a-z]+-[0-9a-z]{1,5}$/.test(id) && id.slice(-salt.length) === salt; }
  function newClass(c) { return "c" + hash(c + "build-7").slice(0, 6); }
  function isChurned(c) { return /^c[0-9a-z]{1,6}$/.test(c) && c.length <= 7 && churned[c]; }
  var churned = {};

  function mutateElement(el) {
    if (has("ids")) {
      if (el.id && !isMapped(el.id)) el.id = newId(el.id);
      if (el.tagName === "LABEL" && el.htmlFor && !isMapped(el.htmlFor)) el.htmlFor = newId(el.htmlFor);
      ["aria-labelledby", "aria-describedby", "aria-controls"].forEach(function (a) {
        var v = el.getAttribute(a);
        if (v && !v.split(/\s+/).every(isMapped)) {
          el.setAttribute(a, v.split(/\s+/).map(function (x) { return isMapped(x) ? x : newId(x); }).join(" "));
        }
      });
    }
    if (has("classes") && el.classList && el.classList.length) {
      var cs = Array.prototype.slice.call(el.classList);
      if (!cs.every(isChurned)) {
        el.className = cs.map(function (c) {
          if (isChurned(c)) return c;
          var n = newClass(c); churned[n] = true; return n;
        }).join(" ");
      }
    }
    if (has("notestid") && el.hasAttribute("data-testid")) el.removeAttribute("data-testid");
    if (has("copy")) {
      ["aria-label", "placeholder", "title"].forEach(function (a) {
        var v = el.getAttribute(a);
        if (v && copied.get(el) !== a + v) {
          var nv = recopy(v);
          el.setAttribute(a, nv);
          copied.set(el, a + nv);
        }
      });
    }
  }
  function mutateText(node) {
    if (!has("copy")) return;
    var p = node.parentElement;
    if (!p || p.tagName === "SCRIPT" || p.tagName === "STYLE") return;
    if (copied.get(node) === node.data) return;
    var nv = recopy(node.data);
    if (nv !== node.data) node.data = nv;
    copied.set(node, nv);
  }
  function reorder(list) {
    var kids = Array.prototype.slice.call(list.children);
    if (kids.length < 2) return;
    var key = function (k) {
      return hash((k.getAttribute("data-ident") || k.getAttribute("data-key") || k.textContent) + "order");
    };
    var sorted = kids.slice().sort(function (a, b) { return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0; });
    if (sorted.every(function (k, i) { return k === kids[i]; })) return;
    sorted.forEach(function (k) { list.appendChild(k); });
  }
  function walk(root) {
    if (root.nodeType === 3) { mutateText(root); return; }
    if (root.nodeType !== 1) return;
    var it = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    var n = root;
    while (n) {
      if (n.nodeType === 1) mutateElement(n); else mutateText(n);
      if (n.nodeType === 1 && n.shadowRoot) enterShadow(n.shadowRoot);
      n = it.nextNode();
    }
    if (has("reorder")) {
      var lists = root.querySelectorAll("ul, ol, tbody, [data-reorder]");
      for (var i = 0; i < lists.length; i++) reorder(lists[i]);
      if (root.matches && root.matches("ul, ol, tbody, [data-reorder]")) reorder(root);
    }
  }
  function churnSheets(root) {
    if (!has("classes")) return;
    var sheets = root.querySelectorAll("style:not([data-bench])");
    for (var i = 0; i < sheets.length; i++) {
      var s = sheets[i];
      if (s.getAttribute("data-churned")) continue;
      s.textContent = s.textContent.replace(/\.([A-Za-z_][\w-]*)(?=[^{}]*\{)/g, function (_, c) {
        var n = newClass(c); churned[n] = true; return "." + n;
      });
      s.setAttribute("data-churned", "1");
    }
  }
  // an open shadow root (a web component) is mutated as the document is, and watched the same way
  var shadows = new WeakSet();
  function enterShadow(sr) {
    if (shadows.has(sr)) return;
    shadows.add(sr);
    churnSheets(sr);
    Array.prototype.slice.call(sr.childNodes).forEach(walk);
    observer.observe(sr, OBSERVED);
  }
  function styles() {
    churnSheets(document);
    if (has("layout")) {
      var st = document.createElement("style");
      st.setAttribute("data-bench", "1");
      st.textContent = "body{font-size:18px;line-height:1.8;padding:30px 6% 30px 22%}" +
        "main,section,form,fieldset{display:flex;flex-direction:column;gap:14px}" +
        "nav,header{display:flex;flex-direction:row-reverse;justify-content:flex-end;gap:24px}" +
        "button,select,input,textarea{margin:6px 0;padding:10px 16px;font-size:17px}" +
        "td,th{padding:14px 22px}label{display:block;margin:10px 0}";
      document.head.appendChild(st);
    }
  }
  function banner() {
    if (!has("banner") || document.querySelector("[data-bench-banner]")) return;
    var b = document.createElement("div");
    b.setAttribute("data-bench-banner", "1");
    b.setAttribute("role", "region");
    b.setAttribute("aria-label", "Announcement");
    b.style.cssText = "padding:28px 20px;background:#fff4c2;border-bottom:2px solid #e0c060;font-size:17px";
    b.innerHTML = '<strong>We updated our privacy policy.</strong> <span>Cookies help us improve this site.</span> ' +
      '<button type="button" data-ident="banner-accept">Accept cookies</button> ' +
      '<button type="button" data-ident="banner-dismiss">Dismiss</button>';
    document.body.insertBefore(b, document.body.firstChild);
  }
  var OBSERVED = {
    childList: true, subtree: true, characterData: true, attributes: true,
    attributeFilter: ["id", "class", "for", "data-testid", "aria-label", "placeholder", "title"],
  };
  var busy = false;
  var observer = new MutationObserver(function (records) {
    if (busy) return;
    busy = true;
    try {
      records.forEach(function (r) {
        if (r.type === "childList") {
          r.addedNodes.forEach(walk);
          if (has("reorder") && r.target.nodeType === 1 && r.target.matches("ul, ol, tbody, [data-reorder]")) reorder(r.target);
        } else if (r.type === "characterData") mutateText(r.target);
        else if (r.target.nodeType === 1) mutateElement(r.target);
      });
      observer.takeRecords();
    } finally { busy = false; }
  });
  function start() {
    busy = true;
    styles();
    banner();
    walk(document.body);
    busy = false;
    observer.observe(document.body, OBSERVED);
  }
  // after the app's own script has built the page (it runs at the end of <body>)
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
