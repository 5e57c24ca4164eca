// releasegate report site: charts that fit their boxes and follow the
// colour scheme (the case tables are tables.js's). Every page works
// without this file; it only adds convenience.
(function () {
  "use strict";

  // Charts: each chart box names a JSON data block holding its options
  // (built by go-echarts) and the page each bar opens. The chart is drawn
  // here, sized to its box, and follows the box whenever it changes size.
  // Labels that do not fit are turned and shortened, with the full text
  // in the tooltip; a chart of many bars shows them all, with a zoom for
  // detail, and its value axis always reaches the limit line.
  var labelFont = 12;

  // textWidth measures a label in pixels in the chart's font; the
  // estimate of 0.6 em a character stands in where no canvas measures.
  var measure = null;
  function textWidth(s) {
    if (measure === null) {
      var c = document.createElement("canvas");
      measure = c.getContext ? c.getContext("2d") : false;
      if (measure) measure.font = labelFont + "px sans-serif";
    }
    return measure ? measure.measureText(s).width : s.length * labelFont * 0.6;
  }

  // The room round the plot: above it the axis name and the limit's
  // label, left of it the value labels (measured by echarts, which
  // contains them), below it one line of category labels.
  var gridTop = 30, gridSide = 8, gridRight = 16, valueLabels = 48;

  // axisLabel decides how the category labels fit a box: level when
  // every label fits its slot, or, with slots wide enough for a word,
  // level and shortened; else upright, shortened to 22 % of the box's
  // height so the plot keeps most of it, and with more bars than upright
  // labels fit, one label every so many bars. The full text is always in
  // the tooltip.
  function axisLabel(categories, width, height) {
    var longest = 0;
    categories.forEach(function (c) { longest = Math.max(longest, textWidth(String(c))); });
    var plot = Math.max(80, width - gridSide - gridRight - valueLabels);
    var slot = plot / Math.max(1, categories.length);
    var base = { overflow: "truncate", ellipsis: "…", hideOverlap: false };
    if (longest + 4 <= slot) return Object.assign(base, { rotate: 0, width: slot, interval: 0 });
    if (slot >= 64) return Object.assign(base, { rotate: 0, width: slot - 6, interval: 0 });
    var step = labelFont + 6;
    var interval = categories.length * step > plot ? Math.ceil(categories.length * step / plot) - 1 : 0;
    var room = Math.max(40, Math.min(longest + 8, height * 0.22));
    return Object.assign(base, { rotate: 90, width: room, interval: interval });
  }

  // niceCeil rounds x up to a round multiple of a power of ten, as the
  // site's build does for the limit.
  function niceCeil(x) {
    if (!(x > 0)) return 1;
    var pow = Math.pow(10, Math.floor(Math.log(x) / Math.LN10));
    var steps = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];
    for (var i = 0; i < steps.length; i++) {
      if (x <= steps[i] * pow * (1 + 1e-9)) return steps[i] * pow;
    }
    return 10 * pow;
  }

  function layoutOptions(spec, width) {
    var height = spec.height;
    var categories = spec.options.xAxis[0].data || [];
    var many = categories.length * 6 > width;
    var label = axisLabel(categories, width, height);
    // About one value label every 40 pixels of plot, so they never crowd.
    var plotHeight = height - gridTop - (many ? 48 : 8) - (label.rotate ? label.width : labelFont * 2);
    return {
      grid: { left: gridSide, right: gridRight, top: gridTop, bottom: many ? 48 : 8, containLabel: true },
      xAxis: [{ axisLabel: label }],
      yAxis: [{ splitNumber: Math.max(2, Math.min(5, Math.floor(plotHeight / 40))) }],
      dataZoom: many ? [
        { type: "inside", start: 0, end: 100 },
        { type: "slider", start: 0, end: 100, height: 18, bottom: 10, showDetail: false }
      ] : []
    };
  }

  // seriesMax is the largest value a chart's series hold.
  function seriesMax(options) {
    var top = 0;
    options.series.forEach(function (series) {
      (series.data || []).forEach(function (d) {
        var v = d !== null && typeof d === "object" ? d.value : d;
        if (typeof v === "number" && v > top) top = v;
      });
    });
    return top;
  }

  // evenSteps is how many equal steps, at most most, split 0 to top into
  // round numbers: 100 in 5 steps of 20, 6,000 in 3 of 2,000.
  function evenSteps(top, most) {
    var pow = Math.pow(10, Math.floor(Math.log(top) / Math.LN10));
    var isRound = function (x, set) {
      return set.some(function (want) {
        return [0.1, 1, 10].some(function (scale) { return Math.abs(x - want * scale) < 1e-9 * scale; });
      });
    };
    var preferred = [[1, 2, 2.5, 5], [1.5, 3, 4]];
    for (var r = 0; r < preferred.length; r++) {
      for (var k = most; k >= 2; k--) {
        if (isRound(top / k / pow, preferred[r])) return k;
      }
    }
    return 2;
  }

  // groupPage names the grouped result page of bar index: p0001.html.
  function groupPage(index, per) {
    var n = String(Math.floor(index / per) + 1);
    while (n.length < 4) n = "0" + n;
    return "p" + n + ".html";
  }

  // Above this many bars a chart draws its bars in echarts' large mode,
  // one batch per colour, which takes a tenth of the time; drawn one by
  // one, 10,000 bars keep the page from answering for seconds.
  var largeAbove = 1000;

  // batchBars turns a bar series whose items carry their own colour into
  // two series drawn in one place, each in large mode: the plain bars,
  // and the bars coloured as over their limit. The limit line stays on
  // the first.
  function batchBars(options) {
    var base = options.series[0];
    if (!base || base.type !== "bar" || !base.data || base.data.length <= largeAbove) return;
    var plain = [], marked = [], colour = null;
    base.data.forEach(function (d) {
      var v = d !== null && typeof d === "object" ? d.value : d;
      var c = d !== null && typeof d === "object" && d.itemStyle ? d.itemStyle.color : null;
      if (c) colour = c;
      plain.push(c ? "-" : v);
      marked.push(c ? v : "-");
    });
    base.data = plain;
    base.large = true;
    if (colour === null) return;
    options.series.push({ type: "bar", name: base.name, large: true, barGap: "-100%", barCategoryGap: base.barCategoryGap,
      data: marked, itemStyle: { color: colour } });
    // The tooltip names the one bar under the pointer, not the empty slot
    // of the other series.
    options.tooltip.formatter = function (params) {
      var shown = params.filter(function (p) { return p.value !== "-" && p.value !== undefined; })[0] || params[0];
      var esc = function (t) { return String(t).replace(/[&<>"]/g, function (ch) { return "&#" + ch.charCodeAt(0) + ";"; }); };
      return esc(shown.name) + "<br>" + shown.marker + esc(shown.seriesName) + ": " + esc(shown.value);
    };
  }

  function linkOf(spec, index) {
    if (spec.links) return spec.links[index];
    if (spec.linkPages) return spec.linkPrefix + groupPage(index, spec.linkPages) + "#" + spec.keys[index];
    if (spec.keys) return spec.linkPrefix + spec.keys[index] + spec.linkSuffix;
    return null;
  }

  // drawChart draws a chart in the colours of the scheme given, in one
  // pass: a second setOption would draw every bar again.
  function drawChart(wrap, dark) {
    var box = wrap.querySelector("[data-chart]");
    var block = box && document.getElementById(box.getAttribute("data-chart"));
    if (!block) return null;
    var spec = JSON.parse(block.textContent);
    wrap.hidden = false;
    box.style.height = spec.height + "px";
    var chart = echarts.init(box, null, { renderer: "canvas", width: box.clientWidth, height: spec.height });
    var options = spec.options;
    options.tooltip = Object.assign({}, options.tooltip, { confine: true });
    // The value axis ends on a round number at or above the tallest bar
    // shown and the limit line, however far the reader zooms.
    options.yAxis[0].max = function (extent) { return niceCeil(Math.max(extent.max, spec.floor || 0)); };
    var layout = layoutOptions(spec, box.clientWidth);
    if (layout.dataZoom.length === 0) {
      // Without a zoom the top is known: the labels then step evenly up
      // to it (0, 20, … 100, not 0, 30, 60, 90, 100).
      var top = niceCeil(Math.max(seriesMax(options), spec.floor || 0));
      options.yAxis[0].max = top;
      options.yAxis[0].interval = top / evenSteps(top, layout.yAxis[0].splitNumber);
    }
    // Every value axis starts at 0, so a bar's height or a point's place
    // is in proportion to its value.
    options.yAxis[0].min = 0;
    // The axis name starts at the axis, so a narrow box never cuts it.
    options.yAxis[0].nameTextStyle = { align: "left" };
    options.grid = layout.grid;
    options.xAxis[0].axisLabel = Object.assign({}, options.xAxis[0].axisLabel, layout.xAxis[0].axisLabel);
    options.yAxis[0].splitNumber = layout.yAxis[0].splitNumber;
    options.dataZoom = layout.dataZoom;
    batchBars(options);
    // Both merged now, drawn once in the next frame.
    chart.setOption(options, { lazyUpdate: true });
    chart.setOption(colours(dark), { lazyUpdate: true });

    // A redraw of thousands of bars is slow: fit redraws only when the
    // box's width really changed (the observer also reports the first
    // size, which the chart already has).
    var width = box.clientWidth;
    function fit() {
      var now = box.clientWidth;
      if (now === 0 || now === width) return;
      width = now;
      chart.setOption(layoutOptions(spec, width), { replaceMerge: ["dataZoom"], lazyUpdate: true });
      chart.resize({ width: width, height: spec.height });
    }
    if (typeof ResizeObserver !== "undefined") {
      new ResizeObserver(fit).observe(box);
    } else {
      window.addEventListener("resize", fit);
    }

    // A click anywhere over a bar's column opens that bar's page: with
    // thousands of cases a bar is thinner than a pointer.
    if (linkOf(spec, 0) !== null) {
      var zr = chart.getZr();
      var indexAt = function (e) {
        var at = [e.offsetX, e.offsetY];
        if (!chart.containPixel("grid", at)) return -1;
        var point = chart.convertFromPixel({ gridIndex: 0 }, at);
        var i = Array.isArray(point) ? Math.round(point[0]) : -1;
        return i >= 0 && i < spec.options.xAxis[0].data.length ? i : -1;
      };
      zr.on("mousemove", function (e) { zr.setCursorStyle(indexAt(e) >= 0 ? "pointer" : "default"); });
      zr.on("click", function (e) {
        var i = indexAt(e);
        if (i >= 0) location.href = linkOf(spec, i);
      });
    }
    box.releasegateFit = fit;
    return chart;
  }

  function charts(dark) {
    if (typeof echarts === "undefined") return [];
    var found = [];
    Array.prototype.forEach.call(document.querySelectorAll(".chart"), function (wrap) {
      var chart = drawChart(wrap, dark);
      if (chart) found.push({ chart: chart, box: wrap.querySelector("[data-chart]") });
    });
    return found;
  }

  // colours are the options that follow the colour scheme.
  function colours(dark) {
    var text = dark ? "#d5dde6" : "#3b434b";
    var grid = dark ? "#323a44" : "#e3e7eb";
    var page = dark ? "#0f1419" : "#ffffff";
    return {
      textStyle: { color: text },
      xAxis: [{ axisLabel: { color: text }, axisLine: { lineStyle: { color: grid } } }],
      yAxis: [{ axisLabel: { color: text }, nameTextStyle: { color: text }, splitLine: { lineStyle: { color: grid } } }],
      // The limit's label sits on the page's colour, so a line or a
      // point behind it never makes it hard to read.
      series: [{ markLine: { label: { color: text, textBorderWidth: 0, backgroundColor: page, padding: [1, 3] } } }]
    };
  }

  function recolour(list, dark) {
    list.forEach(function (c) { c.chart.setOption(colours(dark)); });
  }

  // Wide tables: a table that does not fit its column on this screen
  // says that it scrolls sideways, before it, once.
  function markScrolling() {
    Array.prototype.forEach.call(document.querySelectorAll(".table-wrap"), function (wrap) {
      var note = wrap.previousElementSibling;
      var has = note !== null && note.classList.contains("scroll-note");
      var wide = wrap.scrollWidth > wrap.clientWidth + 1;
      if (wide && !has) {
        var p = document.createElement("p");
        p.className = "scroll-note";
        p.textContent = "This table is wider than the screen: scroll it sideways to see every column →";
        wrap.parentNode.insertBefore(p, wrap);
      } else if (!wide && has) {
        note.parentNode.removeChild(note);
      }
    });
  }

  function init() {
    showBundle();
    markScrolling();
    window.addEventListener("resize", markScrolling);
    // A folded table is measured when it is unfolded.
    document.addEventListener("toggle", markScrolling, true);
    unfoldForPrint();
    var scheme = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
    var list = charts(scheme !== null && scheme.matches);
    if (list.length === 0) return;
    if (scheme && scheme.addEventListener) {
      scheme.addEventListener("change", function (e) { recolour(list, e.matches); });
    }
    // Printing uses the light scheme whatever the screen shows, and the
    // page's printed width.
    var fitAll = function () { list.forEach(function (c) { c.box.releasegateFit(); }); };
    var forPrint = function (printing) {
      recolour(list, !printing && scheme !== null && scheme.matches);
      fitAll();
    };
    window.addEventListener("beforeprint", function () { forPrint(true); });
    window.addEventListener("afterprint", function () { forPrint(false); });
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
