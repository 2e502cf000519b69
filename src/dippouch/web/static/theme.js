// The colour scheme chosen on this site (light, dark, or the system's), kept in this browser and set on <html>
// before the page is drawn, so a dark page never flashes light. Loaded without defer from <head> for that; the
// footer's button, shown only where this script runs, changes the choice. app.css does the rest.
(function () {
  "use strict";
  var KEY = "dippouch-colours";
  var NAMES = { "": "automatic", dark: "dark", light: "light" };
  var NEXT = { "": "dark", dark: "light", light: "" };
  var root = document.documentElement;
  var choice = "";
  try { choice = localStorage.getItem(KEY) || ""; } catch (e) { /* storage refused: the system's choice */ }
  if (!(choice in NAMES)) choice = "";

  function apply() {
    if (choice) root.setAttribute("data-theme", choice);
    else root.removeAttribute("data-theme");
  }
  apply();

  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("theme-choice");
    if (!button) return;
    // The page's words in its language (templates/_js_words.html), read once the page is there; English else.
    var words = JSON.parse(document.getElementById("dp-words")?.textContent || "{}");
    function show() { var en = "Colours: " + NAMES[choice]; button.textContent = words[en] || en; }
    show();
    button.hidden = false;
    button.addEventListener("click", function () {
      choice = NEXT[choice];
      try {
        if (choice) localStorage.setItem(KEY, choice);
        else localStorage.removeItem(KEY);
      } catch (e) { /* kept for this page only */ }
      apply();
      show();
    });
  });
})();
