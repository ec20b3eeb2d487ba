(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("matrix-data").textContent);
  var SYMBOLS = { pass: "\u2713", fail: "\u2717", error: "!", unsupported: "\u2013", missing: "\u00b7", skipped: "\u25cb" };
  var detail = document.getElementById("detail");
  var body = document.getElementById("detail-body");
  var title = document.getElementById("detail-title");

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function pretty(value) {
    return value === null || value === undefined ? "\u2014" : JSON.stringify(value, null, 2);
  }

  function short(value) {
    var text = JSON.stringify(value);
    return text === undefined ? "undefined" : text.length > 240 ? text.slice(0, 239) + "\u2026" : text;
  }

  function diffItem(entry) {
    var li = el("li", entry.change);
    if (entry.change === "added") li.textContent = "+ " + entry.path + ": " + short(entry.actual) + " (unexpected)";
    else if (entry.change === "removed") li.textContent = "\u2212 " + entry.path + ": " + short(entry.expected) + " (missing)";
    else li.textContent = "~ " + entry.path + ": expected " + short(entry.expected) + ", got " + short(entry.actual);
    return li;
  }

  function renderResult(r) {
    var box = el("article", "result");
    box.setAttribute("data-scenario", r.scenario);
    box.setAttribute("data-verdict", r.verdict);
    var head = el("header");
    head.appendChild(el("span", "verdict v-" + r.verdict, (SYMBOLS[r.verdict] || "") + " " + r.verdict));
    head.appendChild(el("span", "sid", r.scenario));
    head.appendChild(el("span", "muted", r.title + " \u00b7 " + r.check));
    box.appendChild(head);
    var inner = el("div", "body");
    inner.appendChild(el("p", "reason", r.reason));
    if (r.cassette) inner.appendChild(el("p", "kv", "cassette: " + r.cassette));
    if (r.scenario_path) inner.appendChild(el("p", "kv", "scenario: " + r.scenario_path));
    if (r.examples !== null && r.examples !== undefined) inner.appendChild(el("p", "kv", "generated examples: " + r.examples));
    if (r.diff && r.diff.length) {
      var list = el("ul", "diff");
      list.setAttribute("aria-label", "differences");
      r.diff.forEach(function (d) { list.appendChild(diffItem(d)); });
      inner.appendChild(list);
    }
    if (r.expected !== null || r.actual !== null) {
      var sides = el("div", "sides");
      var left = el("div"), right = el("div");
      left.appendChild(el("h3", null, "expected"));
      left.appendChild(el("pre", "expected", pretty(r.expected)));
      right.appendChild(el("h3", null, "actual"));
      right.appendChild(el("pre", "actual", pretty(r.actual)));
      sides.appendChild(left);
      sides.appendChild(right);
      inner.appendChild(sides);
    }
    box.appendChild(inner);
    return box;
  }

  function openCell(key, opener) {
    var cell = data.cells[key];
    if (!cell) return;
    document.querySelectorAll("button.cell.selected").forEach(function (b) { b.classList.remove("selected"); });
    if (opener && opener.classList.contains("cell")) opener.classList.add("selected");
    title.textContent = cell.feature + " \u00b7 " + cell.provider + " \u2014 " + cell.verdict;
    body.replaceChildren();
    var results = cell.results.slice().sort(function (a, b) {
      var rank = { error: 0, fail: 1, missing: 2, skipped: 3, unsupported: 4, pass: 5 };
      return rank[a.verdict] - rank[b.verdict];
    });
    results.forEach(function (r) { body.appendChild(renderResult(r)); });
    detail.hidden = false;
    document.getElementById("detail-close").focus();
  }

  document.addEventListener("click", function (event) {
    var target = event.target.closest("[data-open]");
    if (target) openCell(target.getAttribute("data-open"), target);
  });
  document.getElementById("detail-close").addEventListener("click", function () { detail.hidden = true; });
  document.addEventListener("keydown", function (event) { if (event.key === "Escape") detail.hidden = true; });

  var providerFilter = document.getElementById("filter-provider");
  var statusFilter = document.getElementById("filter-status");
  var search = document.getElementById("search");

  function applyFilters() {
    var provider = providerFilter.value;
    var status = statusFilter.value;
    var query = search.value.trim().toLowerCase();
    document.querySelectorAll("#matrix [data-provider]").forEach(function (node) {
      node.hidden = provider !== "" && node.getAttribute("data-provider") !== provider;
    });
    var shown = 0;
    document.querySelectorAll("#matrix tbody").forEach(function (group) {
      var groupShown = 0;
      group.querySelectorAll("tr[data-feature]").forEach(function (row) {
        var match = false;
        row.querySelectorAll("td[data-provider]").forEach(function (td) {
          if (td.hidden) return;
          var okStatus = status === "" || td.getAttribute("data-verdict") === status;
          var okQuery = query === "" || td.getAttribute("data-scenarios").toLowerCase().indexOf(query) >= 0;
          var ok = okStatus && okQuery && td.getAttribute("data-verdict") !== "none";
          td.classList.toggle("dim", !ok);
          td.style.opacity = ok || (status === "" && query === "") ? "" : "0.25";
          if (ok) match = true;
        });
        row.hidden = !match;
        if (match) groupShown += 1;
      });
      group.hidden = groupShown === 0;
      shown += groupShown;
    });
    document.getElementById("no-match").hidden = shown !== 0;
  }

  [providerFilter, statusFilter].forEach(function (s) { s.addEventListener("change", applyFilters); });
  search.addEventListener("input", applyFilters);
})();
