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
