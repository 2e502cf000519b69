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
  var timer = null, seq = 0;
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
  function showChecks(lines) {
    checks.textContent = "";
    lines.forEach(function (ln) {
      if (ln.error) {
        checks.appendChild(li("bad", [["span", "ln", ln.line], ["span", "verdict", "✗"], ["span", "txt", ln.text], ["span", "why", ln.error]]));
      } else {
        checks.appendChild(li("ok", [["span", "ln", ln.line], ["span", "verdict", "✓"], ["code", "", ln.order]]));
      }
    });
  }
  function runCheck() {
    var mine = ++seq;
    fetch(box.getAttribute("data-check-url"), {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify({ text: box.value })
    }).then(function (r) { return r.json().then(function (j) { return [r.status, j]; }); })
      .then(function (res) {
        if (mine !== seq) return;
        if (res[0] === 200) showChecks(res[1].lines);
        else { checks.textContent = ""; checks.appendChild(li("bad", [["span", "why", res[1].error || "the check failed"]])); }
      })
      .catch(function () { /* offline: the check runs again on the next keystroke, and on sending */ });
  }
  if (box && checks && box.getAttribute("data-check-url")) {
    box.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(runCheck, 250); });
    if (box.value.trim()) runCheck();
  }

  // ------------------------------------------------------------------ writing orders into the box
  function head(text) { return text.trim().toLowerCase().split(/\s+/).slice(0, 2).join(" ").replace(/\/[a-z]+$/, ""); }
  function putOrder(text, province) {
    if (!box) return;
    var lines = box.value.split("\n"), key = head(text), done = false;
    for (var i = 0; i < lines.length; i++) {
      var l = lines[i];
      if (l.trim() && (head(l) === key || (province && lineProvince[l.trim()] === province))) {
        if (!done) { lines[i] = text; done = true; } else { lines.splice(i, 1); i--; }
      }
    }
    if (!done) {
      while (lines.length && !lines[lines.length - 1].trim()) lines.pop();
      lines.push(text);
    }
    box.value = lines.join("\n");
    if (province) lineProvince[text] = province;
    box.dispatchEvent(new Event("input"));
  }
  var lineProvince = {};
  document.querySelectorAll("select[name^='pick:']").forEach(function (sel) {
    sel.addEventListener("change", function () {
      if (!sel.value) return;
      putOrder(sel.value, sel.getAttribute("data-province"));
      sel.value = "";
    });
  });
  // With the script on, picked orders go into the box at once, so the form must not add them again.
  var form = document.getElementById("orders-form");
  if (form) form.addEventListener("submit", function () {
    form.querySelectorAll("select[name^='pick:']").forEach(function (s) { s.value = ""; });
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
  var dataEl = document.getElementById("legal-data");
  var mapFig = document.querySelector("[data-interactive]");
  var bar = document.getElementById("clickbar");
  if (dataEl && mapFig && bar) {
    var legal = JSON.parse(dataEl.textContent || "[]");
    var byProv = {}, byProvAll = {};
    legal.forEach(function (u) { byProv[u.province] = u; byProvAll[u.province] = true; });
    var status = document.getElementById("click-status");
    var state = { unit: null, target: null };
    bar.hidden = false;
    function mode() { var r = bar.querySelector("input[name=clickmode]:checked"); return r ? r.value : "move"; }
    function say(t) { status.textContent = t; }
    // The renderer names shapes r-ABBR, units unit-ABBR / dislodged-ABBR, names label-ABBR[-n] (with leader-ABBR beside a small province), centres sc-ABBR.
    var ID = /^(?:r|unit|dislodged|sc|label|leader)-(.+?)(?:-\d+)?$/;
    function provinceOf(el) {
      for (var e = el; e && e !== mapFig; e = e.parentNode) {
        if (!e.getAttribute) continue;
        var p = e.getAttribute("data-unit") || e.getAttribute("data-province");
        if (!p) { var m = ID.exec(e.id || ""); if (m && (byProvAll[m[1]] || shapeOf(m[1]))) p = m[1]; }
        if (p) return p.toLowerCase().split("/")[0];
      }
      return null;
    }
    function shapeOf(p) {
      return mapFig.querySelector('[id="r-' + p + '"]') || mapFig.querySelector('[data-province="' + p + '"]');
    }
    function mark(cls, provs) {
      mapFig.querySelectorAll("." + cls).forEach(function (e) { e.classList.remove(cls); });
      provs.forEach(function (p) { var e = shapeOf(p); if (e) e.classList.add(cls); });
    }
    function reset(msg) { state.unit = null; state.target = null; mark("picked", []); mark("target", []); say(msg || ""); }
    function add(order) { putOrder(order.text, state.unit.province); reset("Added: " + order.text); }
    function pick(p) {
      var m = mode();
      if (!state.unit) {
        var u = byProv[p];
        if (!u) { say("No order to give in " + p + ": click one of your units."); return; }
        if (u.orders.length && u.orders.every(function (o) { return o.type === "build" || o.type === "waive"; })) {
          var builds = u.orders.filter(function (o) { return o.type === "build"; });
          if (builds.length === 1) { state.unit = u; add(builds[0]); return; }
          var sel = document.querySelector('select[data-province="' + p + '"]');
          if (sel) { sel.closest("details").open = true; sel.focus(); }
          say("Choose what to build in " + u.label.replace(/^Build site /, "") + " from the list.");
          return;
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
        mv.sort(function (a, b) { return (a.via ? 1 : 0) - (b.via ? 1 : 0); });
        if (mv.length) add(mv[0]); else reset(state.unit.label + " cannot move to " + p + ".");
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
    mapFig.querySelector(".map-viewport").addEventListener("click", function (ev) {
      var p = provinceOf(ev.target);
      if (p) { ev.preventDefault(); pick(p); }
    });
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
