/* Controls that follow the back button.
 *
 * htmx keeps a snapshot of the page (its HTML, attributes only) for the back button, and
 * takes it just before the next swap: by then the visitor has already changed the filter
 * that caused that swap, and a typed value or a ticked box lives in the element's
 * property, not its attribute. Restored as is, the table would show one state and the
 * controls another (or none).
 *
 * So every region that htmx swaps and that answers a form carries
 * data-controls-of="FORM_ID"; this script stamps on it, as a data-controls attribute, the
 * state of that form which produced it. The stamp is an attribute, so it travels in the
 * snapshot, and on htmx:historyRestore each restored region sets its form back to the
 * state it was rendered for. A static file: the Content-Security-Policy forbids inline
 * script.
 */
(function () {
  "use strict";

  // Requests in flight -> {formId: {form, state}} as the forms stood when each was sent.
  var pending = new WeakMap();

  function controls(form) {
    return Array.prototype.filter.call(form.elements, function (el) {
      return el.name && !/^(hidden|submit|button|reset|file)$/.test(el.type);
    });
  }

  function stateOf(form) {
    return controls(form).map(function (el) {
      if (el.type === "checkbox" || el.type === "radio") return [el.name, el.value, el.checked];
      if (el.tagName === "SELECT") {
        var chosen = Array.prototype.filter.call(el.options, function (o) { return o.selected; });
        return [el.name, chosen.map(function (o) { return o.value; }), true];
      }
      return [el.name, el.value, true];
    });
  }

  function apply(form, state) {
    var items = controls(form);
    state.forEach(function (item, index) {
      var el = items[index];
      if (!el || el.name !== item[0]) return; // the form changed shape: leave it alone
      if (el.type === "checkbox" || el.type === "radio") {
        el.checked = item[2];
      } else if (el.tagName === "SELECT") {
        Array.prototype.forEach.call(el.options, function (o) {
          o.selected = item[1].indexOf(o.value) !== -1;
        });
      } else {
        el.value = item[1];
      }
    });
  }

  function stamp(holder, state) {
    holder.setAttribute("data-controls", JSON.stringify(state));
  }

  // Stamp the regions not stamped yet: after the first load, or after a swap brought new ones.
  function stampNew(sent) {
    document.querySelectorAll("[data-controls-of]:not([data-controls])").forEach(function (holder) {
      var id = holder.getAttribute("data-controls-of");
      var form = document.getElementById(id);
      if (!form) return;
      var before = sent && sent[id];
      // The form itself was swapped in: the server rendered it for this very region.
      stamp(holder, before && before.form === form ? before.state : stateOf(form));
    });
  }

  function restore() {
    document.querySelectorAll("[data-controls-of][data-controls]").forEach(function (holder) {
      var form = document.getElementById(holder.getAttribute("data-controls-of"));
      if (form) apply(form, JSON.parse(holder.getAttribute("data-controls")));
    });
    stampNew(null); // a restore that missed the cache brings a freshly rendered page
  }

  document.addEventListener("DOMContentLoaded", function () { stampNew(null); });
  document.addEventListener("htmx:beforeRequest", function (event) {
    var sent = {};
    document.querySelectorAll("[data-controls-of]").forEach(function (holder) {
      var id = holder.getAttribute("data-controls-of");
      var form = document.getElementById(id);
      if (form) sent[id] = { form: form, state: stateOf(form) };
    });
    if (event.detail.xhr) pending.set(event.detail.xhr, sent);
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    stampNew(event.detail.xhr ? pending.get(event.detail.xhr) : null);
  });
  document.addEventListener("htmx:historyRestore", restore);
})();
