/* dippouch press: messages arrive without reloading (server-sent events). Every page works without this file.
   Message text is only ever set as text (textContent), never as HTML. */
/* Sending: a form goes once (a second click while the first is on its way would send the message twice),
   and a refused message's text comes back into its box and its powers ticked again (the page after a refusal
   is a fresh one, whose box would be empty: the player's words are not lost). */
(function () {
  "use strict";
  var KEY = "dippouch-press-draft";
  var flash = document.querySelector(".flash");
  var refused = !!flash && /^not sent \(/.test(flash.textContent);
  var saved = null;
  var keep = null;
  try {
    keep = window.sessionStorage;
    saved = JSON.parse(keep.getItem(KEY) || "null");
    keep.removeItem(KEY);
  } catch (e) {
    keep = null;
  }
  Array.prototype.forEach.call(document.querySelectorAll("form.press-compose"), function (form) {
    var box = form.querySelector("textarea[name=text]");
    var button = form.querySelector("button");
    if (refused && saved && box && saved.form === form.id && saved.page === location.pathname && !box.value) {
      box.value = saved.text;
      Array.prototype.forEach.call(form.querySelectorAll("input[type=checkbox]"), function (c) {
        c.checked = saved.ticked.indexOf(c.name + "=" + c.value) >= 0;
      });
      // The page opens at the press panel, far below the flash at its top: the refusal is said here too,
      // beside the words it refused, and the flash (green, as for a message sent) is hidden.
      var note = document.createElement("p");
      note.className = "press-refusal";
      note.setAttribute("role", "alert");
      note.textContent = flash.textContent;
      form.insertBefore(note, form.firstChild);
      flash.hidden = true;
    }
    form.addEventListener("submit", function (ev) {
      if (form.getAttribute("data-sending")) {
        ev.preventDefault();
        return;
      }
      form.setAttribute("data-sending", "1");
      if (button) button.setAttribute("aria-disabled", "true");
      if (keep && box) {
        var ticked = [];
        Array.prototype.forEach.call(form.querySelectorAll("input[type=checkbox]:checked"), function (c) {
          ticked.push(c.name + "=" + c.value);
        });
        try {
          keep.setItem(KEY, JSON.stringify({ form: form.id, page: location.pathname, text: box.value, ticked: ticked }));
        } catch (e) { /* full or refused: the page still sends */ }
      }
    });
  });
  // Back to this page from the browser's history: the form may send again.
  window.addEventListener("pageshow", function (ev) {
    if (!ev.persisted) return;
    Array.prototype.forEach.call(document.querySelectorAll("form.press-compose[data-sending]"), function (form) {
      form.removeAttribute("data-sending");
      var button = form.querySelector("button");
      if (button) button.removeAttribute("aria-disabled");
    });
  });
})();
(function () {
  "use strict";
  var panel = document.querySelector("[data-press-events]");
  if (!panel || !window.EventSource) return;
  var base = panel.getAttribute("data-press-base");
  var me = panel.getAttribute("data-press-me");
  var csrf = (document.querySelector('meta[name="csrf"]') || {}).content || "";
  var list = document.getElementById("press-messages");
  var live = document.getElementById("press-live");
  var open = list ? list.getAttribute("data-channel") : null;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function appendMessage(m) {
    if (list.querySelector('[data-id="' + m.id + '"]')) return;
    // A new phase's first message gets the phase's mark, as the page draws it (templates/_press.html).
    var marks = list.querySelectorAll("li.press-phase");
    var lastPhase = marks.length ? marks[marks.length - 1].getAttribute("data-phase") : null;
    if (m.phase !== undefined && m.phase !== lastPhase) {
      var mark = el("li", "press-phase", m.phase || "After the game");
      mark.setAttribute("role", "separator");
      mark.setAttribute("data-phase", m.phase);
      list.appendChild(mark);
    }
    var li = el("li", "press-msg" + (m.mine ? " mine" : ""));
    li.setAttribute("data-id", m.id);
    var meta = el("p", "press-meta");
    meta.appendChild(el("strong", "press-sender", m.sender));
    meta.appendChild(document.createTextNode(" " + new Date(m.sent_at).toLocaleString()));
    li.appendChild(meta);
    li.appendChild(el("p", "press-text", m.text));
    list.appendChild(li);
    var empty = document.getElementById("press-empty");
    if (empty) empty.hidden = true;
    if (!m.mine) {
      // Read as it arrives on the open channel.
      var parts = base.split("/");
      fetch("/api/games/" + parts[2] + "/powers/" + parts[4] + "/press/channels/" + m.channel + "/read", {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
        body: JSON.stringify({ up_to: m.id })
      });
    }
  }
  // The same words as the page's thread list (templates/_press.html).
  function label(m) {
    if (m.kind === "announcement") return "Announcements from the coordinator";
    if (m.kind === "public") return "Everyone (public)";
    var others = m.members.filter(function (p) { return p !== me; }).join(", ");
    return m.kind === "group" ? others + " (group)" : others;
  }
  function bump(m) {
    var threads = document.getElementById("press-threads");
    if (!threads) return;
    var li = threads.querySelector('[data-channel="' + m.channel + '"]');
    if (!li) {
      li = el("li");
      li.setAttribute("data-channel", m.channel);
      var a = el("a", null, label(m));
      a.href = base + "/press/" + m.channel + "#press";
      li.appendChild(a);
      li.appendChild(document.createTextNode(" "));
      var u = el("span", "unread", "");
      u.setAttribute("data-count", "0");
      li.appendChild(u);
      threads.insertBefore(li, threads.firstChild);
    }
    if (m.mine) return;
    var badge = li.querySelector(".unread");
    var n = parseInt(badge.getAttribute("data-count") || "0", 10) + 1;
    badge.setAttribute("data-count", String(n));
    badge.textContent = n + " unread";
    badge.hidden = false;
  }
  var source = new EventSource(panel.getAttribute("data-press-events"));
  source.addEventListener("press", function (ev) {
    var m = JSON.parse(ev.data);
    if (list && String(m.channel) === open) appendMessage(m);
    else bump(m);
    if (live && !m.mine) live.textContent = "New message from " + m.sender + ".";
  });
  // The server ends the stream when the key was revoked or the session signed out: no reconnecting.
  source.addEventListener("denied", function () {
    source.close();
    if (live) live.textContent = "Live press stopped: sign in again to see new messages.";
  });
})();
