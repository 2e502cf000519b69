/* dippouch press: messages sent in place and arriving without reloading (server-sent events). Every page works
   without this file. Message text is only ever set as text (textContent), never as HTML. */
(function () {
  "use strict";
  var csrf = (document.querySelector('meta[name="csrf"]') || {}).content || "";
  var panel = document.querySelector("[data-press-base]");
  var base = panel ? panel.getAttribute("data-press-base") : "";
  var me = panel ? panel.getAttribute("data-press-me") : "";
  var api = panel ? panel.getAttribute("data-press-api") : "";
  var tr = window.dpTr; // the page's words in its language (static/words.js)

  // A letter as a person reads it: bots' structured lines ("[dippouch] YES SUP ...") left out where a sentence
  // says the same (the page's own for_people filter does it for the letters it draws).
  function forPeople(text) {
    var kept = String(text).split("\n").filter(function (l) { return l.trim().indexOf("[dippouch]") !== 0; });
    return kept.join("\n").trim() ? kept.join("\n").trim() : String(text);
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // The same words as app.js writes for the server's times (time[data-local]): live and reloaded messages match.
  function localText(iso) {
    var d = new Date(iso);
    if (isNaN(d)) return iso;
    return d.toLocaleString(undefined, { weekday: "short", day: "numeric", month: "short", year: "numeric",
      hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
  }
  // The same words as the page's thread list (templates/_press.html).
  function label(kind, members) {
    if (kind === "announcement") return tr("Announcements from the coordinator");
    if (kind === "public") return tr("Everyone (public)");
    var others = members.filter(function (p) { return p !== me; }).join(", ");
    return kind === "group" ? others + " " + tr("(group)") : others;
  }
  // A message as templates/_press.html draws it, with its report form for what others wrote.
  function messageItem(m) {
    var li = el("li", "press-msg" + (m.mine ? " mine" : "") + (m.held ? " held" : ""));
    li.setAttribute("data-id", m.id);
    var meta = el("p", "press-meta");
    meta.appendChild(el("strong", "press-sender", m.sender));
    meta.appendChild(document.createTextNode(" "));
    var t = el("time", null, localText(m.sent_at));
    t.setAttribute("datetime", m.sent_at);
    meta.appendChild(t);
    if (m.held) {
      meta.appendChild(document.createTextNode(" "));
      meta.appendChild(el("span", "tag warn", tr("held until the phase's results")));
    }
    li.appendChild(meta);
    li.appendChild(el("p", "press-text", forPeople(m.text)));
    if (!m.mine && !m.held && base) {
      var d = el("details", "press-report");
      d.appendChild(el("summary", null, tr("Report to the coordinator")));
      var f = el("form");
      f.method = "post";
      f.action = base + "/press-report/" + m.id;
      var h = el("input");
      h.type = "hidden"; h.name = "csrf"; h.value = csrf;
      var lab = el("label", null, tr("Why") + " ");
      var why = el("input");
      why.name = "reason"; why.maxLength = 2000;
      lab.appendChild(why);
      f.appendChild(h); f.appendChild(lab); f.appendChild(document.createTextNode(" ")); f.appendChild(el("button", null, tr("Report")));
      d.appendChild(f);
      li.appendChild(d);
    }
    return li;
  }
  function append(list, m) {
    if (list.querySelector('[data-id="' + m.id + '"]')) return false;
    // A new phase's first message gets the phase's mark, as the channel's page draws it.
    var marks = list.querySelectorAll("li.press-phase");
    if (marks.length || list.id === "press-messages") {
      var lastPhase = marks.length ? marks[marks.length - 1].getAttribute("data-phase") : null;
      if (m.phase !== undefined && m.phase !== lastPhase) {
        // The phase's name in the page's words, a word at a time as the server says it (Frühjahr 1901 Bewegung).
        var said = m.phase ? m.phase.split(" ").map(function (w) { return tr(w); }).join(" ") : "";
        var mark = el("li", "press-phase", said || tr("After the game"));
        mark.setAttribute("role", "separator");
        mark.setAttribute("data-phase", m.phase);
        list.appendChild(mark);
      }
    }
    list.appendChild(messageItem(m));
    return true;
  }
  function markRead(channel, id) {
    if (!api) return;
    fetch(api + "/channels/" + channel + "/read", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify({ up_to: id })
    });
  }
  function setCount(badge, n) {
    if (!badge) return;
    badge.setAttribute("data-count", String(n));
    badge.textContent = tr("%(count)s unread", { count: n });
    badge.hidden = n <= 0;
  }
  function total(delta) {
    ["press-unread", "press-tab"].forEach(function (id) {
      var node = document.getElementById(id);
      if (!node) return;
      var badge = node.classList.contains("unread") ? node : node.querySelector(".unread");
      if (!badge && delta > 0) {
        badge = el("span", "unread", "");
        badge.setAttribute("data-count", "0");
        node.appendChild(document.createTextNode(" "));
        node.appendChild(badge);
      }
      if (badge) setCount(badge, Math.max(0, parseInt(badge.getAttribute("data-count") || "0", 10) + delta));
    });
  }
  var threads = document.getElementById("press-threads");
  var inline = !!(panel && panel.hasAttribute("data-press-inline"));

  // A thread of the player's page (inline: its messages under a summary), made when its first message comes.
  function thread(channel, kind, members) {
    var li = threads ? threads.querySelector('li[data-channel="' + channel + '"]') : null;
    if (li || !threads) return li;
    var none = kind === "announcement" ? threads.querySelector('li[data-channel="0"]') : null;
    if (none) none.parentNode.removeChild(none);  // "none yet": the first announcement is here
    li = el("li");
    li.setAttribute("data-channel", channel);
    li.id = "thread-" + channel;
    if (inline) {
      var d = el("details", "press-thread");
      d.setAttribute("data-channel", channel);
      var s = el("summary");
      s.appendChild(el("span", "press-thread-label", label(kind, members)));
      s.appendChild(document.createTextNode(" "));
      var u = el("span", "unread", "");
      u.setAttribute("data-count", "0");
      u.hidden = true;
      s.appendChild(u);
      d.appendChild(s);
      var ol = el("ol", "press-messages");
      ol.setAttribute("data-channel", channel);
      d.appendChild(ol);
      var p = el("p", "small press-whole");
      var a = el("a", null, tr("Open this conversation on its own page"));
      a.href = base + "/press/" + channel;
      p.appendChild(a);
      d.appendChild(p);
      // Its reply box, as the page draws one where the rules let players write (the page has a compose box).
      if (kind !== "announcement" && document.getElementById("press-compose")) {
        var box = el("div", "press-compose press-reply");
        box.setAttribute("data-channel", channel);
        var area = el("textarea");
        area.rows = 2;
        area.id = "reply-" + channel;
        area.setAttribute("aria-label", tr("Reply to %(thread)s", { thread: label(kind, members) }));
        area.placeholder = tr("Reply to %(thread)s", { thread: label(kind, members) });
        var limit = document.getElementById("press-text");
        if (limit && limit.maxLength > 0) area.maxLength = limit.maxLength;
        var send = el("button", "primary", tr("Send reply"));
        send.setAttribute("data-press-send", "");
        send.setAttribute("data-channel", channel);
        send.type = "button";
        box.appendChild(area);
        box.appendChild(document.createTextNode(" "));
        box.appendChild(send);
        box.appendChild(document.createTextNode(" "));
        var st = el("span", "press-status small");
        st.setAttribute("role", "status");
        box.appendChild(st);
        d.appendChild(box);
        bindSend(send);
      }
      watch(d);
      li.appendChild(d);
    } else {
      var link = el("a", null, label(kind, members));
      link.href = base + "/press/" + channel;
      li.appendChild(link);
      li.appendChild(document.createTextNode(" "));
      var badge = el("span", "unread", "");
      badge.setAttribute("data-count", "0");
      badge.hidden = true;
      li.appendChild(badge);
    }
    // After the announcements, which stay first.
    var first = threads.firstElementChild;
    var after = first && first.getAttribute("data-channel") === "0" ? first.nextSibling : first;
    threads.insertBefore(li, after);
    return li;
  }
  // An inline thread opened is a thread read: its unread messages are marked read and its badges go down.
  function watch(d) {
    d.addEventListener("toggle", function () {
      if (!d.open) return;
      var badge = d.querySelector("summary .unread");
      var n = badge ? parseInt(badge.getAttribute("data-count") || "0", 10) : 0;
      var last = d.querySelector("ol.press-messages li.press-msg:last-child");
      if (n > 0 && last) {
        markRead(d.getAttribute("data-channel"), parseInt(last.getAttribute("data-id"), 10));
        setCount(badge, 0);
        total(-n);
      }
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll("details.press-thread"), function (d) {
    watch(d);
    if (d.open) d.dispatchEvent(new Event("toggle"));
  });

  // What the live stream (below) does with a message: into the open channel's list (a channel's page), or into
  // its inline thread (the player's page), counted unread unless its thread is open before the reader.
  window.dippouchPress = {
    arrive: function (m, list, open) {
      if (list && String(m.channel) === open) {
        if (append(list, m) && !m.mine) markRead(m.channel, m.id);
        return;
      }
      var fresh = !!threads && !threads.querySelector('li[data-channel="' + m.channel + '"]');
      var li = thread(m.channel, m.kind, m.members || []);
      if (!li) return;
      var inl = li.querySelector("ol.press-messages");
      var added = inl ? append(inl, m) : true;
      if (!added || m.mine) return;
      var det = li.querySelector("details");
      // A conversation that begins now opens with its first message shown, as it is read like one already
      // open (it arrived folded: a badge, not the message; the players' trial, issue 55).
      if (fresh && det) det.open = true;
      if (det && det.open) {
        markRead(m.channel, m.id);
        return;
      }
      var badge = li.querySelector(".unread");
      setCount(badge, parseInt(badge.getAttribute("data-count") || "0", 10) + 1);
      total(1);
    }
  };

  // With the script the press is sent in place, so the orders form sends its orders only: the press boxes that
  // belong to it (for the way without the script) stay out of what it posts.
  var orders = document.getElementById("orders-form");
  if (orders && panel) orders.addEventListener("formdata", function (ev) {
    Array.from(ev.formData.keys()).forEach(function (k) {
      if (k === "text" || k === "to" || k === "all" || k === "channel" || k.indexOf("text-") === 0) ev.formData.delete(k);
    });
  });

  // ------------------------------------------------------------------ sending in place
  // A Send button of the panel sends its box through the JSON API: the page stays, and with it the orders
  // typed and not sent. A refused message stays in its box with the rule's words beside it.
  function boxOf(button) {
    return button.closest(".press-compose");
  }
  function say(box, text, refused) {
    var status = box.querySelector(".press-status");
    var old = box.querySelector(".press-refusal");
    if (old) old.parentNode.removeChild(old);
    if (refused) {
      var note = el("p", "press-refusal", text);
      note.setAttribute("role", "alert");
      box.insertBefore(note, box.firstChild);
      if (status) status.textContent = "";
    } else if (status) {
      status.textContent = text;
    }
  }
  Array.prototype.forEach.call(document.querySelectorAll("[data-press-send]"), bindSend);
  function bindSend(button) {
    var box = boxOf(button);
    if (!box || !api || !window.fetch) return;
    button.addEventListener("click", function (ev) {
      ev.preventDefault();
      if (box.getAttribute("data-sending")) return;
      var area = box.querySelector("textarea");
      var channel = button.getAttribute("data-channel");
      var body, to = [];
      if (channel) {
        body = { text: area.value };
      } else {
        var all = box.querySelector("input[name=all]");
        if (all && (all.type === "hidden" || all.checked)) to = ["all"];
        else Array.prototype.forEach.call(box.querySelectorAll("input[name=to]:checked"), function (c) { to.push(c.value); });
        body = { to: to, text: area.value };
      }
      box.setAttribute("data-sending", "1");
      button.setAttribute("aria-disabled", "true");
      // ?lang: a refusal comes back in the page's language (the JSON API's is English otherwise).
      var lang = document.documentElement.lang || "en";
      fetch(api + (channel ? "/channels/" + channel : "") + "?lang=" + encodeURIComponent(lang), {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
        body: JSON.stringify(body)
      }).then(function (r) {
        return r.json().then(function (d) { return { ok: r.ok, d: d }; }, function () { return { ok: false, d: {} }; });
      }).then(function (got) {
        if (!got.ok) {
          say(box, got.d.error || got.d.detail || tr("Not sent: the site refused the message."), true);
          return;
        }
        var d = got.d;
        var members = to.indexOf("all") >= 0 ? [] : to.concat([me]);
        var li = thread(d.channel, d.kind, members);
        var list = li ? li.querySelector("ol.press-messages") : document.getElementById("press-messages");
        if (list) {
          append(list, { id: d.id, channel: d.channel, sender: me, text: area.value.trim(), sent_at: new Date().toISOString(),
            held: d.held, mine: true, kind: d.kind });
          var det = list.closest("details");
          if (det) det.open = true;
        }
        area.value = "";
        Array.prototype.forEach.call(box.querySelectorAll("input[type=checkbox]"), function (c) { c.checked = false; });
        say(box, d.held ? tr("Held until the phase's results (postal press).") : tr("Sent."), false);
      }).catch(function () {
        say(box, tr("Not sent: the site did not answer. Your message is still in the box; send it again."), true);
      }).then(function () {
        box.removeAttribute("data-sending");
        button.removeAttribute("aria-disabled");
      });
    });
  }
})();
/* A channel's page: a refused reply's words come back into its box (the page after a refusal is a fresh one,
   whose box would be empty), and a form goes once. */
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
  Array.prototype.forEach.call(document.querySelectorAll("form#press-reply-form"), function (form) {
    var box = form.querySelector("textarea[name=text]");
    var button = form.querySelector("button");
    if (refused && saved && box && saved.form === form.id && saved.page === location.pathname && !box.value) {
      box.value = saved.text;
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
        try {
          keep.setItem(KEY, JSON.stringify({ form: form.id, page: location.pathname, text: box.value }));
        } catch (e) { /* full or refused: the page still sends */ }
      }
    });
  });
  window.addEventListener("pageshow", function (ev) {
    if (!ev.persisted) return;
    Array.prototype.forEach.call(document.querySelectorAll("form[data-sending]"), function (form) {
      form.removeAttribute("data-sending");
      var button = form.querySelector("button");
      if (button) button.removeAttribute("aria-disabled");
    });
  });
})();
/* Messages as they arrive: into the open channel's list, or the inline thread's, else a thread's unread count. */
(function () {
  "use strict";
  var tr = window.dpTr; // the page's words in its language (static/words.js)
  var panel = document.querySelector("[data-press-events]");
  if (!panel || !window.EventSource) return;
  var live = document.getElementById("press-live");
  var list = document.getElementById("press-messages");
  var open = list ? list.getAttribute("data-channel") : null;
  var source = new EventSource(panel.getAttribute("data-press-events"));
  source.addEventListener("press", function (ev) {
    var m = JSON.parse(ev.data);
    var hooks = window.dippouchPress;
    if (hooks) hooks.arrive(m, list, open);
    if (live && !m.mine) live.textContent = tr("New message from %(sender)s.", { sender: m.sender });
  });
  // The server ends the stream when the key was revoked or the session signed out: no reconnecting.
  source.addEventListener("denied", function () {
    source.close();
    if (live) live.textContent = tr("Live press stopped: sign in again to see new messages.");
  });
})();
