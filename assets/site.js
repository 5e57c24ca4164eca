// releasegate report site: sortable and filterable case tables, and
// charts that follow the window size and the colour scheme. Every page
// works without this file; it only adds convenience.
(function () {
  "use strict";

  // Sorting: each column heading of a table marked data-sortable becomes
  // a button. Cells may carry data-value, the machine-readable value to
  // sort by; an empty value sorts last.
  function cellValue(row, index, numeric) {
    var cell = row.children[index];
    if (!cell) return numeric ? null : "";
    var raw = cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent.trim();
    if (!numeric) return raw.toLowerCase();
    if (raw === "") return null;
    var n = parseFloat(raw);
    return isNaN(n) ? null : n;
  }

  function compare(a, b) {
    if (a === b) return 0;
    if (a === null) return 1;
    if (b === null) return -1;
    return a < b ? -1 : 1;
  }

  function makeSortable(table) {
    var headings = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(headings, function (th, index) {
      var kind = th.getAttribute("data-sort");
      if (!kind) return;
      var button = document.createElement("button");
      button.type = "button";
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      button.addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(headings, function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var numeric = kind === "number";
        var keyed = rows.map(function (row, position) {
          return { row: row, key: cellValue(row, index, numeric), position: position };
        });
        keyed.sort(function (x, y) {
          var c = compare(x.key, y.key);
          if (c !== 0 && x.key !== null && y.key !== null && !ascending) c = -c;
          return c !== 0 ? c : x.position - y.position;
        });
        var fragment = document.createDocumentFragment();
        keyed.forEach(function (k) { fragment.appendChild(k.row); });
        body.appendChild(fragment);
      });
    });
  }

  // Filtering: a form with data-filter-for names the table it filters.
  // The form is hidden in the page and shown here, so readers without
  // JavaScript never meet controls that do nothing.
  function makeFilter(form) {
    var table = document.getElementById(form.getAttribute("data-filter-for"));
    if (!table) return;
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var texts = rows.map(function (row) { return row.textContent.toLowerCase(); });
    var count = form.elements.namedItem("count");
    function apply() {
      var q = form.elements.namedItem("q").value.trim().toLowerCase();
      var result = form.elements.namedItem("result").value;
      var severity = form.elements.namedItem("severity").value;
      var shown = 0;
      rows.forEach(function (row, i) {
        var visible = (q === "" || texts[i].indexOf(q) !== -1) &&
          (result === "" || row.getAttribute("data-result") === result) &&
          (severity === "" || row.getAttribute("data-severity") === severity);
        row.hidden = !visible;
        if (visible) shown++;
      });
      if (count) count.value = shown + " of " + rows.length + " cases shown";
    }
    form.addEventListener("input", apply);
    form.addEventListener("change", apply);
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    form.hidden = false;
    apply();
  }

  // Charts: go-echarts draws each chart from an inline script before this
  // file runs; here they are resized with the window and recoloured for
  // a dark scheme.
  function charts() {
    if (typeof echarts === "undefined") return [];
    var found = [];
    Array.prototype.forEach.call(document.querySelectorAll(".chart .item"), function (el) {
      var chart = echarts.getInstanceByDom(el);
      if (chart) found.push(chart);
    });
    return found;
  }

  function recolour(list, dark) {
    var text = dark ? "#d5dde6" : "#3b434b";
    var grid = dark ? "#323a44" : "#e3e7eb";
    list.forEach(function (chart) {
      chart.setOption({
        textStyle: { color: text },
        xAxis: [{ axisLabel: { color: text }, axisLine: { lineStyle: { color: grid } } }],
        yAxis: [{ axisLabel: { color: text }, nameTextStyle: { color: text }, splitLine: { lineStyle: { color: grid } } }],
        series: [{ markLine: { label: { color: text, textBorderWidth: 0 } } }]
      });
    });
  }

  function init() {
    Array.prototype.forEach.call(document.querySelectorAll("table[data-sortable]"), makeSortable);
    Array.prototype.forEach.call(document.querySelectorAll("form[data-filter-for]"), makeFilter);
    var list = charts();
    if (list.length === 0) return;
    var scheme = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
    recolour(list, scheme !== null && scheme.matches);
    if (scheme && scheme.addEventListener) {
      scheme.addEventListener("change", function (e) { recolour(list, e.matches); });
    }
    window.addEventListener("resize", function () {
      list.forEach(function (chart) { chart.resize(); });
    });
    // Printing uses the light scheme whatever the screen shows.
    var print = window.matchMedia ? window.matchMedia("print") : null;
    if (print && print.addEventListener) {
      print.addEventListener("change", function (e) {
        recolour(list, !e.matches && scheme !== null && scheme.matches);
        list.forEach(function (chart) { chart.resize(); });
      });
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
