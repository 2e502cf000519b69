/* dippouch press: messages arrive without reloading (server-sent events). Every page works without this file.
   Message text is only ever set as text (textContent), never as HTML. */
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
