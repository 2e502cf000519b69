/* dippouch: progressive enhancement. Every page works without this file; with it:
   countdowns and local times, a live line check of the order box (the server's own arrival check),
   pick lists that write into the order box, map zoom, and click entry of orders on the map. */
(function () {
  "use strict";

  var csrf = (document.querySelector('meta[name="csrf"]') || {}).content || "";

  // ------------------------------------------------------------------ time
  function pad(n) { return n < 10 ? "0" + n : "" + n; }
  function left(ms) {
    if (ms <= 0) return "deadline passed";
    var s = Math.floor(ms / 1000), d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600),
        m = Math.floor((s % 3600) / 60), sec = s % 60;
    if (d > 0) return d + "d " + h + "h " + pad(m) + "m left";
    if (h > 0) return h + "h " + pad(m) + "m left";
    return m + "m " + pad(sec) + "s left";
  }
  function localText(iso) {
    var d = new Date(iso);
    if (isNaN(d)) return null;
    return d.toLocaleString(undefined, { weekday: "short", day: "numeric", month: "short", year: "numeric",
      hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
  }
  document.querySelectorAll("time[data-local]").forEach(function (t) {
    var text = localText(t.getAttribute("data-local"));
    if (text) { t.title = t.textContent; t.textContent = text; }
  });
  var clocks = document.querySelectorAll("[data-deadline]");
  function tick() {
    clocks.forEach(function (c) { c.textContent = left(new Date(c.getAttribute("data-deadline")) - new Date()); });
  }
  if (clocks.length) { tick(); setInterval(tick, 1000); }

  // ------------------------------------------------------------------ flash fades
  var flash = document.querySelector(".flash");
  if (flash) setTimeout(function () { flash.classList.add("seen"); }, 8000);

  // ------------------------------------------------------------------ live line check
  var box = document.getElementById("orders");
  var checks = document.getElementById("checks");
  var unorderedEl = document.getElementById("unordered");
  var checkUrl = box ? box.getAttribute("data-check-url") : null;
  var timer = null, seq = 0;
  // What each line of the box is about (the province of the unit or site it orders; "" for none), as the
  // server's line check says: a picked order replaces the line about the same thing, and nothing else.
  var subjectOf = {};
  function li(cls, parts) {
    var el = document.createElement("li");
    el.className = cls;
    parts.forEach(function (p) {
      var s = document.createElement(p[0]);
      if (p[1]) s.className = p[1];
      s.textContent = p[2];
      el.appendChild(s);
      el.appendChild(document.createTextNode(" "));
    });
    return el;
  }
  function showChecks(res) {
    checks.textContent = "";
    res.lines.forEach(function (ln) {
      var parts = ln.error
        ? [["span", "ln", ln.line], ["span", "verdict", "✗"], ["span", "txt", ln.text], ["span", "why", ln.error]]
        : [["span", "ln", ln.line], ["span", "verdict", "✓"], ["code", "", ln.order || ln.text]];
      if (ln.note) parts.push(["span", "note", ln.note]);
      checks.appendChild(li((ln.error ? "bad" : "ok") + (ln.note ? " noted" : ""), parts));
    });
    if (unorderedEl) {
      var notes = res.unordered_notes || [], list = unorderedEl.querySelector("ul");
      list.textContent = "";
      notes.forEach(function (n) {
        var item = document.createElement("li");
        item.textContent = n;
        list.appendChild(item);
      });
      unorderedEl.hidden = !notes.length;
    }
  }
  function learn(lines) {
    lines.forEach(function (ln) {
      var subject = ln.subject || "";
      subjectOf[ln.text.trim()] = subject;
      if (ln.order) subjectOf[ln.order] = subject;
    });
  }
  function ask(text) {
    return fetch(checkUrl, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify({ text: text })
    }).then(function (r) { return r.json().then(function (j) { return [r.status, j]; }); })
      .then(function (res) { if (res[0] === 200) learn(res[1].lines); return res; });
  }
  function runCheck() {
    var mine = ++seq;
    ask(box.value).then(function (res) {
      if (mine !== seq) return;
      if (res[0] === 200) showChecks(res[1]);
      else { checks.textContent = ""; checks.appendChild(li("bad", [["span", "why", res[1].error || "the check failed"]])); }
    }).catch(function () { /* offline: the check runs again on the next keystroke, and on sending */ });
  }
  if (box && checks && checkUrl) {
    box.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(runCheck, 250); });
    if (box.value.trim()) runCheck();
  }

  // ------------------------------------------------------------------ writing orders into the box
  // Every legal order's subject comes with the page; a line typed in another notation gets its subject
  // from the server's line check before a pick may replace it. A line whose subject is not known (the
  // check could not be reached) is never replaced: at worst the box holds a second order, which the
  // check flags.
  var dataEl = document.getElementById("legal-data");
  var legal = dataEl ? JSON.parse(dataEl.textContent || "[]") : [];
  legal.forEach(function (u) { u.orders.forEach(function (o) { subjectOf[o.text] = o.subject || ""; }); });
  var queue = Promise.resolve(), pending = 0;
  function unknownLines() {
    return box.value.split("\n").some(function (l) { return l.trim() && !(l.trim() in subjectOf); });
  }
  function place(text, subject) {
    var lines = box.value.split("\n"), done = false;
    for (var i = 0; i < lines.length; i++) {
      var l = lines[i].trim();
      if (!l) continue;
      var same = subject ? subjectOf[l] === subject : l === text;
      if (!same) continue;
      if (!done) { lines[i] = text; done = true; } else { lines.splice(i, 1); i--; }
    }
    if (!done) {
      while (lines.length && !lines[lines.length - 1].trim()) lines.pop();
      lines.push(text);
    }
    box.value = lines.join("\n");
    subjectOf[text] = subject || "";
    box.dispatchEvent(new Event("input"));
  }
  function putOrder(text, subject) {
    if (!box) return;
    if (!pending && !(checkUrl && unknownLines())) { place(text, subject); return; }
    pending++;
    queue = queue.then(function () {
      if (checkUrl && unknownLines()) return ask(box.value).catch(function () {});
    }).then(function () { place(text, subject); }, function () { place(text, subject); })
      .then(function () { pending--; }, function () { pending--; });
  }
  document.querySelectorAll("select[name^='pick:']").forEach(function (sel) {
    sel.addEventListener("change", function () {
      if (!sel.value) return;
      var opt = sel.options[sel.selectedIndex];
      putOrder(sel.value, opt.getAttribute("data-subject") || "");
      sel.value = "";
    });
  });
  // With the script on, picked orders go into the box at once, so the form must not add them again; a pick
  // still waiting for the line check is written into the box before the form goes.
  // A double click (or an impatient second click) on Send sends once: the first submission is the one that
  // goes; a page restored from the back/forward cache may send again.
  var form = document.getElementById("orders-form"), sent = false;
  if (form) form.addEventListener("submit", function (ev) {
    if (sent) { ev.preventDefault(); return; }
    sent = true;
    form.classList.add("sending");
    form.querySelectorAll("select[name^='pick:']").forEach(function (s) { s.value = ""; });
    if (pending) {
      ev.preventDefault();
      queue.then(function () { form.submit(); });
    }
  });
  window.addEventListener("pageshow", function (ev) {
    if (ev.persisted && form) { sent = false; form.classList.remove("sending"); }
  });

  // ------------------------------------------------------------------ map zoom
  document.querySelectorAll("[data-map]").forEach(function (fig) {
    var vp = fig.querySelector(".map-viewport"), zoom = 1;
    var tools = fig.querySelector(".map-tools");
    if (tools) tools.hidden = false;  // shown only where they work: with this script
    fig.querySelectorAll("[data-zoom]").forEach(function (b) {
      b.addEventListener("click", function () {
        var how = b.getAttribute("data-zoom");
        zoom = how === "in" ? Math.min(zoom * 1.5, 6) : how === "out" ? Math.max(zoom / 1.5, 1) : 1;
        vp.style.setProperty("--zoom", zoom);
      });
    });
  });

  // ------------------------------------------------------------------ click entry on the map
  var mapFig = document.querySelector("[data-interactive]");
  var bar = document.getElementById("clickbar");
  if (dataEl && mapFig && bar) {
    var byProv = {};
    legal.forEach(function (u) { byProv[u.province] = u; });
    var status = document.getElementById("click-status");
    var viewport = mapFig.querySelector(".map-viewport");
    var state = { unit: null, target: null };
    var chooser = null;
    bar.hidden = false;
    function mode() { var r = bar.querySelector("input[name=clickmode]:checked"); return r ? r.value : "move"; }
    function say(t) { status.textContent = t; }
    // The renderer names shapes r-ABBR, units unit-ABBR / dislodged-ABBR, names label-ABBR[-n] (with leader-ABBR beside a small province), centres sc-ABBR.
    var ID = /^(?:r|unit|dislodged|sc|label|leader)-(.+?)(?:-\d+)?$/;
    var REGION = /^r-(.+?)(?:-\d+)?$/;
    function shapeOf(p) {
      return mapFig.querySelector('[id="r-' + p + '"]') || mapFig.querySelector('[data-province="' + p + '"]');
    }
    function provinceOf(el) {
      for (var e = el; e && e !== mapFig; e = e.parentNode) {
        if (!e.getAttribute) continue;
        var p = e.getAttribute("data-unit") || e.getAttribute("data-province");
        if (!p) { var m = ID.exec(e.id || ""); if (m && (byProv[m[1]] || shapeOf(m[1]))) p = m[1]; }
        if (p) return p.toLowerCase().split("/")[0];
      }
      return null;
    }
    // A place is the province whose shape is under the pointer: unit tokens, names and centres drawn over a
    // small province (W3K's Deptford) must not take the click meant for the province beneath them.
    function regionOf(e) {
      if (!e || !e.getAttribute || !mapFig.contains(e)) return null;
      var p = e.getAttribute("data-province");
      if (!p) { var m = REGION.exec(e.id || ""); if (m) p = m[1]; }
      return p ? p.toLowerCase().split("/")[0] : null;
    }
    function regionAt(ev) {
      var p = regionOf(ev.target);
      if (p) return p;
      var els = document.elementsFromPoint(ev.clientX, ev.clientY);
      for (var i = 0; i < els.length; i++) { p = regionOf(els[i]); if (p) return p; }
      return null;
    }
    function mark(cls, provs) {
      mapFig.querySelectorAll("." + cls).forEach(function (e) { e.classList.remove(cls); });
      provs.forEach(function (p) { var e = shapeOf(p); if (e) e.classList.add(cls); });
    }
    function closeChooser() { if (chooser) { chooser.remove(); chooser = null; } }
    function reset(msg) {
      closeChooser(); state.unit = null; state.target = null; mark("picked", []); mark("target", []); say(msg || "");
    }
    function add(order) { putOrder(order.text, order.subject || ""); reset("Added: " + order.text); }
    // Several orders fit one click (a fleet arriving on either coast, what to build on a site): a small
    // chooser by the click offers exactly those, and nothing is added until one is chosen.
    function choose(title, options, label, x, y) {
      closeChooser();
      chooser = document.createElement("div");
      chooser.className = "chooser";
      chooser.setAttribute("role", "dialog");
      chooser.setAttribute("aria-label", title);
      var h = document.createElement("p");
      h.textContent = title;
      chooser.appendChild(h);
      options.forEach(function (o) {
        var b = document.createElement("button");
        b.type = "button";
        b.textContent = label(o);
        b.setAttribute("data-order", o.text);
        b.addEventListener("click", function (ev) { ev.stopPropagation(); add(o); });
        chooser.appendChild(b);
      });
      var c = document.createElement("button");
      c.type = "button";
      c.className = "cancel";
      c.textContent = "Cancel";
      c.addEventListener("click", function (ev) { ev.stopPropagation(); reset("Nothing added."); });
      chooser.appendChild(c);
      mapFig.appendChild(chooser);
      var f = mapFig.getBoundingClientRect(), w = chooser.offsetWidth, ht = chooser.offsetHeight;
      var left = Math.max(4, Math.min(x - f.left + 8, f.width - w - 4));
      var top = Math.max(4, Math.min(y - f.top + 8, f.height - ht - 4));
      chooser.style.left = left + "px";
      chooser.style.top = top + "px";
      say(title);
      chooser.querySelector("button").focus();
    }
    function coastName(o) { return o.coast ? o.coast : o.text; }
    function expectsPlace() {
      if (!state.unit) return false;
      return mode() === "move" || !!state.target;
    }
    function pick(p, x, y) {
      var m = mode();
      if (!state.unit) {
        var u = byProv[p];
        if (!u) { say("No order to give in " + p + ": click one of your units."); return; }
        var builds = u.orders.filter(function (o) { return o.type === "build"; });
        if (builds.length) {
          state.unit = u; mark("picked", [p]);
          if (builds.length === 1) { add(builds[0]); return; }
          choose("What to build in " + u.label.replace(/^Build site /, "") + "?", builds,
                 function (o) { return o.text; }, x, y);
          return;
        }
        if (u.orders.length && u.orders.every(function (o) { return o.type === "disband"; })) {
          state.unit = u; add(u.orders[0]); return;  // a removal: nothing else to choose
        }
        state.unit = u; mark("picked", [p]);
        var dests = u.orders.filter(function (o) { return o.dest && (o.type === "move" || o.type === "retreat"); })
          .map(function (o) { return o.dest; });
        if (m === "move") { mark("target", dests); say(u.label + ": click where it goes (click it again to hold)."); }
        else say(u.label + ": click the unit it " + (m === "support" ? "supports" : "convoys") + ".");
        return;
      }
      var orders = state.unit.orders;
      if (m === "move") {
        if (p === state.unit.province) {
          var h = orders.filter(function (o) { return o.type === "hold" || o.type === "disband"; })[0];
          if (h) add(h); else reset("That unit cannot hold here.");
          return;
        }
        var mv = orders.filter(function (o) { return (o.type === "move" || o.type === "retreat") && o.dest === p; });
        // By land (or sea) rather than by convoy when both are possible; by convoy only if nothing else.
        var direct = mv.filter(function (o) { return !o.via; });
        if (direct.length) mv = direct;
        if (!mv.length) { reset(state.unit.label + " cannot move to " + p + "."); return; }
        if (mv.length === 1) { add(mv[0]); return; }
        choose(state.unit.label + " to which coast?", mv, coastName, x, y);
        return;
      }
      var kind = m === "support" ? "support" : "convoy";
      if (!state.target) {
        if (!orders.some(function (o) { return o.type === kind && o.target === p; })) {
          reset(state.unit.label + " cannot " + kind + " a unit in " + p + "."); return;
        }
        state.target = p; mark("target", [p]);
        say("Now click where the " + kind + "ed unit goes" + (kind === "support" ? " (or the same unit again to support it holding)." : "."));
        return;
      }
      var want = orders.filter(function (o) {
        return o.type === kind && o.target === state.target && (p === state.target ? !o.dest : o.dest === p);
      });
      if (want.length) add(want[0]); else reset("That " + kind + " is not possible.");
    }
    viewport.addEventListener("click", function (ev) {
      // Choosing a unit, its token counts (else the province beneath); choosing a place, only the province.
      var token = expectsPlace() ? null : ev.target.closest && ev.target.closest("[data-unit]");
      var p = token ? provinceOf(token) : regionAt(ev) || provinceOf(ev.target);
      if (p) { ev.preventDefault(); pick(p, ev.clientX, ev.clientY); }
    });
    document.addEventListener("keydown", function (ev) { if (ev.key === "Escape" && (chooser || state.unit)) reset("Nothing added."); });
    bar.addEventListener("change", function () { reset(); });
  }

  // ------------------------------------------------------------------ new game: only the chosen variant's options
  var choice = document.getElementById("variant-choice");
  if (choice) {
    var showOptions = function () {
      document.querySelectorAll("[data-options-for]").forEach(function (f) {
        f.hidden = f.getAttribute("data-options-for") !== choice.value;
      });
      var note = document.querySelector("[data-options-note]");
      if (note) note.hidden = true;
    };
    choice.addEventListener("change", showOptions);
    showOptions();
  }

  // ------------------------------------------------------------------ filtering the variant key
  document.querySelectorAll("input[data-filter]").forEach(function (inp) {
    var rows = document.querySelectorAll(inp.getAttribute("data-filter") + " tbody tr");
    inp.hidden = false;
    inp.addEventListener("input", function () {
      var q = inp.value.trim().toLowerCase();
      rows.forEach(function (r) { r.hidden = q && r.textContent.toLowerCase().indexOf(q) < 0; });
    });
  });

  // ------------------------------------------------------------------ move browser: light up the moves on the map
  var moves = document.getElementById("moves");
  var fig = document.querySelector("[data-map]");
  if (moves && fig) {
    var light = function (p, cls) {
      fig.querySelectorAll('[id="r-' + p + '"], [data-province="' + p + '"]').forEach(function (e) { e.classList.add(cls); });
    };
    light(moves.getAttribute("data-from"), "picked");
    moves.querySelectorAll("[data-dest]").forEach(function (d) { light(d.getAttribute("data-dest").split("/")[0], "target"); });
    // A tall map (W3K) scrolls inside its frame: bring the chosen territory to the middle of the frame.
    var chosen = fig.querySelector('[id="r-' + moves.getAttribute("data-from") + '"]');
    var frame = fig.querySelector(".map-viewport");
    if (chosen && frame) {
      var c = chosen.getBoundingClientRect(), f = frame.getBoundingClientRect();
      frame.scrollTop += (c.top + c.height / 2) - (f.top + f.height / 2);
      frame.scrollLeft += (c.left + c.width / 2) - (f.left + f.width / 2);
    }
  }
})();
