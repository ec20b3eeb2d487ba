  // Shared by report.js and compare.js (included inside each one's function, after its `detail`,
  // `closeButton` and `opener`): DOM helpers that write untrusted text with textContent only, and
  // the detail panel both pages open from a [data-open] element.
  var RESULT_ORDER = { error: 0, fail: 1, policy: 2, missing: 3, skipped: 4, not_offered: 5, unsupported: 6, pass: 7 };

  function byVerdict(results) {
    return results.slice().sort(function (a, b) { return RESULT_ORDER[a.verdict] - RESULT_ORDER[b.verdict]; });
  }
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  // Text with its http(s) addresses as links (href set only for those; everything else as text).
  function linked(text) {
    var span = el("span");
    String(text).split(/(https?:\/\/[^\s"'<>)\]]+)/).forEach(function (part, i) {
      if (i % 2 === 1) {
        var a = el("a", null, part);
        a.setAttribute("href", part);
        a.setAttribute("rel", "noopener noreferrer");
        span.appendChild(a);
      } else if (part) {
        span.appendChild(document.createTextNode(part));
      }
    });
    return span;
  }

  function pretty(value) {
    return value === null || value === undefined ? "\u2014" : JSON.stringify(value, null, 2);
  }

  function short(value) {
    var text = JSON.stringify(value);
    if (text === undefined) return "undefined";
    return text.length > 300 ? text.slice(0, 299) + "\u2026" : text;
  }

  function diffItem(entry) {
    var li = el("li", "change-" + entry.change);
    li.appendChild(el("span", "kind", entry.change.replace("_", " ")));
    li.appendChild(el("code", "path", entry.path));
    var values = el("span", "values");
    if (entry.change === "added") values.appendChild(el("span", "absent", "(absent)"));
    else values.appendChild(el("del", "exp", short(entry.expected)));
    values.appendChild(el("span", "arrow", " \u2192 "));
    if (entry.change === "removed") values.appendChild(el("span", "absent", "(absent)"));
    else values.appendChild(el("ins", "act", short(entry.actual)));
    li.appendChild(values);
    return li;
  }

  // A result's title, reason, facts (name/value pairs, empty ones left out) and differences.
  function resultBody(r, facts) {
    var inner = el("div", "body");
    if (r.title) inner.appendChild(el("p", "rtitle", r.title));
    var reason = el("p", "reason");
    var label = r.verdict === "unsupported" ? "Declared unsupported: " : r.verdict === "not_offered" ? "Not offered: " : "Reason: ";
    reason.appendChild(el("b", null, label));
    reason.appendChild(document.createTextNode(r.reason || "\u2014"));
    if (r.fail_kind) reason.appendChild(el("span", "kind", " (" + r.fail_kind + ")"));
    inner.appendChild(reason);
    if (r.traceback) {
      var tb = el("details", "traceback");
      tb.appendChild(el("summary", null, "The runtime's traceback"));
      tb.appendChild(el("pre", null, r.traceback));
      inner.appendChild(tb);
    }
    var list = el("dl", "facts");
    facts.forEach(function (kv) {
      if (kv[1] === null || kv[1] === undefined) return;
      list.appendChild(el("dt", null, kv[0]));
      list.appendChild(el("dd", null, kv[1]));
    });
    if (list.childNodes.length) inner.appendChild(list);
    if (r.diff && r.diff.length) {
      inner.appendChild(el("h4", null, r.diff.length + (r.diff.length === 1 ? " difference" : " differences") + " (path: expected \u2192 actual)"));
      var diff = el("ul", "diff");
      diff.setAttribute("aria-label", "differences");
      r.diff.forEach(function (d) { diff.appendChild(diffItem(d)); });
      inner.appendChild(diff);
    }
    return inner;
  }

  function hasForms(r) {
    return (r.expected !== null && r.expected !== undefined) || (r.actual !== null && r.actual !== undefined);
  }

  function showDetail(key) {
    detail.hidden = false;
    detail.scrollTop = 0;
    closeButton.focus();
    if (history.replaceState) history.replaceState(null, "", "#" + encodeURIComponent(key));
  }

  function closeDetail() {
    if (detail.hidden) return;
    detail.hidden = true;
    document.querySelectorAll("button.cell.selected").forEach(function (b) { b.classList.remove("selected"); });
    if (history.replaceState) history.replaceState(null, "", location.pathname + location.search);
    if (opener) opener.focus();
  }

  // `open(key, from)` for a click on any [data-open] element; the close button and Escape close.
  function wireDetail(open) {
    document.addEventListener("click", function (event) {
      var target = event.target.closest("[data-open]");
      if (target) open(target.getAttribute("data-open"), target);
    });
    closeButton.addEventListener("click", closeDetail);
    document.addEventListener("keydown", function (event) { if (event.key === "Escape") closeDetail(); });
  }

  // Shows only `provider`'s columns (every one for ""), and the rows `rowMatches(row)` keeps (it
  // dims the row's cells itself); empty groups are hidden, and "no match" shown when none is left.
  function filterMatrix(provider, rowMatches) {
    document.querySelectorAll("#matrix [data-provider]").forEach(function (node) {
      node.hidden = provider !== "" && node.getAttribute("data-provider") !== provider;
    });
    var shown = 0;
    document.querySelectorAll("#matrix tbody").forEach(function (group) {
      var groupShown = 0;
      group.querySelectorAll("tr[data-feature]").forEach(function (row) {
        var match = rowMatches(row);
        row.hidden = !match;
        if (match) groupShown += 1;
      });
      group.hidden = groupShown === 0;
      shown += groupShown;
    });
    document.getElementById("no-match").hidden = shown !== 0;
  }

  // `#<key>` opens that cell of `table`, on load and when the address changes: links to a cell
  // can be shared.
  function openFromHash(table, open) {
    function fromHash() {
      var key = "";
      try { key = decodeURIComponent(location.hash.slice(1)); } catch (e) { return; }
      if (Object.prototype.hasOwnProperty.call(table, key)) open(key, null);
    }
    window.addEventListener("hashchange", fromHash);
    fromHash();
  }
