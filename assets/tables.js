// releasegate report site: the case table of a snapshot, the compare page
// and the cases matrix. A view's filter, search, sort and page live in the
// query string, so a link shares the view, Back restores it and a live
// reload keeps it. Case data for the compare page, the matrix and large
// tables comes from scripts the page loads (data/*.js assign members of
// releasegateData): a page opened from disk may not fetch files.
(function () {
  "use strict";

  // Rows drawn at a time: the first rows of a 10,000-case table are
  // ready at once, and the rest are a page away.
  var PAGE_SIZE = 100;
  // Cases listed under one heading of the compare page before "and N more".
  var LIST_LIMIT = 500;

  function data() { return self.releasegateData || {}; }

  // Where the result of case i in a snapshot and the case's history
  // live: pages of their own, or, when data/cases.js says so, grouped
  // pages of consecutive cases with an anchor per case. A case's page
  // and anchor are named as data/cases.js gives them ("pages"), or by its
  // id when it gives none: they are never worked out here.
  function groupPage(i, per) {
    var n = String(Math.floor(i / per) + 1);
    while (n.length < 4) n = "0" + n;
    return "p" + n + ".html";
  }
  function pageOf(cases, i) { return cases.pages ? cases.pages[i] : cases.ids[i]; }

  // A case id longer than this many characters wraps in its cell, in a
  // column of its own width (site.longIDLength).
  var LONG_ID = 24;
  function idCell(id, link) {
    var attrs = { scope: "row" };
    if (Array.from(id).length > LONG_ID) attrs["class"] = "long-id";
    return el("th", attrs, [link]);
  }
  function resultHref(root, cases, label, i) {
    var name = pageOf(cases, i), per = cases.resultsPerPage;
    return root + "snapshots/" + label + "/" + (per ? groupPage(i, per) + "#" + name : name + ".html");
  }
  function historyHref(root, cases, i) {
    var name = pageOf(cases, i), per = cases.historiesPerPage;
    return root + "cases/" + (per ? groupPage(i, per) + "#" + name : name + ".html");
  }

  // ---- The view in the URL ----

  // The view lives in the fragment, as "#result=fail&sort=latency-desc":
  // a static host ignores a query but every host and file:// keep a
  // fragment, and changing it reloads nothing. A fragment without "=" is
  // an ordinary anchor (the skip link's #main) and is left alone.
  function isState(hash) { return hash.indexOf("=") !== -1; }

  function readState(names) {
    var hash = location.hash.replace(/^#/, "");
    var params = new URLSearchParams(isState(hash) ? hash : "");
    var state = {};
    names.forEach(function (n) { state[n] = params.get(n) || ""; });
    return state;
  }

  // writeState replaces the current history entry: typing a search should
  // not fill the history, and Back from a drilldown returns to this URL.
  function writeState(state) {
    var params = new URLSearchParams();
    Object.keys(state).forEach(function (k) {
      var v = state[k];
      if (!(v === "" || v === null || v === undefined || (k === "page" && String(v) === "1"))) params.set(k, v);
    });
    var q = params.toString();
    var hash = location.hash.replace(/^#/, "");
    if (q === "" && !isState(hash)) return; // keep an ordinary anchor
    if (q === hash) return;
    var url = location.pathname + location.search + (q ? "#" + q : "");
    try { history.replaceState(history.state, "", url); } catch (e) { /* some file:// setups refuse */ }
  }

  // A copy-link button copies the address of the view shown.
  function copyLink(form, statusName) {
    var button = form.querySelector("button.copy-link");
    var status = form.elements.namedItem(statusName);
    if (!button) return;
    button.addEventListener("click", function () {
      var url = location.href;
      function done(ok) {
        if (status) status.value = ok ? "Link copied." : "Copy this link: " + url;
      }
      function fallback() {
        var input = document.createElement("input");
        input.value = url;
        input.readOnly = true;
        input.setAttribute("aria-hidden", "true");
        input.style.position = "fixed";
        input.style.opacity = "0";
        document.body.appendChild(input);
        input.select();
        var ok = false;
        try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
        input.remove();
        done(ok);
      }
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(url).then(function () { done(true); }, fallback);
      } else {
        fallback();
      }
    });
  }

  // loadScripts loads each src in order, then calls done(ok).
  function loadScripts(srcs, done) {
    var i = 0;
    function next() {
      if (i >= srcs.length) { done(true); return; }
      var s = document.createElement("script");
      s.src = srcs[i++];
      s.onload = next;
      s.onerror = function () { done(false); };
      document.head.appendChild(s);
    }
    next();
  }

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) {
      e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return e;
  }

  function badge(passed) {
    return el("span", { "class": "badge badge-" + (passed ? "pass" : "fail") }, [
      el("span", { "class": "badge-icon", "aria-hidden": "true" }, [passed ? "✓" : "✕"]),
      " " + (passed ? "pass" : "fail")
    ]);
  }

  function decisionBadge(d) {
    var cls = { PASS: "pass", REVIEW: "review", BLOCK: "block" }[d] || "block";
    var icon = { PASS: "✓", REVIEW: "!", BLOCK: "✕" }[d] || "✕";
    return el("span", { "class": "badge badge-" + cls }, [el("span", { "class": "badge-icon", "aria-hidden": "true" }, [icon]), " " + d]);
  }

  // pager draws Previous / Next around the page number after anchor.
  function pager(anchor, label, onPage) {
    var nav = el("nav", { "class": "pager", "aria-label": label, hidden: "" });
    var prev = el("button", { type: "button" }, ["← Previous"]);
    var next = el("button", { type: "button" }, ["Next →"]);
    var where = el("span", { "class": "pager-where" });
    nav.appendChild(prev); nav.appendChild(where); nav.appendChild(next);
    anchor.parentNode.insertBefore(nav, anchor.nextSibling);
    var current = 1;
    prev.addEventListener("click", function () { onPage(current - 1); });
    next.addEventListener("click", function () { onPage(current + 1); });
    return function update(page, pages) {
      current = page;
      nav.hidden = pages <= 1;
      prev.disabled = page <= 1;
      next.disabled = page >= pages;
      where.textContent = "Page " + page + " of " + pages;
    };
  }

  function clampPage(page, pages) {
    var p = parseInt(page, 10);
    if (isNaN(p) || p < 1) p = 1;
    return Math.min(p, Math.max(1, pages));
  }

  // ---- The case table of a snapshot ----

  var SEVERITIES = ["critical", "major", "minor"];

  function numberOrNull(raw) {
    if (raw === null || raw === undefined || raw === "") return null;
    var n = parseFloat(raw);
    return isNaN(n) ? null : n;
  }

  // A record is one case of the table: what the filter and the sort read,
  // and its row, made when first shown.
  function recordFromRow(tr, position, columns) {
    var keys = columns.map(function (col, i) {
      var cell = tr.cells[i];
      if (!cell) return col.numeric ? null : "";
      var raw = cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent.trim();
      return col.numeric ? numberOrNull(raw) : raw.toLowerCase();
    });
    return {
      position: position,
      result: tr.getAttribute("data-result"),
      severity: tr.getAttribute("data-severity"),
      flaky: tr.getAttribute("data-flaky") || "",
      text: (tr.textContent + " " + (tr.getAttribute("data-search") || "")).toLowerCase(),
      keys: keys,
      row: tr
    };
  }

  function cell(text, attrs, over, overText) {
    var td = el("td", attrs, [text]);
    if (over) {
      td.className += " over";
      td.appendChild(document.createTextNode(" "));
      td.appendChild(el("span", { "aria-hidden": "true" }, ["▲"]));
      td.appendChild(el("span", { "class": "visually-hidden" }, [" (" + overText + ")"]));
    }
    return td;
  }

  // trialStrip draws a case's trials as the page's own table does: a
  // mark per trial, the count of passed trials and, when some but not
  // all passed, the flaky badge. trials holds a string per trial: ""
  // passed, "-" no output, else the trial's failure codes.
  function trialStrip(trials) {
    var passed = 0, words = [], marks = [];
    trials.forEach(function (codes, i) {
      var t = i + 1, cls = "pass", icon = "✓", word = "trial " + t + ": pass";
      if (codes === "-") {
        cls = "missing"; icon = "–"; word = "trial " + t + ": no output";
      } else if (codes !== "") {
        cls = "fail"; icon = "✕"; word = "trial " + t + ": fail (" + codes + ")";
      } else {
        passed++;
      }
      words.push(word);
      marks.push(el("span", { "class": "trial-mark trial-" + cls }, [icon]));
    });
    var k = trials.length;
    var flaky = passed > 0 && passed < k;
    var nodes = [
      el("span", { "class": "trial-strip", role: "img", "aria-label": passed + " of " + k + " trials passed: " + words.join("; ") }, marks),
      " ",
      el("span", { "class": "trial-count" }, [passed + "/" + k])
    ];
    if (flaky) {
      nodes.push(" ", el("span", { "class": "badge badge-flaky" }, [
        el("span", { "class": "badge-icon", "aria-hidden": "true" }, ["~"]), " flaky"
      ]));
    }
    return { passed: passed, flaky: flaky, nodes: nodes, text: marks.map(function (m) { return m.textContent; }).join("") + " " + passed + "/" + k + (flaky ? " ~ flaky" : "") };
  }

  // fieldReader reads the rows of data/snapshots/<label>.js by name:
  // table.fields names each row's values in order (site.CaseFields), so
  // no position is written here. A value a row leaves off reads as null;
  // a name the file does not list is a mistake and throws.
  function fieldReader(fields) {
    var at = {};
    fields.forEach(function (name, i) { at[name] = i; });
    return function (row, name) {
      if (!at.hasOwnProperty(name)) throw new Error("the case data has no field " + name);
      var v = row[at[name]];
      return v === undefined ? null : v;
    };
  }

  // recordsFromData makes every record of a snapshot from data/cases.js
  // and data/snapshots/<label>.js, failing cases first as the page does.
  // Its row is the one the page writes for the same case, trial strip
  // included, so a table looks the same however many rows it has.
  function recordsFromData(cases, table, root, label, columns) {
    var get = fieldReader(table.fields), rows = table.rows;
    var failing = [], passing = [];
    rows.forEach(function (r, i) { (get(r, "passed") ? passing : failing).push(i); });
    var withTrials = columns.some(function (col) { return col.key === "trials"; });
    return failing.concat(passing).map(function (i, position) {
      var r = rows[i], id = cases.ids[i], title = cases.titles[i];
      var rank = +cases.severity.charAt(i), severity = SEVERITIES[rank];
      var passed = !!get(r, "passed"), codes = get(r, "codes"), search = get(r, "search");
      var latency = get(r, "latency"), latencySort = get(r, "latencySort");
      var cost = get(r, "cost"), costSort = get(r, "costSort");
      var trials = get(r, "trials");
      var strip = withTrials && trials ? trialStrip(trials) : null;
      var values = {
        "case": id.toLowerCase(), title: title.toLowerCase(), severity: rank, result: passed ? "pass" : "fail",
        trials: strip ? strip.passed : null, codes: codes.toLowerCase(), latency: numberOrNull(latencySort), cost: numberOrNull(costSort)
      };
      var rec = {
        position: position,
        result: passed ? "pass" : "fail",
        severity: severity,
        flaky: strip ? String(strip.flaky) : "",
        text: [id, title, severity, passed ? "pass" : "fail", strip ? strip.text : "", codes, latency, cost, search].join(" ").toLowerCase(),
        keys: columns.map(function (col) { return values.hasOwnProperty(col.key) ? values[col.key] : null; }),
        row: null
      };
      rec.make = function () {
        var attrs = { "data-result": rec.result, "data-severity": severity };
        if (search) attrs["data-search"] = search;
        if (strip) attrs["data-flaky"] = rec.flaky;
        var tr = el("tr", attrs);
        var th = idCell(id, el("a", { href: resultHref(root, cases, label, i) }, [id]));
        tr.appendChild(th);
        tr.appendChild(el("td", null, [title]));
        tr.appendChild(el("td", { "data-value": String(rank), "data-label": "Severity" }, [severity]));
        tr.appendChild(el("td", { "data-label": "Result" }, [badge(passed)]));
        if (withTrials) {
          tr.appendChild(strip ? el("td", { "class": "trials", "data-label": "Trials", "data-value": String(strip.passed) }, strip.nodes) : el("td"));
        }
        tr.appendChild(el("td", codes ? { "data-label": "What went wrong" } : null, [codes]));
        tr.appendChild(cell(latency, { "class": "num", "data-label": "Latency", "data-value": latencySort === null ? "" : String(latencySort) }, get(r, "latencyOver"), "over the p95 limit"));
        tr.appendChild(cell(cost, { "class": "num", "data-label": "Cost", "data-value": costSort === null ? "" : String(costSort) }, get(r, "costOver"), "over the limit on the average"));
        return tr;
      };
      return rec;
    });
  }

  function compareKeys(a, b) {
    if (a === b) return 0;
    if (a === null) return 1;
    if (b === null) return -1;
    return a < b ? -1 : 1;
  }

  function caseTable(form) {
    var table = document.getElementById(form.getAttribute("data-filter-for"));
    if (!table || !table.tBodies[0]) return;
    var body = table.tBodies[0];
    var headings = Array.prototype.slice.call(table.tHead.rows[0].cells);
    var columns = headings.map(function (th) {
      return { th: th, key: th.getAttribute("data-key") || "", numeric: th.getAttribute("data-sort") === "number" };
    });
    var total = +(table.getAttribute("data-total") || 0);
    var records = Array.prototype.slice.call(body.rows).map(function (tr, i) { return recordFromRow(tr, i, columns); });
    var complete = !table.hasAttribute("data-rows");
    var loadProblem = false;
    var count = form.elements.namedItem("count");
    var fields = ["q", "result", "severity", "flaky"];
    var state = readState(fields.concat(["sort", "page"]));

    var order = form.elements.namedItem("sort");
    function controlsFromState() {
      fields.forEach(function (f) {
        var c = form.elements.namedItem(f);
        if (!c) return;
        c.value = state[f];
        if (c.value !== state[f]) { c.value = ""; state[f] = ""; } // an unknown option
      });
      // The order list offers the usual sorts; a column heading may
      // choose another, which the list then does not name.
      if (order) {
        order.value = state.sort;
        if (order.value !== state.sort) order.value = "";
      }
    }

    function sortSpec() {
      var m = /^([a-z]+)-(asc|desc)$/.exec(state.sort);
      if (!m) return null;
      for (var i = 0; i < columns.length; i++) {
        if (columns[i].key === m[1] && columns[i].th.hasAttribute("data-sort")) return { index: i, ascending: m[2] === "asc" };
      }
      return null;
    }

    function apply(keepPage) {
      var q = state.q.trim().toLowerCase();
      var list = records.filter(function (r) {
        return (q === "" || r.text.indexOf(q) !== -1) &&
          (state.result === "" || r.result === state.result) &&
          (state.severity === "" || r.severity === state.severity) &&
          (!state.flaky || r.flaky === state.flaky);
      });
      var spec = sortSpec();
      columns.forEach(function (col, i) {
        if (spec && spec.index === i) col.th.setAttribute("aria-sort", spec.ascending ? "ascending" : "descending");
        else col.th.removeAttribute("aria-sort");
      });
      if (spec) {
        list.sort(function (x, y) {
          var a = x.keys[spec.index], b = y.keys[spec.index];
          var c = compareKeys(a, b);
          if (c !== 0 && a !== null && b !== null && !spec.ascending) c = -c;
          return c !== 0 ? c : x.position - y.position;
        });
      } else {
        list.sort(function (x, y) { return x.position - y.position; });
      }
      var pages = Math.max(1, Math.ceil(list.length / PAGE_SIZE));
      var page = keepPage ? clampPage(state.page, pages) : 1;
      state.page = String(page);
      var shown = list.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
      var fragment = document.createDocumentFragment();
      shown.forEach(function (r) {
        if (!r.row) r.row = r.make();
        fragment.appendChild(r.row);
      });
      body.replaceChildren(fragment);
      var of = complete ? records.length : total;
      var text = list.length + " of " + of + " cases shown";
      if (pages > 1) text += "; rows " + ((page - 1) * PAGE_SIZE + 1) + "–" + ((page - 1) * PAGE_SIZE + shown.length);
      if (!complete) text += loadProblem ? " (only the first " + records.length + " could be loaded)" : " (loading every case…)";
      if (count) count.value = text;
      updatePager(page, pages);
      writeState(state);
    }

    var updatePager = pager(table.parentNode, "Pages of the case table", function (page) {
      state.page = String(page);
      apply(true);
      table.parentNode.scrollIntoView({ block: "nearest" });
    });

    columns.forEach(function (col) {
      if (!col.th.hasAttribute("data-sort") || !col.key) return;
      var button = document.createElement("button");
      button.type = "button";
      while (col.th.firstChild) button.appendChild(col.th.firstChild);
      col.th.appendChild(button);
      button.addEventListener("click", function () {
        var ascending = col.th.getAttribute("aria-sort") !== "ascending";
        state.sort = col.key + "-" + (ascending ? "asc" : "desc");
        controlsFromState();
        apply(false);
      });
    });

    function fromControls(e) {
      fields.forEach(function (f) {
        var c = form.elements.namedItem(f);
        if (c) state[f] = c.value;
      });
      if (order && e && e.target === order) state.sort = order.value;
      apply(false);
    }
    form.addEventListener("input", fromControls);
    form.addEventListener("change", fromControls);
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    // Back and Forward between views of this page, and a page restored
    // from the back-forward cache, show the view their URL names.
    function fromURL() {
      state = readState(fields.concat(["sort", "page"]));
      controlsFromState();
      apply(true);
    }
    window.addEventListener("hashchange", fromURL);
    window.addEventListener("pageshow", function (e) { if (e.persisted) fromURL(); });
    copyLink(form, "count");
    form.hidden = false;
    controlsFromState();
    var opened = isState(location.hash);
    apply(true);
    // A shared view is the table: show it, unless the reader has
    // scrolled already (Back restores where they were).
    if (opened && window.scrollY === 0) {
      var section = form.closest("section") || table;
      section.scrollIntoView();
    }

    if (!complete) {
      var srcs = table.getAttribute("data-rows").split(" ");
      var label = table.getAttribute("data-label");
      var root = table.getAttribute("data-root") || "";
      loadScripts(srcs, function (ok) {
        var d = data(), cases = d.cases, rows = d["snapshot:" + label];
        if (ok && cases && rows && rows.fields && rows.rows && rows.rows.length === cases.ids.length) {
          records = recordsFromData(cases, rows, root, label, columns);
          complete = true;
        } else {
          loadProblem = true;
        }
        apply(true);
        table.setAttribute("data-ready", "");
      });
    } else {
      table.setAttribute("data-ready", "");
    }
  }


  // ---- How sure a comparison is (docs/evidence.md) ----
  // These follow evaluator/stats step by step, in the same double
  // arithmetic, so the page and the results files give the same figures.

  var LN_2PI = 1.8378770664093456;
  var STIRLERR_SMALL = [
    0, 0.08106146679532726, 0.0413406959554093, 0.02767792568499834, 0.020790672103765093,
    0.016644691189821193, 0.013876128823070748, 0.01189670994589177, 0.010411265261972096,
    0.009255462182712733, 0.00833056343336287, 0.007573675487951841, 0.00694284010720953,
    0.006408994188004207, 0.0059513701127588475, 0.005554733551962801
  ];

  function stirlerr(n) {
    var s0 = 1 / 12, s1 = 1 / 360, s2 = 1 / 1260, s3 = 1 / 1680, s4 = 1 / 1188;
    if (n <= 15) return STIRLERR_SMALL[Math.floor(n)];
    var nn = n * n;
    if (n > 500) return (s0 - s1 / nn) / n;
    if (n > 80) return (s0 - (s1 - s2 / nn) / nn) / n;
    if (n > 35) return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n;
    return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n;
  }

  function bd0(x, np) {
    if (Math.abs(x - np) < 0.1 * (x + np)) {
      var v = (x - np) / (x + np), s = (x - np) * v, ej = 2 * x * v;
      v *= v;
      for (var j = 1; j < 1000; j++) {
        ej *= v;
        var s1 = s + ej / (2 * j + 1);
        if (s1 === s) return s1;
        s = s1;
      }
    }
    return x * Math.log(x / np) + np - x;
  }

  // binomialHalf is C(m, k) / 2^m.
  function binomialHalf(k, m) {
    if (k === 0 || k === m) return Math.pow(2, -m);
    var x = k, n = m, np = n / 2;
    var lc = stirlerr(n) - stirlerr(x) - stirlerr(n - x) - bd0(x, np) - bd0(n - x, np);
    var lf = LN_2PI + Math.log(x) + Math.log1p(-x / n);
    return Math.exp(lc - 0.5 * lf);
  }

  function binomialHalfTail(k, m) {
    var term = binomialHalf(k, m);
    if (term === 0) return 0;
    var sum = 1, r = 1;
    for (var i = k; i > 0; i--) {
      r *= i / (m - i + 1);
      sum += r;
      if (r < sum * Math.pow(2, -60)) break;
    }
    return term * sum;
  }

  // mcnemar is the exact two-sided McNemar p of b regressions and c fixes.
  function mcnemar(b, c) {
    var m = b + c, k = Math.min(b, c);
    if (m === 0 || 2 * k >= m) return 1;
    return Math.min(1, 2 * binomialHalfTail(k, m));
  }

  // fisher is Fisher's exact two-sided p for passedA of trialsA against
  // passedB of trialsB.
  function fisher(passedA, trialsA, passedB, trialsB) {
    if (trialsA < 1 || trialsB < 1 || passedA < 0 || passedA > trialsA || passedB < 0 || passedB > trialsB) return 1;
    var passes = passedA + passedB, total = trialsA + trialsB;
    var lo = Math.max(0, passes - trialsB), hi = Math.min(trialsA, passes);
    if (lo === hi) return 1;
    function ratio(x) { return (trialsA - x) * (passes - x) / ((x + 1) * (trialsB - passes + x + 1)); }
    var mode = Math.min(hi, Math.max(lo, Math.floor((trialsA + 1) * (passes + 1) / (total + 2))));
    var observed = 1, x;
    for (x = mode; x < passedA; x++) observed *= ratio(x);
    for (x = mode; x > passedA; x--) observed /= ratio(x - 1);
    var limit = observed * (1 + 1e-7);
    var sum = 1, tail = 1 <= limit ? 1 : 0, w = 1;
    for (x = mode; x < hi && w > 0; x++) {
      w *= ratio(x);
      sum += w;
      if (w <= limit) tail += w;
    }
    w = 1;
    for (x = mode; x > lo && w > 0; x--) {
      w /= ratio(x - 1);
      sum += w;
      if (w <= limit) tail += w;
    }
    return Math.min(1, tail / sum);
  }

  // sixDigits rounds a p-value to 6 significant digits, as the results
  // files write it.
  function sixDigits(p) { return Number(p.toPrecision(6)); }

  // intervalWords words a results file's interval: "75.8–100%".
  function intervalWords(iv) {
    function pc(f) { return String(Number((100 * f).toFixed(1))); }
    return pc(iv[0]) + "–" + pc(iv[1]) + "%";
  }

  self.releasegateStats = { mcnemar: mcnemar, fisher: fisher };

  // ---- Compare any two snapshots ----

  // isFailing reads a status letter of data/matrix.js: P passed, F failed,
  // M failed with no output at all (with trials, in none of them).
  function isFailing(letter) { return letter !== "P"; }

  // gateChange words the change of a gate's value from a to b; kind is
  // the gate's entry in data/matrix.js's changes, its unit and whether
  // higher is better.
  function gateChange(kind, a, b) {
    if (!kind || a === null || b === null || a === undefined || b === undefined) return "n/a";
    var d = b - a;
    var text;
    switch (kind.unit) {
      case "fraction":
        d = Math.round(d * 1e6) / 1e4;
        text = Math.abs(d).toFixed(2).replace(/\.?0+$/, "") + " percentage points";
        break;
      case "count":
        text = String(Math.abs(d));
        break;
      case "ms":
        text = Math.abs(d).toLocaleString("en-US", { maximumFractionDigits: 3 }) + " ms";
        break;
      case "usd":
        d = Math.round(d * 1e9) / 1e9;
        text = "USD " + Math.abs(d).toFixed(9).replace(/\.?0+$/, "");
        break;
      default:
        return "n/a";
    }
    if (d === 0) return "no change";
    var better = (d > 0) === kind.higher_is_better;
    return (d > 0 ? "+" : "−") + text + (better ? " (better)" : " (worse)");
  }

  // caseList lists cases under a heading, each linking to its drilldown
  // in label; note, when given, words what a case did (for flaky ones).
  function caseList(key, heading, indices, cases, root, label, note) {
    var section = el("section", { "class": "case-set", "data-set": key, "aria-labelledby": "set-" + key });
    section.appendChild(el("h2", { id: "set-" + key }, [heading + " (" + indices.length + ")"]));
    if (indices.length === 0) {
      section.appendChild(el("p", null, ["None."]));
      return section;
    }
    var ul = el("ul", { "class": "case-list" });
    indices.slice(0, LIST_LIMIT).forEach(function (i) {
      var id = cases.ids[i];
      ul.appendChild(el("li", { "data-case": String(i) }, [
        el("a", { href: resultHref(root, cases, label, i) }, [id]),
        " " + cases.titles[i] + (note ? " (" + note(i) + ")" : "")
      ]));
    });
    section.appendChild(ul);
    if (indices.length > LIST_LIMIT) {
      section.appendChild(el("p", null, ["And " + (indices.length - LIST_LIMIT) + " more: the cases page shows every case."]));
    }
    return section;
  }

  // trialsOf reads the trials of data/matrix.js: k of snapshot s (0
  // without trials) and the trials case i passed there.
  function trialsOf(m, s, i) {
    var k = m.trials ? m.trials[s] : 0;
    return { k: k, passed: k ? m.trials_passed[s][i] : 0 };
  }

  // isFlaky: some but not all of the case's trials passed (docs/data-format.md, "Repeated trials").
  function isFlaky(m, s, i) {
    var t = trialsOf(m, s, i);
    return t.k > 0 && t.passed > 0 && t.passed < t.k;
  }

  // verdictWords words case i's verdict in snapshot s as the overview's
  // flaky list does: "pass", or "fail, 1/3 trials".
  function verdictWords(m, s, i) {
    var v = isFailing(m.status[s].charAt(i)) ? "fail" : "pass";
    var t = trialsOf(m, s, i);
    return t.k ? v + ", " + t.passed + "/" + t.k + " trials" : v;
  }

  function comparePage(form) {
    var d = data(), m = d.matrix, cases = d.cases;
    var out = document.getElementById("compare-result");
    if (!out) return;
    if (!m || !cases) {
      out.replaceChildren(el("p", { "class": "notice" }, ["The comparison data (data/matrix.js) could not be loaded."]));
      return;
    }
    var root = form.getAttribute("data-root") || "";
    var from = form.elements.namedItem("from"), to = form.elements.namedItem("to");
    var state = readState(["from", "to"]);
    function controlsFromState() {
      if (m.labels.indexOf(state.from) >= 0) from.value = state.from;
      if (m.labels.indexOf(state.to) >= 0) to.value = state.to;
    }
    function render() {
      var a = m.labels.indexOf(from.value), b = m.labels.indexOf(to.value);
      if (a < 0 || b < 0) return;
      var la = m.labels[a], lb = m.labels[b];
      var head = el("tr", null, [el("th", { scope: "col" }, ["Gate"]), el("th", { scope: "col" }, [la]), el("th", { scope: "col" }, [lb]), el("th", { scope: "col" }, ["Change"])]);
      // Each cell names its column, for a phone where the rows stack.
      var inA = { "data-label": la }, inB = { "data-label": lb }, inChange = { "data-label": "Change" };
      var rows = [el("tr", { "data-gate": "decision" }, [el("th", { scope: "row" }, ["Decision"]), el("td", inA, [decisionBadge(m.decisions[a])]), el("td", inB, [decisionBadge(m.decisions[b])]),
        el("td", inChange, [m.decisions[a] === m.decisions[b] ? "no change" : m.decisions[a] + " → " + m.decisions[b]])])];
      m.gates[b].forEach(function (gb, gi) {
        var ga = m.gates[a][gi];
        rows.push(el("tr", { "data-gate": gb.gate }, [
          el("th", { scope: "row" }, [gb.name]),
          el("td", inA, [ga.observed + (ga.settle ? "; " + ga.settle : "") + " ", badge(ga.passed)]),
          el("td", inB, [gb.observed + (gb.settle ? "; " + gb.settle : "") + " ", badge(gb.passed)]),
          el("td", inChange, [gateChange((m.changes || [])[gi], ga.value, gb.value)])
        ]));
      });
      var table = el("table", { "class": "compare-gates" }, [el("thead", null, [head]), el("tbody", null, rows)]);
      // Every case whose verdict differs counts in the paired test, as in
      // the results files; the lists then keep apart what a reader should
      // not take for a change: a case with no output now, a flaky case,
      // and flips that could be chance.
      var sa = m.status[a], sb = m.status[b];
      var trials = trialsOf(m, a, 0).k > 0 || trialsOf(m, b, 0).k > 0;
      var flips = [], regressions = 0, fixes = 0, still = [], noOutput = [], flaky = [];
      for (var i = 0; i < cases.ids.length; i++) {
        var fa = isFailing(sa.charAt(i)), fb = isFailing(sb.charAt(i));
        if (fa !== fb) {
          if (fb) regressions++; else fixes++;
        }
        if (sb.charAt(i) === "M" && sa.charAt(i) !== "M") noOutput.push(i);
        else if (trials && (isFlaky(m, a, i) || isFlaky(m, b, i))) flaky.push(i);
        else if (fa !== fb) flips.push(i);
        else if (fa && fb) still.push(i);
      }
      var p = mcnemar(regressions, fixes), significant = p < m.alpha;
      var level = String(Math.round(m.confidence * 100)) + "%";
      var fixed = [], regressed = [], chance = [], caseP = {}, caseSignificant = {};
      flips.forEach(function (i) {
        var ta = trialsOf(m, a, i), tb = trialsOf(m, b, i);
        var real = significant;
        if (ta.k > 0 && tb.k > 0) {
          caseP[i] = fisher(ta.passed, ta.k, tb.passed, tb.k);
          real = caseSignificant[i] = caseP[i] < m.alpha;
        }
        if (!real) chance.push(i);
        else if (isFailing(sb.charAt(i))) regressed.push(i);
        else fixed.push(i);
      });
      function evidenceOf(i) {
        var ta = trialsOf(m, a, i), tb = trialsOf(m, b, i);
        if (caseP.hasOwnProperty(i)) {
          return (caseSignificant[i] ? "significant" : "within noise") + ": " + ta.passed + "/" + ta.k + " → " + tb.passed + "/" + tb.k + " trials, Fisher's exact test p = " + sixDigits(caseP[i]);
        }
        return ta.k > 0 || tb.k > 0 ? "one run on one side: could be chance" : "one run each: could be chance";
      }
      var finding = regressions + fixes === 0 ? "no case changed" :
        fixes + " fixed and " + regressions + " regressed, which " + (significant ? "is unlikely to be chance" : "could be chance");
      var evidence = el("div", { "class": "compare-evidence", "data-regressions": String(regressions), "data-fixes": String(fixes),
        "data-p": String(sixDigits(p)), "data-significant": String(significant) }, [
        el("p", { "class": "compare-finding" }, ["From " + la + " to " + lb + ": " + finding + "."]),
        el("details", { "class": "evidence-numbers" }, [
          el("summary", null, ["The numbers behind this"]),
          el("ul", null, [
            el("li", null, ["Exact McNemar test over the " + cases.ids.length + " cases: " + regressions + " regressed, " + fixes + " fixed, p = " + sixDigits(p) +
              (significant ? ", significant" : ", not significant") + " (significant means p below " + m.alpha + ", for " + level + " confidence)."]),
            el("li", null, ["Pass rate " + (m.intervals && m.intervals[a] ? level + " interval " + intervalWords(m.intervals[a]) : "no interval") + " in " + la + "; " +
              (m.intervals && m.intervals[b] ? level + " interval " + intervalWords(m.intervals[b]) : "no interval") + " in " + lb + "."])
          ])
        ])
      ]);
      var summary = regressed.length + " regressed, " + fixed.length + " fixed and " + still.length + " still failing of " + cases.ids.length + " cases, from " + la + " to " + lb;
      var apart = [];
      if (chance.length) apart.push(chance.length + " that could be chance");
      if (noOutput.length) apart.push(noOutput.length + " with no output in " + lb);
      if (flaky.length) apart.push(flaky.length + " flaky in either snapshot");
      summary += apart.length ? "; listed apart: " + apart.join(", ") + "." : ".";
      var parts = [
        evidence,
        el("h2", { id: "compare-gates" }, ["Gates"]),
        el("div", { "class": "table-wrap", role: "region", "aria-labelledby": "compare-gates", tabindex: "0" }, [table]),
        el("p", { "class": "compare-summary" }, [summary]),
        caseList("regressed", "Regressed: failing in " + lb + ", passing in " + la, regressed, cases, root, lb, evidenceOf),
        caseList("fixed", "Fixed: passing in " + lb + ", failing in " + la, fixed, cases, root, lb, evidenceOf),
        caseList("still-failing", "Still failing in both", still, cases, root, lb)
      ];
      if (noOutput.length) {
        parts.push(caseList("no-output", "No output: " + lb + " has no output for these cases, so they fail there; that says nothing about the agent", noOutput, cases, root, lb));
      }
      if (chance.length) {
        var folded = el("details", { "class": "chance-changes", "data-set": "chance" }, [
          el("summary", null, ["Changes that could be chance (" + chance.length + "): not counted as fixed or regressed"])
        ]);
        folded.appendChild(caseList("chance", "Could be chance", chance, cases, root, lb, function (i) {
          return (isFailing(sb.charAt(i)) ? "pass → fail" : "fail → pass") + "; " + evidenceOf(i);
        }));
        parts.push(folded);
      }
      if (trials) {
        parts.push(caseList("flaky", "Flaky: some trials passed and some failed in " + la + " or " + lb, flaky, cases, root, lb, function (i) {
          var words = verdictWords(m, a, i) + " → " + verdictWords(m, b, i);
          var ta = trialsOf(m, a, i), tb = trialsOf(m, b, i);
          if (isFailing(sa.charAt(i)) === isFailing(sb.charAt(i)) || !ta.k || !tb.k) return words;
          var q = fisher(ta.passed, ta.k, tb.passed, tb.k);
          return words + "; " + (q < m.alpha ? "significant" : "within noise") + ", Fisher's exact test p = " + sixDigits(q);
        }));
      }
      out.replaceChildren.apply(out, parts);
      writeState({ from: la, to: lb });
    }
    form.addEventListener("change", render);
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    window.addEventListener("hashchange", function () { state = readState(["from", "to"]); controlsFromState(); render(); });
    window.addEventListener("pageshow", function (e) { if (e.persisted) { state = readState(["from", "to"]); controlsFromState(); render(); } });
    copyLink(form, "status");
    controlsFromState();
    form.hidden = false;
    render();
  }

  // ---- The cases matrix ----

  var CELL = {
    P: { cls: "cell-pass", icon: "✓", word: "pass" },
    F: { cls: "cell-fail", icon: "✕", word: "fail" },
    M: { cls: "cell-fail", icon: "—", word: "fail: no output" }
  };

  function matrixPage(form) {
    var d = data(), m = d.matrix, cases = d.cases;
    var table = document.getElementById("matrix-table");
    if (!table || !m || !cases) return;
    var wrap = table.parentNode;
    var body = table.tBodies[0];
    var root = form.getAttribute("data-root") || "";
    var count = form.elements.namedItem("count");
    var last = m.status.length - 1;
    var records = cases.ids.map(function (id, i) {
      var failing = 0, flaky = 0;
      m.status.forEach(function (s, si) {
        if (isFailing(s.charAt(i))) failing++;
        if (isFlaky(m, si, i)) flaky++;
      });
      return { i: i, text: (id + " " + cases.titles[i]).toLowerCase(), failing: failing, flaky: flaky };
    });
    var state = readState(["q", "show", "page"]);
    var shows = {
      "": function () { return true; },
      "flaky": function (r) { return r.flaky > 0; },
      "latest-fail": function (r) { return last >= 0 && isFailing(m.status[last].charAt(r.i)); },
      "any-fail": function (r) { return r.failing > 0; },
      "changed": function (r) { return r.failing > 0 && r.failing < m.status.length; }
    };
    function controlsFromState() {
      form.elements.namedItem("q").value = state.q;
      var show = form.elements.namedItem("show");
      show.value = state.show;
      if (show.value !== state.show || !shows[state.show]) { show.value = ""; state.show = ""; }
    }
    function row(r) {
      var id = cases.ids[r.i];
      var tr = el("tr", null, [
        idCell(id, el("a", { href: historyHref(root, cases, r.i) }, [id])),
        el("td", { "class": "matrix-title" }, [cases.titles[r.i]])
      ]);
      m.labels.forEach(function (label, s) {
        var c = CELL[m.status[s].charAt(r.i)] || CELL.F;
        var cls = c.cls, icon = c.icon, word = c.word;
        // A flaky case keeps its verdict's mark, with ~ and its trials.
        if (isFlaky(m, s, r.i)) {
          var t = trialsOf(m, s, r.i);
          cls += " cell-flaky";
          icon += "~";
          word += ", flaky: " + t.passed + "/" + t.k + " trials";
        }
        tr.appendChild(el("td", { "class": "matrix-cell " + cls }, [
          el("a", { href: resultHref(root, cases, label, r.i), title: id + " in " + label + ": " + word }, [
            el("span", { "aria-hidden": "true" }, [icon]),
            el("span", { "class": "visually-hidden" }, [word])
          ])
        ]));
      });
      return tr;
    }
    function apply(keepPage) {
      var q = state.q.trim().toLowerCase();
      var keep = shows[state.show] || shows[""];
      var list = records.filter(function (r) { return (q === "" || r.text.indexOf(q) !== -1) && keep(r); });
      var pages = Math.max(1, Math.ceil(list.length / PAGE_SIZE));
      var page = keepPage ? clampPage(state.page, pages) : 1;
      state.page = String(page);
      var fragment = document.createDocumentFragment();
      list.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE).forEach(function (r) { fragment.appendChild(row(r)); });
      body.replaceChildren(fragment);
      if (count) count.value = list.length + " of " + records.length + " cases shown" + (pages > 1 ? "; page " + page + " of " + pages : "");
      updatePager(page, pages);
      writeState(state);
    }
    var updatePager = pager(wrap, "Pages of the cases table", function (page) {
      state.page = String(page);
      apply(true);
      wrap.scrollIntoView({ block: "nearest" });
    });
    function fromControls() {
      state.q = form.elements.namedItem("q").value;
      state.show = form.elements.namedItem("show").value;
      apply(false);
    }
    form.addEventListener("input", fromControls);
    form.addEventListener("change", fromControls);
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    window.addEventListener("hashchange", function () { state = readState(["q", "show", "page"]); controlsFromState(); apply(true); });
    window.addEventListener("pageshow", function (e) { if (e.persisted) { state = readState(["q", "show", "page"]); controlsFromState(); apply(true); } });
    copyLink(form, "count");
    controlsFromState();
    form.hidden = false;
    wrap.hidden = false;
    apply(true);
  }

  function init() {
    Array.prototype.forEach.call(document.querySelectorAll("form[data-filter-for]"), caseTable);
    var compare = document.getElementById("compare-form");
    if (compare) comparePage(compare);
    var matrix = document.getElementById("matrix-form");
    if (matrix) matrixPage(matrix);
  }

  // A page may run this file right after its table, before the rest of
  // the page is parsed, so the table is live before slower parts load.
  var script = document.currentScript;
  if (document.readyState !== "loading" || (script && !script.defer && !script.async)) {
    init();
  } else {
    document.addEventListener("DOMContentLoaded", init);
  }
})();
