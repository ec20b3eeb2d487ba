(function () {
  "use strict";
  // All data is untrusted text: it is read with JSON.parse and written with textContent only.
  var data = JSON.parse(document.getElementById("compare-data").textContent);
  var SYMBOLS = data.symbols;
  var RUNTIMES = data.runtimes;
  var detail = document.getElementById("detail");
  var body = document.getElementById("detail-body");
  var title = document.getElementById("detail-title");
  var closeButton = document.getElementById("detail-close");
  var opener = null;

{% include "dom.js" %}

  function has(obj, key) { return Object.prototype.hasOwnProperty.call(obj, key); }

  function verdictChip(cls, verdict) {
    if (verdict === null || verdict === undefined) return el("span", cls + " v-none", "\u00d7 not run");
    return el("span", cls + " v-" + verdict, (SYMBOLS[verdict] || "") + " " + verdict);
  }

  function runtimeName(i) {
    var h = el("span", "rt");
    h.appendChild(el("span", "rt-no", i + 1));
    h.appendChild(document.createTextNode(" " + RUNTIMES[i].label));
    return h;
  }

  function side(name, value) {
    var box = el("div", "side");
    box.appendChild(el("h4", null, name));
    var pre = el("pre", name, pretty(value));
    pre.tabIndex = 0;
    box.appendChild(pre);
    return box;
  }

  function renderResult(r) {
    var box = el("article", "result" + (r.verdict === "pass" ? " compact" : ""));
    box.setAttribute("data-scenario", r.scenario);
    box.setAttribute("data-verdict", r.verdict);
    var head = el("header");
    head.appendChild(verdictChip("verdict", r.verdict));
    head.appendChild(el("h4", "sid", r.scenario));
    head.appendChild(el("span", "check", r.check));
    box.appendChild(head);
    if (r.verdict === "pass") return box;
    var inner = resultBody(r, [["cassette", r.cassette], ["scenario", r.scenario_path], ["examples", r.examples]]);
    if (hasForms(r)) {
      var forms = el("details", "forms");
      forms.appendChild(el("summary", null, "expected and actual normalized forms"));
      var sides = el("div", "sides");
      sides.appendChild(side("expected", r.expected));
      sides.appendChild(side("actual", r.actual));
      forms.appendChild(sides);
      inner.appendChild(forms);
    }
    box.appendChild(inner);
    return box;
  }

  function find(cell, key) {
    if (!cell) return null;
    for (var i = 0; i < cell.results.length; i++) {
      var r = cell.results[i];
      if (r.scenario === key[0] && r.check === key[1]) return r;
    }
    return null;
  }

  // scenario × runtime: which runtime gave which scenario what verdict
  function scenarioTable(spot) {
    var table = el("table", "side-by-side");
    table.setAttribute("aria-label", "verdict per scenario and runtime");
    var head = el("thead");
    var hr = el("tr");
    hr.appendChild(el("th", null, "scenario"));
    RUNTIMES.forEach(function (_, i) { var th = el("th"); th.appendChild(runtimeName(i)); hr.appendChild(th); });
    head.appendChild(hr);
    table.appendChild(head);
    var tb = el("tbody");
    spot.scenarios.forEach(function (key) {
      var tr = el("tr");
      tr.setAttribute("data-scenario", key[0]);
      var th = el("th");
      th.appendChild(el("code", null, key[0]));
      th.appendChild(el("span", "muted small", " " + key[1]));
      tr.appendChild(th);
      var seen = {};
      spot.cells.forEach(function (cell) {
        var r = find(cell, key);
        var td = el("td");
        if (r) { seen[r.verdict] = true; td.appendChild(verdictChip("v", r.verdict)); }
        else td.appendChild(el("span", "muted", cell ? "\u2014" : "\u00d7 not run"));
        tr.appendChild(td);
      });
      if (Object.keys(seen).length > 1) tr.className = "differs";
      tb.appendChild(tr);
    });
    table.appendChild(tb);
    return table;
  }

  function openSpot(key, from) {
    if (!has(data.spots, key)) return;
    var spot = data.spots[key];
    document.querySelectorAll("button.cell.selected").forEach(function (b) { b.classList.remove("selected"); });
    document.querySelectorAll('button.cell[data-open="' + CSS.escape(key) + '"]').forEach(function (b) { b.classList.add("selected"); });
    opener = from || document.querySelector('button.cell[data-open="' + CSS.escape(key) + '"]');
    title.replaceChildren();
    title.appendChild(el("code", null, spot.feature));
    title.appendChild(document.createTextNode(" on " + spot.provider + " "));
    if (spot.disagree) title.appendChild(el("span", "verdict disagree-chip", "\u2260 runtimes disagree"));
    else title.appendChild(el("span", "verdict v-pass", "= runtimes agree"));
    body.replaceChildren();
    body.appendChild(scenarioTable(spot));
    spot.cells.forEach(function (cell, i) {
      var block = el("section", "runtime-block");
      block.setAttribute("data-runtime", String(i));
      var h = el("h3");
      h.appendChild(runtimeName(i));
      h.appendChild(verdictChip("verdict", cell ? cell.verdict : null));
      block.appendChild(h);
      block.appendChild(el("p", "muted small", RUNTIMES[i].path));
      if (!cell) {
        block.appendChild(el("p", "muted", "This runtime's matrix has no cell for " + spot.feature + " on " + spot.provider + "."));
      } else {
        byVerdict(cell.results).forEach(function (r) { block.appendChild(renderResult(r)); });
      }
      body.appendChild(block);
    });
    showDetail(key);
  }

  wireDetail(openSpot);

  var providerFilter = document.getElementById("filter-provider");
  var statusFilter = document.getElementById("filter-status");
  var disagreeFilter = document.getElementById("filter-disagree");

  function applyFilters() {
    var provider = providerFilter.value;
    var status = statusFilter.value;
    var onlyDisagree = disagreeFilter.checked;
    var filtering = status !== "" || onlyDisagree;
    filterMatrix(provider, function (row) {
      // a spot (feature, provider) matches as a whole: all its runtimes' cells are lit or dimmed together
      var spots = {};
      row.querySelectorAll("td[data-provider]").forEach(function (td) {
        if (td.hidden) return;
        var p = td.getAttribute("data-provider");
        var s = spots[p] || (spots[p] = { tds: [], verdicts: [], disagree: td.hasAttribute("data-disagree") });
        s.tds.push(td);
        s.verdicts.push(td.getAttribute("data-verdict"));
      });
      var match = false;
      Object.keys(spots).forEach(function (p) {
        var s = spots[p];
        var ok = s.verdicts[0] !== "empty" &&
          (!onlyDisagree || s.disagree) &&
          (status === "" || s.verdicts.indexOf(status) >= 0);
        s.tds.forEach(function (td) { td.classList.toggle("dim", filtering && !ok); });
        if (ok) match = true;
      });
      return match;
    });
  }

  [providerFilter, statusFilter, disagreeFilter].forEach(function (s) { s.addEventListener("change", applyFilters); });
  applyFilters();

  openFromHash(data.spots, openSpot);  // compare.html#openai%2Fstream_text
})();
