/* Tables: a row's details open below the row, and a wide screen shows folded controls.
 *
 * A board row's details are a <details class="row-more"> in its agent cell, so they open
 * with a tap without JavaScript too, inside that cell. With JavaScript an opened row gets
 * a row of its own under it, spanning the table, holding a copy of the details: they
 * neither squeeze into the (narrow, pinned) agent column nor print over the next cells.
 * Closing the details, or htmx saving the page for the back button, removes that row.
 *
 * The board's controls fold behind one <details> on a phone; on a wide screen the
 * stylesheet shows them unfolded (::details-content). A browser without that selector
 * gets them opened here instead.
 */
(function () {
  "use strict";

  var WIDE = "(min-width: 701px)";

  function panelRow(details) {
    var row = details.closest("tr");
    var next = row && row.nextElementSibling;
    return next && next.classList.contains("row-more-row") ? next : null;
  }

  function expand(details) {
    var row = details.closest("tr");
    var parts = Array.prototype.filter.call(details.children, function (child) {
      return child.tagName !== "SUMMARY";
    });
    if (!row || !parts.length || panelRow(details)) return;
    var extra = document.createElement("tr");
    extra.className = "row-more-row" + (row.classList.contains("unranked") ? " unranked" : "");
    var cell = document.createElement("td");
    cell.colSpan = row.cells.length;
    var panel = document.createElement("div");
    panel.className = "row-more-panel";
    parts.forEach(function (part) {
      var copy = part.cloneNode(true);
      copy.removeAttribute("id");
      panel.appendChild(copy);
    });
    cell.appendChild(panel);
    extra.appendChild(cell);
    row.insertAdjacentElement("afterend", extra);
    details.classList.add("row-more-below");
  }

  function collapse(details) {
    var extra = panelRow(details);
    if (extra) extra.remove();
    details.classList.remove("row-more-below");
  }

  // "toggle" does not bubble: listen while it is captured on its way down.
  document.addEventListener("toggle", function (event) {
    var details = event.target;
    if (!(details instanceof HTMLDetailsElement) || !details.classList.contains("row-more")) return;
    if (!details.closest("table")) return;
    if (details.open) expand(details);
    else collapse(details);
  }, true);

  document.addEventListener("htmx:beforeHistorySave", function () {
    document.querySelectorAll("details.row-more[open]").forEach(function (details) {
      collapse(details);
      details.open = false;
    });
  });

  function unfoldControls() {
    var supported = window.CSS && CSS.supports && CSS.supports("selector(::details-content)");
    if (supported || !window.matchMedia(WIDE).matches) return;
    document.querySelectorAll("details.board-controls:not([open])").forEach(function (details) {
      details.open = true;
    });
  }

  document.addEventListener("DOMContentLoaded", unfoldControls);
  document.addEventListener("htmx:afterSettle", unfoldControls);
})();
