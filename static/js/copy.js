/* Copy buttons: <button data-copy="ID"> copies the text of the element with that id.
 * A static file rather than an inline onclick, so the Content-Security-Policy can
 * forbid inline script altogether. */
(function () {
  "use strict";

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (!button || !navigator.clipboard) return;
    var source = document.getElementById(button.dataset.copy);
    if (source) navigator.clipboard.writeText(source.textContent);
  });
})();
