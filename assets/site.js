// releasegate report site: charts that follow the window size and the
// colour scheme (the case tables are tables.js's). Every page works
// without this file; it only adds convenience.
(function () {
  "use strict";

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
    showBundle();
    unfoldForPrint();
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

  // Provenance: an unpacked bundle's top folder is named
  // releasegate-<policy version>-<inputs hash>. Found in the address, the
  // footer names the bundle and how to verify it.
  function showBundle() {
    var note = document.querySelector(".bundle-note");
    if (!note) return;
    var m = /\/(releasegate-[A-Za-z0-9._-]+-[0-9a-f]{8})\//.exec(location.pathname);
    if (!m) return;
    note.querySelectorAll(".bundle-name").forEach(function (el) { el.textContent = m[1]; });
    note.hidden = false;
  }

  // Printing shows the folded history, so paper holds every snapshot.
  function unfoldForPrint() {
    window.addEventListener("beforeprint", function () {
      document.querySelectorAll("details").forEach(function (d) { d.open = true; });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
