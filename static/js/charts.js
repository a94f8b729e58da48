/* Arena charts: draw every figure embedded in the page with Plotly, when it is seen.
 *
 * A chart is a holder <div data-figure="ID"> plus <script type="application/json"
 * id="ID"> holding {data, layout, config} built by leaderboard/presentation/*_charts.py.
 * Plotly is a megabyte of script: it is fetched only once a holder comes near the
 * screen (IntersectionObserver), and each holder is drawn only then, so a page whose
 * charts sit below the fold costs no chart time until the visitor scrolls to them.
 * Holders are watched on page load and again whenever htmx swaps new ones in (sorting,
 * filtering, switching boards, going back in history). A tap on a point writes the
 * point's detail under the chart, the same words as its hover label: nothing needs a
 * mouse. Without JavaScript the holder keeps its fallback text and the table carries
 * every number.
 */
(function () {
  "use strict";

  var script = document.currentScript;
  var assets = script ? script.dataset : {};
  var drawn = new WeakSet();
  var loading = null;
  // Start fetching a little before a chart scrolls into view.
  var observer = "IntersectionObserver" in window
    ? new IntersectionObserver(onSeen, { rootMargin: "150px 0px" })
    : null;

  // Plotly's own rules as a file (the CSP forbids the <style> it would inject: the id
  // and class tell it not to), then the library; once.
  function loadPlotly() {
    if (window.Plotly) return Promise.resolve(window.Plotly);
    if (loading) return loading;
    loading = new Promise(function (resolve, reject) {
      if (assets.plotlyCss && !document.getElementById("plotly.js-style-global")) {
        var css = document.createElement("link");
        css.id = "plotly.js-style-global";
        css.className = "no-inline-styles";
        css.rel = "stylesheet";
        css.href = assets.plotlyCss;
        document.head.appendChild(css);
      }
      var lib = document.createElement("script");
      lib.src = assets.plotly;
      lib.onload = function () { resolve(window.Plotly); };
      lib.onerror = function () { loading = null; reject(new Error("Plotly did not load")); };
      document.head.appendChild(lib);
    });
    return loading;
  }

  // Chart colours come from the stylesheet's custom properties (--chart-fg, --chart-grid),
  // so a chart follows the light or dark theme like the rest of the page.
  function cssColour(name, fallback) {
    var value = window.getComputedStyle(document.body).getPropertyValue(name).trim();
    return value || fallback;
  }

  function textColour() {
    return cssColour("--chart-fg", window.getComputedStyle(document.body).color);
  }

  function themed(axis) {
    if (!axis) return axis;
    var grid = cssColour("--chart-grid", axis.gridcolor);
    return Object.assign({}, axis, { gridcolor: grid, zerolinecolor: grid, linecolor: grid });
  }

  // A figure whose traces hold no point would be bare axes with their labels piled on
  // each other: say so in words instead (the boards do this server-side too).
  function isEmpty(figure) {
    return !(figure.data || []).some(function (trace) {
      return (trace.x && trace.x.length) || (trace.y && trace.y.length);
    });
  }

  // The words of a point's hover label, as plain text (Plotly's <br> become " · ").
  function pointText(point) {
    var text = point.hovertext || (point.data && point.data.hovertext && point.data.hovertext[point.pointIndex]);
    return text ? String(text).split("<br>").join(" · ") : "";
  }

  function detailLine(holder) {
    var line = holder.nextElementSibling;
    if (line && line.classList.contains("chart-detail")) return line;
    line = document.createElement("p");
    line.className = "chart-detail";
    line.setAttribute("aria-live", "polite");
    line.textContent = "Tap or click a point for its figures.";
    holder.insertAdjacentElement("afterend", line);
    return line;
  }

  function draw(holder, Plotly) {
    if (drawn.has(holder) || !holder.isConnected) return;
    var source = document.getElementById(holder.dataset.figure);
    if (!source) return;
    var figure = JSON.parse(source.textContent);
    drawn.add(holder);
    if (isEmpty(figure)) {
      var note = document.createElement("p");
      note.className = "chart-empty";
      note.textContent = "Nothing to plot yet: no figure here has a value.";
      holder.replaceChildren(note);
      return;
    }
    var layout = Object.assign({}, figure.layout);
    // Follow the page's light or dark theme rather than Plotly's white default.
    layout.font = Object.assign({}, layout.font, { color: textColour() });
    layout.xaxis = themed(layout.xaxis);
    layout.yaxis = themed(layout.yaxis);
    holder.textContent = "";
    var line = detailLine(holder);
    Plotly.newPlot(holder, figure.data, layout, figure.config || { responsive: true }).then(function () {
      holder.on("plotly_click", function (event) {
        var text = event && event.points && event.points.length ? pointText(event.points[0]) : "";
        if (text) line.textContent = text;
      });
    });
  }

  function onSeen(entries) {
    entries.forEach(function (entry) {
      if (!entry.isIntersecting) return;
      observer.unobserve(entry.target);
      loadPlotly().then(function (Plotly) { draw(entry.target, Plotly); }, function () {});
    });
  }

  function watchAll() {
    document.querySelectorAll("[data-figure]").forEach(function (holder) {
      if (drawn.has(holder)) return;
      if (observer) observer.observe(holder);
      else loadPlotly().then(function (Plotly) { draw(holder, Plotly); }, function () {});
    });
  }

  // htmx keeps a copy of the page for the back button; store the holders empty, not
  // the drawn SVG (large, and without its event handlers once restored). Plotly's
  // off-screen text-measuring <svg> carries a style attribute, which the restored copy
  // would try to apply and the CSP refuse: it goes too (Plotly makes another).
  function forgetAll() {
    document.querySelectorAll("[data-figure]").forEach(function (holder) {
      if (observer) observer.unobserve(holder);
      if (drawn.has(holder) && window.Plotly) window.Plotly.purge(holder);
      drawn.delete(holder);
      holder.textContent = "";
      holder.removeAttribute("style");
      var line = holder.nextElementSibling;
      if (line && line.classList.contains("chart-detail")) line.remove();
    });
    document.querySelectorAll("#js-plotly-tester").forEach(function (tester) { tester.remove(); });
  }

  document.addEventListener("DOMContentLoaded", watchAll);
  document.addEventListener("htmx:afterSettle", watchAll);
  document.addEventListener("htmx:historyRestore", watchAll);
  document.addEventListener("htmx:beforeHistorySave", forgetAll);
})();
