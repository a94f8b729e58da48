/* Arena charts: draw every figure embedded in the page with Plotly.
 *
 * A chart is a holder <div data-figure="ID"> plus <script type="application/json"
 * id="ID"> holding {data, layout, config} built by leaderboard/boards/charts.py. Holders are
 * drawn on page load and again whenever htmx swaps new ones in (sorting, filtering,
 * switching boards, going back in history). Without JavaScript the holder keeps its
 * fallback text and the table carries every number.
 */
(function () {
  "use strict";

  var drawn = new WeakSet();

  function textColour() {
    return window.getComputedStyle(document.body).color;
  }

  function draw(holder) {
    if (drawn.has(holder) || !window.Plotly) return;
    var source = document.getElementById(holder.dataset.figure);
    if (!source) return;
    var figure = JSON.parse(source.textContent);
    var layout = Object.assign({}, figure.layout);
    // Follow the page's light or dark theme rather than Plotly's white default.
    layout.font = Object.assign({}, layout.font, { color: textColour() });
    drawn.add(holder);
    holder.textContent = "";
    window.Plotly.newPlot(holder, figure.data, layout, figure.config || { responsive: true });
  }

  function drawAll() {
    document.querySelectorAll("[data-figure]").forEach(draw);
  }

  // htmx keeps a copy of the page for the back button; store the holders empty, not
  // the drawn SVG (large, and without its event handlers once restored).
  function forgetAll() {
    document.querySelectorAll("[data-figure]").forEach(function (holder) {
      if (drawn.has(holder) && window.Plotly) window.Plotly.purge(holder);
      drawn.delete(holder);
      holder.textContent = "";
    });
  }

  document.addEventListener("DOMContentLoaded", drawAll);
  document.addEventListener("htmx:afterSettle", drawAll);
  document.addEventListener("htmx:historyRestore", drawAll);
  document.addEventListener("htmx:beforeHistorySave", forgetAll);
})();
