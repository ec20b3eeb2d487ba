  // Shared by report.js and compare.js (included inside each one's function): DOM helpers that
  // write untrusted text with textContent only.
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
