// The page's words in its language (templates/_js_words.html writes them, keyed by their English): every script
// asks window.dpTr, defined once here; English when a word is absent. Loaded before the other deferred scripts,
// which run in document order once the page is parsed.
(function () {
  "use strict";
  var words = null;
  window.dpTr = function (en, vals) {
    if (words === null) {
      words = JSON.parse((document.getElementById("dp-words") || {}).textContent || "{}");
    }
    var s = words[en] || en;
    return vals ? s.replace(/%\((\w+)\)s/g, function (all, k) { return k in vals ? String(vals[k]) : all; }) : s;
  };
})();
