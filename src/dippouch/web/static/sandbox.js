// The sandbox page without a round trip for the small things: a click on the board names its province in the
// unit form's "Where" (the renderer's shapes are r-ABBR), and Ctrl+Enter in the order box checks the lines.
// Everything here is also done by the forms alone: the page works without this file.
(function () {
  "use strict";
  var where = document.querySelector("#sandbox-add [data-place]");
  var map = document.querySelector("[data-map] svg");
  if (where && map) {
    map.addEventListener("click", function (ev) {
      var el = ev.target;
      while (el && el !== map) {
        var id = el.getAttribute && el.getAttribute("id");
        if (id && /^(r|unit|dislodged|label)-/.test(id)) {
          where.value = id.replace(/^[a-z]+-/, "").replace(/_/g, "/");
          where.focus();
          return;
        }
        el = el.parentNode;
      }
    });
  }
  var box = document.querySelector("#sandbox-orders textarea");
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
