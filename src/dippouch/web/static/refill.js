// A form the site refused comes back filled in as it was typed: the server carries the fields back once
// (dippouch.web.forms.refused_form) and names the address the form posted to; this fills the form on the page
// that posts there. Hidden fields keep the page's own values (its CSRF token, the version it shows), and
// nothing secret was carried back.
(function () {
  "use strict";
  var node = document.getElementById("dp-typed");
  if (!node) return;
  var typed;
  try { typed = JSON.parse(node.textContent || "{}"); } catch (e) { return; }
  if (!typed || typeof typed.action !== "string" || !typed.fields) return;

  function target(form) {
    var action = form.getAttribute("action");
    var url = new URL(action === null || action === "" ? location.href : action, location.href);
    return url.pathname;
  }

  // Pages that change with a field (a variant's options shown, an order checked as it is typed) hear of the
  // filled value as of one typed.
  function told(el, kind) {
    el.dispatchEvent(new Event(kind, { bubbles: true }));
  }

  function fill(form) {
    var seen = {};
    Array.prototype.forEach.call(form.elements, function (el) {
      var name = el.name;
      if (!name) return;
      var type = (el.type || "").toLowerCase();
      if (!Object.prototype.hasOwnProperty.call(typed.fields, name)) {
        // A box left unticked is not posted at all: it was unticked, whatever the page ticks by default.
        if ((type === "checkbox" || type === "radio") && !el.disabled && el.checked) {
          el.checked = false;
          told(el, "change");
        }
        return;
      }
      var values = typed.fields[name];
      if (!Array.isArray(values)) return;
      if (type === "hidden" || type === "password" || type === "file" || type === "submit" || type === "button") return;
      if (type === "checkbox" || type === "radio") {
        el.checked = values.indexOf(el.value) >= 0;
        told(el, "change");
      } else if (el.tagName === "SELECT") {
        var n = seen[name] || 0;
        Array.prototype.forEach.call(el.options, function (opt) {
          opt.selected = el.multiple ? values.indexOf(opt.value) >= 0 : opt.value === values[n];
        });
        seen[name] = n + 1;
        told(el, "change");
      } else {
        var i = seen[name] || 0;
        if (i < values.length) {
          el.value = values[i];
          told(el, "input");
        }
        seen[name] = i + 1;
      }
    });
  }

  function run() {
    Array.prototype.forEach.call(document.forms, function (form) {
      if ((form.method || "").toLowerCase() === "post" && target(form) === typed.action) fill(form);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", run);
  else run();
})();
