// chartproof viewer: every sample of every run, filters, search, sorting, a sample panel.
// Hand-written, no dependencies, inlined into the page. Model text is only ever put on the
// page with textContent (never innerHTML), so no reply can inject markup.
(function () {
  "use strict";
  var t0 = performance.now();
  var D = JSON.parse(document.getElementById("cp-data").textContent);
  var tParsed = performance.now();
  var S = D.strings, C = D.cols, G = D.gcols, N = C.i.length, RUNS = D.runs;
  // one row as an object, built when needed (drawn rows, the panel, the cards)
  function R(i) {
    return {idx: i, r: C.r[i], i: C.i[i], o: D.outcomes[C.o[i]], pr: C.pr[i], q: C.q[i],
            a: C.a[i], p: C.p[i], h: C.h[i], l: C.l[i], e: C.e[i], m: C.m[i]};
  }
  var ROW_H = 30, OVERSCAN = 12;
  // for tests and benchmarks: rows shown, total, when the page was ready, last filter time
  var api = {rows: function () { return nVisible; }, total: N, readyMs: 0, lastFilterAt: 0,
             startMs: t0, parseMs: tParsed - t0};

  function h(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function fmt(v) {
    if (v === null || v === undefined) return "n/a";
    if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toFixed(3);
    return String(v);
  }

  // ---------------------------------------------------------------- facets
  var facets = [];
  // `get` gives each row a small key (an interned string id, a run index, an outcome);
  // `name` turns a key into the value shown
  function addFacet(key, label, get, name) {
    var keys = [], index = new Map(), codes = new Int32Array(N), counts = [];
    for (var i = 0; i < N; i++) {
      var v = get(i);
      var c = index.get(v);
      if (c === undefined) { c = keys.length; index.set(v, c); keys.push(v); counts.push(0); }
      codes[i] = c; counts[c]++;
    }
    var values = keys.map(name);
    if (values.length < 2 && key !== "outcome") return;
    var order = values.map(function (_, j) { return j; });
    order.sort(function (x, y) { return String(values[x]).localeCompare(String(values[y]), undefined, {numeric: true}); });
    facets.push({key: key, label: label, values: values, codes: codes, counts: counts, order: order, want: -1});
  }
  function str(v) { return v < 0 ? "(none)" : S[v]; }
  if (RUNS.length > 1) addFacet("run", "run", function (i) { return C.r[i]; }, function (v) { return RUNS[v].name; });
  addFacet("outcome", "outcome", function (i) { return C.o[i]; }, function (v) { return D.outcomes[v]; });
  addFacet("protocol", "protocol", function (i) { return C.pr[i]; }, str);
  D.groups.forEach(function (k) {
    var col = G[k];
    addFacet("g:" + k, D.labels[k], function (i) { return col[i]; }, str);
  });

  // the panel's data follows this script in the page: read on first use, once the parser
  // has reached its end (until then a row's detail is empty and nothing is cached)
  var DETAIL = null;
  function detailReady() {
    if (DETAIL === null && document.readyState !== "loading") {
      DETAIL = JSON.parse(document.getElementById("cp-detail").textContent);
    }
    return DETAIL !== null;
  }
  function detail(i) { return detailReady() ? DETAIL[i] : {s: {}}; }

  // ---------------------------------------------------------------- columns
  function group(r, k) {
    var col = G[k], v = col === undefined ? -1 : col[r.idx];
    return v < 0 ? "" : S[v];
  }
  var COLS = [];
  if (RUNS.length > 1) COLS.push({key: "run", label: "run", w: "minmax(90px,1fr)", get: function (r) { return RUNS[r.r].name; }});
  COLS.push(
    {key: "id", label: "sample", w: "minmax(150px,1.6fr)", get: function (r) { return r.i; }},
    {key: "outcome", label: "outcome", w: "80px", get: function (r) { return r.o; }, badge: true},
    {key: "chart", label: "chart type", w: "90px", get: function (r) { return group(r, "chart_type"); }},
    {key: "task", label: "task / question type", w: "110px", get: function (r) { return group(r, "task_type") || group(r, "question_type"); }},
    {key: "pert", label: "perturbation", w: "110px", get: function (r) { var p = group(r, "perturbation"); var l = group(r, "level"); return l ? p + " " + l : p; }},
    {key: "q", label: "question", w: "minmax(160px,3fr)", get: function (r) { return r.q || ""; }},
    {key: "gold", label: "gold", w: "minmax(60px,1fr)", get: function (r) { return r.a === undefined || r.a === null ? "" : r.a; }},
    {key: "pred", label: "answer", w: "minmax(60px,1fr)", get: function (r) { return r.p === undefined || r.p === null ? "" : r.p; }},
    {key: "score", label: "score", w: "58px", num: true, get: function (r) { return r.h === undefined || r.h === null ? -Infinity : r.h; }, show: function (r) { return fmt(r.h); }},
    {key: "lat", label: "latency s", w: "70px", num: true, get: function (r) { return r.l; }, show: function (r) { return r.l.toFixed(2); }}
  );
  var list = document.getElementById("cp-list");
  var colsCss = COLS.map(function (c) { return c.w; }).join(" ");
  document.documentElement.style.setProperty("--cols", colsCss);

  // ---------------------------------------------------------------- state
  var visible = new Int32Array(N), nVisible = 0, query = "", sortCol = null, sortDir = 1;
  var idSet = null, idSetLabel = "", hay = null, hayFull = false, selected = -1;
  for (var i0 = 0; i0 < N; i0++) visible[i0] = i0;
  nVisible = N;

  function haystack() {
    if (hay === null || !hayFull) {
      var t = performance.now();
      hayFull = detailReady();
      hay = new Array(N);
      for (var i = 0; i < N; i++) {
        hay[i] = [C.i[i], C.q[i] || "", C.a[i] || "", C.p[i] || "", detail(i).x || "", C.e[i] || ""].join("\u0001").toLowerCase();
      }
      api.indexMs = performance.now() - t;
    }
    return hay;
  }

  function applyFilters() {
    var active = facets.filter(function (f) { return f.want >= 0; });
    var terms = query.toLowerCase().split(/\s+/).filter(Boolean);
    var hs = terms.length ? haystack() : null;
    var out = new Int32Array(N), n = 0, nf = facets.length;
    // each option's count is the rows it would show with the other filters kept: a row
    // failing no facet counts for every facet, a row failing one counts for that one only
    var counts = facets.map(function (f) { return new Int32Array(f.values.length); });
    var activeAt = active.map(function (f) { return facets.indexOf(f); });
    outer: for (var i = 0; i < N; i++) {
      if (idSet !== null && !idSet.has(i)) continue;
      if (hs !== null) for (var t = 0; t < terms.length; t++) if (hs[i].indexOf(terms[t]) < 0) continue outer;
      var fails = 0, failed = -1;
      for (var j = 0; j < active.length; j++) {
        if (active[j].codes[i] !== active[j].want) { failed = j; if (++fails > 1) continue outer; }
      }
      if (fails === 1) { counts[activeAt[failed]][active[failed].codes[i]]++; continue; }
      for (var q = 0; q < nf; q++) counts[q][facets[q].codes[i]]++;
      out[n++] = i;
    }
    facets.forEach(function (f, q) {
      var options = f.select.options;
      for (var o = 1; o < options.length; o++) {
        var j = Number(options[o].value);
        options[o].textContent = f.values[j] + " (" + counts[q][j] + ")";
      }
    });
    if (sortCol !== null) {
      var col = sortCol, keys = new Array(N);
      for (var k = 0; k < n; k++) keys[out[k]] = col.get(R(out[k]));
      var arr = Array.prototype.slice.call(out.subarray(0, n));
      arr.sort(function (a, b) {
        var x = keys[a], y = keys[b];
        var c = col.num ? x - y : (x < y ? -1 : x > y ? 1 : 0);
        return c === 0 ? a - b : c * sortDir;
      });
      out.set(arr);
    }
    visible = out; nVisible = n;
    document.getElementById("cp-count").textContent = n + " of " + N + " samples";
    var setBar = document.getElementById("cp-set");
    setBar.hidden = idSet === null;
    if (idSet !== null) {
      setBar.textContent = "Showing only: " + idSetLabel + " ";
      var b = h("button", "cp-link", "show all");
      b.type = "button";
      b.addEventListener("click", function () { idSet = null; applyFilters(); });
      setBar.appendChild(b);
    }
    document.getElementById("cp-spacer").style.height = (n * ROW_H) + "px";
    list.scrollTop = 0;
    draw();
    api.lastFilterAt = performance.now();
  }

  // ---------------------------------------------------------------- list
  var rowsEl = document.getElementById("cp-rows"), pending = false;
  function draw() {
    pending = false;
    var top = list.scrollTop, height = list.clientHeight || 600;
    var start = Math.max(0, Math.floor(top / ROW_H) - OVERSCAN);
    var end = Math.min(nVisible, Math.ceil((top + height) / ROW_H) + OVERSCAN);
    rowsEl.style.transform = "translateY(" + (start * ROW_H) + "px)";
    var frag = document.createDocumentFragment();
    for (var k = start; k < end; k++) {
      var idx = visible[k], r = R(idx);
      var row = h("div", "cp-row" + (idx === selected ? " sel" : ""));
      row.dataset.row = String(idx);
      for (var c = 0; c < COLS.length; c++) {
        var col = COLS[c], text = col.show ? col.show(r) : col.get(r);
        var cell = h("span");
        if (col.badge) cell.appendChild(h("span", "cp-badge " + text, text));
        else { cell.textContent = text; cell.title = text; }
        row.appendChild(cell);
      }
      frag.appendChild(row);
    }
    rowsEl.replaceChildren(frag);
  }
  list.addEventListener("scroll", function () {
    if (!pending) { pending = true; requestAnimationFrame(draw); }
  });
  rowsEl.addEventListener("click", function (ev) {
    var row = ev.target.closest(".cp-row");
    if (row) openSample(Number(row.dataset.row));
  });

  var head = document.getElementById("cp-head");
  COLS.forEach(function (col) {
    var cell = h("span", null, col.label);
    cell.title = "sort by " + col.label;
    cell.addEventListener("click", function () {
      if (sortCol === col) sortDir = -sortDir; else { sortCol = col; sortDir = 1; }
      head.querySelectorAll("span").forEach(function (s) { s.textContent = s.textContent.replace(/ [▲▼]$/, ""); });
      cell.textContent = col.label + (sortDir > 0 ? " ▲" : " ▼");
      applyFilters();
    });
    head.appendChild(cell);
  });

  // ---------------------------------------------------------------- filter controls
  var bar = document.getElementById("cp-filters");
  facets.forEach(function (f) {
    var label = h("label", null, f.label + " ");
    var sel = h("select");
    sel.dataset.facet = f.key;
    var all = h("option", null, "all");
    all.value = "-1";
    sel.appendChild(all);
    f.order.forEach(function (j) {
      var o = h("option", null, f.values[j] + " (" + f.counts[j] + ")");
      o.value = String(j);
      sel.appendChild(o);
    });
    sel.addEventListener("change", function () { f.want = Number(sel.value); applyFilters(); });
    f.select = sel;
    label.appendChild(sel);
    bar.appendChild(label);
  });
  var search = document.getElementById("cp-search"), timer = 0;
  search.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { query = search.value; applyFilters(); }, 150);
  });
  document.getElementById("cp-clear").addEventListener("click", function () {
    facets.forEach(function (f) { f.want = -1; f.select.value = "-1"; });
    search.value = ""; query = ""; idSet = null;
    applyFilters();
  });

  // ---------------------------------------------------------------- sample panel
  var panel = document.getElementById("cp-panel");
  var bySample = null;
  function sameSample(id) {
    if (bySample === null) {
      bySample = new Map();
      for (var i = 0; i < N; i++) {
        var l = bySample.get(C.i[i]);
        if (l === undefined) bySample.set(C.i[i], l = []);
        l.push(i);
      }
    }
    return bySample.get(id) || [];
  }
  function section(title, node) {
    panel.appendChild(h("h3", null, title));
    if (node) panel.appendChild(node);
  }
  function pre(text) { return h("pre", null, text === null || text === undefined ? "" : text); }
  function kv(pairs) {
    var box = h("div", "cp-kv");
    pairs.forEach(function (p) { box.appendChild(h("span", null, p[0])); box.appendChild(h("span", null, fmt(p[1]))); });
    return box;
  }
  function grid(heads, rows) {
    var t = h("table", "grid text"), tr = h("tr");
    heads.forEach(function (x) { tr.appendChild(h("th", null, x)); });
    var thead = h("thead"); thead.appendChild(tr); t.appendChild(thead);
    var body = h("tbody");
    rows.forEach(function (row) {
      var r = h("tr");
      row.forEach(function (x) { r.appendChild(h("td", null, fmt(x))); });
      body.appendChild(r);
    });
    t.appendChild(body);
    return t;
  }
  function promptOf(r, d) {
    if (d.t !== undefined) return S[d.t].split(D.mark).join(r.q || "");
    return d.T;
  }
  function openSample(idx) {
    selected = idx;
    var r = R(idx), d = detail(idx);
    panel.replaceChildren();
    panel.hidden = false;
    var pbar = h("div", "cp-panelbar");
    [["◀ previous", -1], ["next ▶", 1]].forEach(function (b) {
      var btn = h("button", "cp-link", b[0]);
      btn.type = "button";
      btn.addEventListener("click", function () { step(b[1]); });
      pbar.appendChild(btn);
    });
    var close = h("button", "cp-link", "close ✕");
    close.type = "button"; close.id = "cp-close";
    close.addEventListener("click", closePanel);
    pbar.appendChild(close);
    pbar.appendChild(h("span", "cp-badge " + r.o, r.o));
    pbar.appendChild(h("span", "muted", RUNS[r.r].name));
    panel.appendChild(pbar);
    var title = h("h2", null, r.i);
    title.id = "cp-sample-id";
    panel.appendChild(title);
    (r.m || []).forEach(function (key) {
      var img = h("img");
      img.alt = "chart " + r.i;
      img.src = D.images[key];
      var box = h("div", "cp-image");
      box.appendChild(img);
      panel.appendChild(box);
    });
    section("Question", pre(r.q));
    if (d.c) {
      var ol = h("ol");
      ol.type = "A";
      d.c.forEach(function (c) { ol.appendChild(h("li", null, c)); });
      section("Options", ol);
    }
    var gold = pre(r.a); gold.id = "cp-gold";
    section("Gold", gold);
    section("Parsed answer", pre(r.p === null || r.p === undefined ? "(none)" : r.p));
    if (d.h2) section("Parsed explanation", pre(d.h2));
    section("Raw reply", pre(d.x));
    if (r.e) section("Error", pre(r.e));
    var prompt = promptOf(r, d);
    var pp = pre(prompt === undefined ? "(not recorded in this run's results)" : prompt);
    pp.id = "cp-prompt";
    section("Prompt" + (d.pi !== undefined ? " (" + S[d.pi] + ")" : ""), pp);
    if (d.st) {
      var premise = d.st.length && d.st[0].type === "premise";
      var rows = d.st.map(function (s) {
        if (premise) return [s.id, s.kind, s.statement, s.truth, s.prediction, s.correct ? "✓" : "✗", s.error || ""];
        if (s.type === "chain") return [s.id, s.task_type, s.question, s.gold, s.prediction, s.correct ? "✓" : "✗", s.error || ""];
        return [JSON.stringify(s), "", "", "", "", "", ""];
      });
      section(premise ? "Premises" : "Steps", grid(premise
        ? ["id", "kind", "statement", "truth", "verdict", "", "error"]
        : ["id", "task", "sub-question", "gold", "answer", "", "error"], rows));
    }
    section("Scores", grid(["metric", "value"], Object.keys(d.s).map(function (m) { return [D.metrics[Number(m)], d.s[m]]; })));
    section("Groups", kv(D.groups.filter(function (k) { return group(r, k) !== ""; }).map(function (k) { return [k, group(r, k)]; })));
    section("Usage", kv([["latency (s)", r.l], ["model calls", d.n], ["from cache", d.k], ["protocol", S[r.pr]], ["model", RUNS[r.r].model]]));
    var others = sameSample(r.i).filter(function (j) { return j !== idx; });
    if (others.length) {
      var ul = h("ul");
      others.forEach(function (j) {
        var o = R(j), li = h("li"), a = h("button", "cp-link", RUNS[o.r].name);
        a.type = "button";
        a.addEventListener("click", function () { openSample(j); });
        li.appendChild(a);
        li.appendChild(h("span", null, " " + o.o + " · answer: " + (o.p === null || o.p === undefined ? "(none)" : o.p)));
        ul.appendChild(li);
      });
      section("This sample in the other runs", ul);
    }
    panel.scrollTop = 0;
    draw();
  }
  function closePanel() { panel.hidden = true; selected = -1; draw(); }
  function step(d) {
    var pos = -1;
    for (var k = 0; k < nVisible; k++) if (visible[k] === selected) { pos = k; break; }
    var next = pos + d;
    if (next >= 0 && next < nVisible) openSample(visible[next]);
  }
  document.addEventListener("keydown", function (ev) {
    if (panel.hidden) return;
    if (ev.key === "Escape") closePanel();
    else if (ev.key === "ArrowDown" || ev.key === "j") { step(1); ev.preventDefault(); }
    else if (ev.key === "ArrowUp" || ev.key === "k") { step(-1); ev.preventDefault(); }
  });

  // ---------------------------------------------------------------- tabs
  var tabs = document.querySelectorAll(".cp-tabs button");
  function showTab(name) {
    tabs.forEach(function (b) { b.classList.toggle("on", b.dataset.tab === name); });
    document.querySelectorAll("main > section").forEach(function (s) { s.hidden = s.id !== "cp-tab-" + name; });
    if (name !== "samples") panel.hidden = true;
    if (name === "samples") draw();
  }
  tabs.forEach(function (b) { b.addEventListener("click", function () { showTab(b.dataset.tab); }); });

  // ---------------------------------------------------------------- comparison lists
  var CARDS = 120;
  document.querySelectorAll("[data-list]").forEach(function (box) {
    var spec = box.dataset.list.split(":"), cmp = D.compare[Number(spec[0])], pairs = cmp[spec[1]];
    var frag = document.createDocumentFragment();
    pairs.slice(0, CARDS).forEach(function (pair) {
      var a = R(pair[0]), b = R(pair[1]), card = h("div", "cp-card");
      if (a.m && a.m.length) { var img = h("img"); img.alt = "chart " + a.i; img.src = D.images[a.m[0]]; card.appendChild(img); }
      card.appendChild(h("div", "muted", a.i));
      card.appendChild(h("div", "q", a.q || ""));
      card.appendChild(h("div", null, "gold: " + (a.a || "")));
      card.appendChild(h("div", null, RUNS[cmp.a].name + ": " + (a.p === null || a.p === undefined ? "(none)" : a.p)));
      card.appendChild(h("div", null, RUNS[cmp.b].name + ": " + (b.p === null || b.p === undefined ? "(none)" : b.p)));
      card.addEventListener("click", function () { showTab("samples"); openSample(pair[0]); });
      frag.appendChild(card);
    });
    box.appendChild(frag);
    if (pairs.length) {
      var more = h("button", "cp-link", "show " + (pairs.length > CARDS ? "all " : "") + pairs.length + " in the sample list");
      more.type = "button";
      more.addEventListener("click", function () {
        idSet = new Set();
        pairs.forEach(function (p) { idSet.add(p[0]); idSet.add(p[1]); });
        idSetLabel = box.previousElementSibling ? box.previousElementSibling.textContent : "";
        showTab("samples");
        applyFilters();
      });
      box.parentNode.insertBefore(more, box.nextSibling);
    } else {
      box.appendChild(h("p", "note", "none"));
    }
  });

  applyFilters();
  api.readyMs = performance.now();
  // read the panel data and build the search index while the reader looks at the list
  var idle = window.requestIdleCallback || function (f) { return setTimeout(f, 200); };
  window.addEventListener("load", function () { idle(function () { haystack(); }); });
  window.cpViewer = api;
})();
