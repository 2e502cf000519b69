/* dippouch coach hints: a form [data-hint] (a practice game's page, a sandbox) asks its JSON route for the search
   bot's orders and shows them under it, without leaving the page. Without this file the form opens the JSON answer
   itself. The words come from the form's data-said-* attributes, written by the page in its language. */
(function () {
  "use strict";
  Array.prototype.forEach.call(document.querySelectorAll("form[data-hint]"), function (form) {
    var out = form.querySelector("[data-hint-out]");
    var button = form.querySelector("button");
    if (!out || !window.fetch) return;
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var params = new URLSearchParams(new FormData(form));
      out.textContent = form.getAttribute("data-said-thinking") || "";
      if (button) button.disabled = true;
      fetch(form.action + "?" + params.toString(), { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); })
        .then(function (got) {
          out.textContent = "";
          if (!got.ok) {
            out.textContent = got.body && got.body.error ? got.body.error : String(got.body);
            return;
          }
          var list = document.createElement("ul");
          list.className = "hint-orders";
          (got.body.orders || []).forEach(function (o) {
            var li = document.createElement("li");
            var code = document.createElement("code");
            code.textContent = o;
            li.appendChild(code);
            list.appendChild(li);
          });
          var said = document.createElement("p");
          said.className = "small muted";
          said.textContent = (form.getAttribute("data-said-expected") || "").replace("%(centres)s", String(got.body.expected));
          out.appendChild(list);
          out.appendChild(said);
        })
        .catch(function () { out.textContent = form.getAttribute("data-said-failed") || ""; })
        .then(function () { if (button) button.disabled = false; });
    });
  });
})();
