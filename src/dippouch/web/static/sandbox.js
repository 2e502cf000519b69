// The sandbox page without a round trip for the small things. A click on the board writes an order into the
// order box (a unit, then where it goes; the unit twice: it holds) or names the place for "Place a unit"
// (the renderer's shapes are r-ABBR, its units unit-ABBR); Ctrl+Enter in the order box checks the lines.
// Everything here is also done by the forms alone: the page works without this file.
(function () {
  "use strict";
  var tr = window.dpTr; // the page's words in its language (static/words.js)
  var where = document.querySelector("#sandbox-add [data-place]");
  var box = document.querySelector("#sandbox-orders textarea");
  var map = document.querySelector("[data-map] svg");
  var clicks = document.getElementById("sandbox-clicks");
  var status = document.getElementById("sandbox-click-status");
  var units = {};
  try { units = JSON.parse((document.getElementById("sandbox-units") || {}).textContent || "{}"); } catch (e) { units = {}; }
  var chosen = null;

  function say(text) { if (status) status.textContent = text; }

  function mode() {
    var on = document.querySelector("#sandbox-clicks input[name=clicks]:checked");
    return on ? on.value : "place";
  }

  function province(target) {
    var el = target;
    while (el && el !== map) {
      var id = el.getAttribute && el.getAttribute("id");
      if (id && /^(r|unit|dislodged|label|sc)-/.test(id)) return id.replace(/^[a-z]+-/, "");
      el = el.parentNode;
    }
    return null;
  }

  function write(line) {
    var text = box.value.replace(/\s+$/, "");
    box.value = (text ? text + "\n" : "") + line;
    say(tr("Added: %(line)s", { line: line }));
  }

  if (clicks && box) clicks.hidden = false;
  if (map) {
    map.addEventListener("click", function (ev) {
      var abbr = province(ev.target);
      if (!abbr) return;
      if (mode() === "orders" && box) {
        if (chosen === null) {
          if (!units[abbr]) { say(tr("No unit to order there.")); return; }
          chosen = abbr;
          say(units[abbr] + ": click where it goes, or it again to hold.");
        } else {
          write(chosen === abbr ? units[chosen] + " H" : units[chosen] + " - " + abbr);
          chosen = null;
        }
        return;
      }
      if (where) {
        where.value = abbr.replace(/_/g, "/");
        where.focus();
      }
    });
  }
  if (box) {
    box.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
        ev.preventDefault();
        var check = document.querySelector('#sandbox-orders button[value="check"]');
        if (check) check.click();
      }
    });
  }
})();
