(function () {
  "use strict";
  // All data is untrusted text: it is read with JSON.parse and written with textContent only.
  var data = JSON.parse(document.getElementById("matrix-data").textContent);
  var SYMBOLS = data.symbols;
  var detail = document.getElementById("detail");
  var body = document.getElementById("detail-body");
  var title = document.getElementById("detail-title");
  var closeButton = document.getElementById("detail-close");
  var opener = null;

{% include "dom.js" %}

  function side(name, value) {
    var box = el("div", "side");
    box.appendChild(el("h4", null, name));
    var pre = el("pre", name, pretty(value));
    pre.tabIndex = 0;
    pre.setAttribute("aria-label", name + " normalized form");
    box.appendChild(pre);
    return box;
  }

  function resultArticle(attr, id, verdict) {
    var box = el("article", "result");
    box.setAttribute(attr, id);
    box.setAttribute("data-verdict", verdict);
    var head = el("header");
    head.appendChild(el("span", "verdict v-" + verdict, (SYMBOLS[verdict] || "") + " " + verdict));
    head.appendChild(el("h3", "sid", id));
    box.appendChild(head);
    return box;
  }

  function renderResult(r) {
    var box = resultArticle("data-scenario", r.scenario, r.verdict);
    box.querySelector("header").appendChild(el("span", "check", r.check));
    var inner = resultBody(r, [["cassette", r.cassette], ["evidence", r.evidence], ["scenario", r.scenario_path], ["examples", r.examples]]);
    if (r.evidence_class) inner.appendChild(renderEvidence(r));
    if (hasForms(r)) {
      var sides = el("div", "sides");
      sides.appendChild(side("expected", r.expected));
      sides.appendChild(side("actual", r.actual));
      inner.appendChild(sides);
    }
    if (r.traceback) {
      inner.appendChild(el("h4", null, "traceback of the runtime"));
      var tb = el("pre", "traceback", r.traceback);
      tb.tabIndex = 0;
      inner.appendChild(tb);
    }
    box.appendChild(inner);
    return box;
  }

  // The evidence under a result that is not green: its class, where its wire and its rule come from.
  function renderEvidence(r) {
    var list = el("dl", "facts evidence");
    [["class", r.evidence_class], ["wire source", r.wire_source || "none replayed"], ["rule source", r.rule_source || "no source"]].forEach(function (kv) {
      list.appendChild(el("dt", null, kv[0]));
      var dd = el("dd", kv[0] === "class" ? "class-" + kv[1] : null);
      dd.appendChild(linked(kv[1]));
      list.appendChild(dd);
    });
    return list;
  }

  function renderReal(real) {
    var box = el("p", "real-backing muted");
    if (!real) {
      box.appendChild(document.createTextNode("Backed by authored cassettes alone (no public real recording)."));
      return box;
    }
    box.appendChild(document.createTextNode(
      "\u25c6 Backed by " + real.recordings + " public real recording" + (real.recordings === 1 ? "" : "s") +
      " (" + real.calls + " calls, " + real.sdk_agree + " read as the official SDK reads them) from " +
      real.sources.join(", ") + ": "));
    real.files.forEach(function (url, i) {
      var a = el("a", null, url.split("/").pop());
      if (/^https:\/\//.test(url)) a.href = url;
      a.rel = "noopener";
      box.appendChild(a);
      if (i < real.files.length - 1) box.appendChild(document.createTextNode(", "));
    });
    if (real.recordings > real.files.length) box.appendChild(document.createTextNode(" \u2026"));
    return box;
  }

  function renderTraffic(traffic) {
    var box = el("section", "real-traffic");
    var counts = Object.keys(traffic.counts).filter(function (v) { return v !== "pass"; }).map(function (v) {
      return traffic.counts[v] + " " + v;
    });
    box.appendChild(el("h4", null, "Real traffic: " + traffic.calls + " call" + (traffic.calls === 1 ? "" : "s") +
      ", " + (traffic.counts.pass || 0) + " pass" + (counts.length ? ", " + counts.join(", ") : "")));
    traffic.failing.forEach(function (call) {
      var item = resultArticle("data-call", call.call, call.verdict);
      item.classList.add("real-call");
      var src = el("p", "muted");
      src.appendChild(document.createTextNode("recorded by " + call.source_repo + " (" + call.license + "): "));
      var a = el("a", null, call.source.split("/").pop());
      if (/^https:\/\//.test(call.source)) a.href = call.source;
      a.rel = "noopener";
      src.appendChild(a);
      item.appendChild(src);
      item.appendChild(resultBody({reason: call.reason, diff: call.diff}, []));
      box.appendChild(item);
    });
    if (traffic.more) box.appendChild(el("p", "muted", "\u2026 and " + traffic.more + " more failing calls"));
    return box;
  }

  function openCell(key, from) {
    var cell = data.cells[key];
    if (!cell) return;
    document.querySelectorAll("button.cell.selected").forEach(function (b) { b.classList.remove("selected"); });
    var button = document.querySelector('button.cell[data-open="' + CSS.escape(key) + '"]');
    if (button) button.classList.add("selected");
    opener = from || button;
    title.replaceChildren();
    title.appendChild(el("code", null, cell.feature));
    title.appendChild(document.createTextNode(" on " + cell.provider + " "));
    title.appendChild(el("span", "verdict v-" + cell.verdict, (SYMBOLS[cell.verdict] || "") + " " + cell.verdict));
    if (Object.prototype.hasOwnProperty.call(data.regressed, key)) {
      title.appendChild(el("span", "badge", "\u25bc was " + data.regressed[key]));
    }
    body.replaceChildren();
    body.appendChild(renderReal(cell.real));
    if (cell.real && cell.real.traffic) body.appendChild(renderTraffic(cell.real.traffic));
    byVerdict(cell.results).forEach(function (r) { body.appendChild(renderResult(r)); });
    showDetail(key);
  }

  wireDetail(openCell);

  var providerFilter = document.getElementById("filter-provider");
  var statusFilter = document.getElementById("filter-status");
  var search = document.getElementById("search");

  function cellMatches(td, status, query) {
    if (td.getAttribute("data-verdict") === "none") return false;
    if (status === "regressed" && !td.hasAttribute("data-regressed")) return false;
    if (status !== "" && status !== "regressed" && td.getAttribute("data-verdict") !== status) return false;
    if (query === "") return true;
    return td.getAttribute("data-scenarios").toLowerCase().split(" ").some(function (id) {
      return id.indexOf(query) >= 0;
    });
  }

  function applyFilters() {
    var provider = providerFilter.value;
    var status = statusFilter.value;
    var query = search.value.trim().toLowerCase();
    var filtering = status !== "" || query !== "";
    filterMatrix(provider, function (row) {
      var match = false;
      row.querySelectorAll("td[data-provider]").forEach(function (td) {
        if (td.hidden) return;
        var ok = cellMatches(td, status, query);
        td.classList.toggle("dim", filtering && !ok);
        if (ok) match = true;
      });
      return match;
    });
  }

  [providerFilter, statusFilter].forEach(function (s) { s.addEventListener("change", applyFilters); });
  search.addEventListener("input", applyFilters);
  applyFilters();

  openFromHash(data.cells, openCell);  // index.html#openai%2Fstream_text
})();
