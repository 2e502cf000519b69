/* dippouch: progressive enhancement. Every page works without this file; with it:
   countdowns and local times, a live line check of the order box (the server's own arrival check),
   pick lists that write into the order box, map zoom, and click entry of orders on the map. */
(function () {
  "use strict";

  var csrf = (document.querySelector('meta[name="csrf"]') || {}).content || "";
  var tr = window.dpTr; // the page's words in its language (static/words.js)

  // ------------------------------------------------------------------ time
  function pad(n) { return n < 10 ? "0" + n : "" + n; }
  function left(ms) {
    if (ms <= 0) return tr("deadline passed");
    var s = Math.floor(ms / 1000), d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600),
        m = Math.floor((s % 3600) / 60), sec = s % 60;
    if (d > 0) return tr("%(d)sd %(h)sh %(m)sm left", { d: d, h: h, m: pad(m) });
    if (h > 0) return tr("%(h)sh %(m)sm left", { h: h, m: pad(m) });
    return tr("%(m)sm %(s)ss left", { m: m, s: pad(sec) });
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
  // ------------------------------------------------------------------ a list that follows another
  // A select with data-follows="NAME" shows only the option groups for the value chosen in its form's NAME
  // select (the practice form's powers: every variant's are in the page, 376 of them, for use without script).
  document.querySelectorAll("select[data-follows]").forEach(function (sel) {
    var lead = sel.form && sel.form.elements[sel.getAttribute("data-follows")];
    if (!lead) return;
    // The other values' groups are taken out of the list, not hidden: a hidden option is still found by its
    // value (two variants have a France), and a screen reader's list would read them.
    var groups = Array.prototype.slice.call(sel.querySelectorAll("optgroup[data-for]"));
    function follow() {
      var chosen = sel.value;
      groups.forEach(function (g) { if (g.parentNode) g.parentNode.removeChild(g); });
      groups.forEach(function (g) { if (g.getAttribute("data-for") === lead.value) sel.appendChild(g); });
      sel.value = chosen;
      if (sel.value !== chosen) sel.value = sel.options[0].value;
    }
    lead.addEventListener("change", follow);
    follow();
  });

  var clocks = document.querySelectorAll("[data-deadline]");
  function tick() {
    // Written only when what it shows changes (a minute, or a second in the last hour): a text set to itself
    // is still a change to the page, laid out and painted again every second.
    clocks.forEach(function (c) {
      var text = left(new Date(c.getAttribute("data-deadline")) - new Date());
      if (c.textContent !== text) c.textContent = text;
    });
  }
  if (clocks.length) { tick(); setInterval(tick, 1000); }

  // ------------------------------------------------------------------ flash: shown, announced, fades
  // A screen reader announces what changes in a live region, not what a region holds when the page arrives:
  // the message ("Sent.", a refusal) is written into the page's empty status region (a refusal into its alert
  // region) a moment after the page has loaded, once the region is known to the reader. The message shown on
  // the page is then hidden from the reader, which would otherwise meet it twice.
  var flash = document.getElementById("flash");
  if (flash) {
    setTimeout(function () { flash.classList.add("seen"); }, 8000);
    var region = document.getElementById(flash.classList.contains("flash-error") ? "announce-alert" : "announce");
    if (region) setTimeout(function () {
      region.textContent = flash.textContent;
      flash.setAttribute("aria-hidden", "true");
    }, 400);
  }
  // A page refused while its asker's share of the server's work is spent (429/503 with a short wait): asked again
  // once the wait is over, unless the reader says not to (a page that changes by itself must let them stop it).
  var retry = document.getElementById("retry");
  if (retry) {
    var again = setTimeout(function () { location.reload(); }, (Number(retry.dataset.retryIn) || 5) * 1000 + 300);
    var stop = document.getElementById("retry-stop");
    if (stop) {
      stop.hidden = false;
      stop.addEventListener("click", function () { clearTimeout(again); stop.hidden = true; });
    }
  }
  // Orders refused: what the player must read first, so the keyboard (and the reader) go to it at once, and the
  // view too (focus alone scrolls it only just into view: on a phone, one line under the board).
  var refusal = document.getElementById("refusal");
  if (refusal) {
    refusal.focus({ preventScroll: true });
    refusal.scrollIntoView({ block: "center" });
  }

  // ------------------------------------------------------------------ skip link
  // Following the link moves the keyboard there too (not only the view), in every browser.
  document.querySelectorAll("a.skip").forEach(function (a) {
    a.addEventListener("click", function (ev) {
      var target = document.getElementById(a.getAttribute("href").slice(1));
      if (!target) return;
      ev.preventDefault();
      target.focus();
      target.scrollIntoView();
    });
  });

  // ------------------------------------------------------------------ wide tables
  // A table wider than its box scrolls sideways (.scroll-x): a keyboard must reach it to scroll it, and a
  // reader hears what it is (its caption, or the heading above it). Only those that do overflow become a Tab
  // stop; the records' centre table, nine columns on a phone, is one from the template itself.
  function scrollables() {
    document.querySelectorAll(".scroll-x:not([tabindex])").forEach(function (wrap) {
      if (wrap.scrollWidth <= wrap.clientWidth + 1) return;
      var caption = wrap.querySelector("caption"), card = wrap.closest("section, .card");
      var heading = card && card.querySelector("h2, h3");
      var name = (caption || heading || {}).textContent || "";
      wrap.setAttribute("tabindex", "0");
      wrap.setAttribute("role", "region");
      if (name.trim()) wrap.setAttribute("aria-label", name.trim());
    });
  }
  scrollables();
  window.addEventListener("resize", scrollables);

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
  // The orders in the box drawn on the map as they are typed, before they are sent: the line check answers
  // each accepted line with the renderer's own drawing of it (the marks of a sent order, with a white
  // casing); this only puts them on the board, over the orders already drawn, and replaces them at each check.
  var SVGNS = "http://www.w3.org/2000/svg";
  function drawDrafts(lines) {
    var board = document.querySelector("[data-interactive] svg g.board") || document.querySelector("[data-map] svg g.board");
    if (!board || !window.DOMParser) return;
    var layer = board.querySelector("g.drafts");
    if (!layer) {
      layer = document.createElementNS(SVGNS, "g");
      layer.setAttribute("class", "drafts");
      board.appendChild(layer);
    }
    layer.textContent = "";
    lines.forEach(function (ln) {
      if (!ln.draft) return;
      var doc = new DOMParser().parseFromString('<svg xmlns="' + SVGNS + '">' + ln.draft + "</svg>", "image/svg+xml");
      var g = doc.documentElement.firstElementChild;
      if (!g || doc.getElementsByTagName("parsererror").length) return;
      g = document.importNode(g, true);
      g.setAttribute("data-line", ln.line);
      layer.appendChild(g);
    });
  }
  function showChecks(res) {
    drawDrafts(res.lines);
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
  // And what each line says in the lists' words (the order the line check read in it), so a line typed in
  // another notation shows in its unit's list.
  var orderOf = {};
  function learn(lines) {
    lines.forEach(function (ln) {
      var subject = ln.subject || "";
      subjectOf[ln.text.trim()] = subject;
      if (ln.order) { subjectOf[ln.order] = subject; if (!ln.error) orderOf[ln.text.trim()] = ln.order; }
    });
    syncPicks();
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
      else { checks.textContent = ""; checks.appendChild(li("bad", [["span", "why", res[1].error || tr("the check failed")]])); }
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
  // A unit's list shows the order the box holds for it, and nothing picked when the box holds none (or one
  // the list does not offer): a pick stays shown, and an edit of the box by hand is shown in the lists. A
  // closed list answers the arrow keys with a change at each step, so every order of a unit is reached by
  // keyboard, each step replacing that unit's line; "none picked" takes the unit's line out of the box.
  var picks = document.querySelectorAll("select[name^='pick:']");
  function subjectOfList(sel) {
    for (var i = 0; i < sel.options.length; i++) {
      var s = sel.options[i].getAttribute("data-subject");
      if (s) return s;
    }
    return "";
  }
  function syncPicks() {
    if (!box || !picks) return;
    var lines = box.value.split("\n").map(function (l) { return l.trim(); }).filter(Boolean);
    picks.forEach(function (sel) {
      var value = "";
      for (var i = 0; i < sel.options.length && !value; i++) {
        var o = sel.options[i].value;
        if (!o) continue;
        for (var j = 0; j < lines.length; j++) {
          if (lines[j] === o || orderOf[lines[j]] === o) { value = o; break; }
        }
      }
      // A list the player is stepping through while picks wait for the line check is left to them.
      if (pending && sel === document.activeElement) return;
      if (sel.value !== value) sel.value = value;
    });
  }
  function dropOrder(subject) {
    if (!box || !subject) return;
    var lines = box.value.split("\n"), kept = lines.filter(function (l) { return !l.trim() || subjectOf[l.trim()] !== subject; });
    if (kept.length === lines.length) return;
    box.value = kept.join("\n");
    box.dispatchEvent(new Event("input"));
  }
  picks.forEach(function (sel) {
    sel.addEventListener("change", function () {
      if (!sel.value) {
        if (pending) queue = queue.then(function () { dropOrder(subjectOfList(sel)); });
        else dropOrder(subjectOfList(sel));
        return;
      }
      var opt = sel.options[sel.selectedIndex];
      putOrder(sel.value, opt.getAttribute("data-subject") || "");
    });
  });
  if (box && picks.length) {
    box.addEventListener("input", syncPicks);
    syncPicks();
  }
  // With the script on, picked orders go into the box at once, so the form must not add them again; a pick
  // still waiting for the line check is written into the box before the form goes.
  // A double click (or an impatient second click) on Send sends once: the first submission is the one that
  // goes; a page restored from the back/forward cache may send again.
  var form = document.getElementById("orders-form"), sent = false;
  if (form) form.addEventListener("submit", function (ev) {
    if (sent) { ev.preventDefault(); return; }
    sent = true;
    form.classList.add("sending");
    // The lists keep showing what was picked; only browsers without the formdata event clear them.
    if (typeof FormDataEvent === "undefined") form.querySelectorAll("select[name^='pick:']").forEach(function (s) { s.value = ""; });
    if (pending) {
      ev.preventDefault();
      queue.then(function () { form.submit(); });
    }
  });
  if (form) form.addEventListener("formdata", function (ev) {
    Array.from(ev.formData.keys()).forEach(function (k) { if (k.indexOf("pick:") === 0) ev.formData.delete(k); });
  });
  window.addEventListener("pageshow", function (ev) {
    if (ev.persisted && form) { sent = false; form.classList.remove("sending"); syncPicks(); }
  });

  // ------------------------------------------------------------------ map viewer
  // The view is the SVG's viewBox (crisp at any zoom): it opens on the viewer's own units (or the whole
  // board when that is readable), zooms about the pointer (wheel, pinch) or the view's middle (+/-), pans
  // by dragging, and "Fit" always shows the whole board. A drag is not a click: it adds no order.
  document.querySelectorAll("[data-map]").forEach(function (fig) {
    var vp = fig.querySelector(".map-viewport"), zoom = 1;
    var tools = fig.querySelector(".map-tools");
    if (tools) tools.hidden = false;  // shown only where they work: with this script
    var svg = vp.querySelector("svg");
    var full = fig.querySelector("[data-zoom=full]");
    if (full) full.addEventListener("click", function () {
      var on = !fig.classList.contains("fullscreen");
      if (on && fig.requestFullscreen && !document.fullscreenElement) {
        fig.requestFullscreen().catch(function () {});
      } else if (!on && document.fullscreenElement === fig) {
        document.exitFullscreen().catch(function () {});
      }
      // The frame changes size, not the player's zoom: the view keeps its middle and its scale (a unit as
      // large on screen), showing more of the board around it, or less (it jumped out to the whole board).
      var again = keep ? keep() : fit;
      fig.classList.toggle("fullscreen", on);
      full.setAttribute("aria-pressed", on ? "true" : "false");
      if (again) requestAnimationFrame(again);
    });
    document.addEventListener("fullscreenchange", function () {
      if (!document.fullscreenElement && fig.classList.contains("fullscreen")) {
        var again = keep ? keep() : fit;
        fig.classList.remove("fullscreen");
        if (full) full.setAttribute("aria-pressed", "false");
        if (again) requestAnimationFrame(again);
      }
    });
    var fit = null, keep = null;
    if (!svg) {
      // A map sent as a picture (the public game page, light to load and readable without this script):
      // its SVG is fetched and put in the picture's place, so it gets the same viewer. Failing that, the
      // picture zooms by its width.
      var img = vp.querySelector("img[data-svg]");
      if (img && window.fetch && window.DOMParser) {
        fetch(img.getAttribute("src"), { credentials: "same-origin" }).then(function (r) {
          if (!r.ok) throw new Error("map " + r.status);
          return r.text();
        }).then(function (text) {
          var el = new DOMParser().parseFromString(text, "image/svg+xml").documentElement;
          if (!el || el.nodeName.toLowerCase() !== "svg") throw new Error("not a map");
          el = document.importNode(el, true);
          el.setAttribute("aria-label", img.getAttribute("alt") || tr("the map"));
          img.parentNode.replaceChild(el, img);
          viewer(el);
        }).catch(function () { pictureZoom(); });
      } else {
        pictureZoom();
      }
      return;
    }
    drawn(svg, function () { viewer(svg); });
    // A picture that draws the board by reference to the board's file (a use of another file: the player's
    // page) is measured once that file is in (the browser says so with a load event on each use; a file already
    // kept is in at once): the viewer opens on what the names' and provinces' boxes say.
    function drawn(svg, go) {
      var use = svg.querySelector("use[href]:not([href^='#'])"), done = false;
      function once() { if (!done) { done = true; go(); } }
      if (!use || document.readyState === "complete") { once(); return; }
      try { if (use.getBBox().width) { once(); return; } } catch (e) { /* not drawn yet */ }
      use.addEventListener("load", once);
      use.addEventListener("error", once);
      window.addEventListener("load", once);
    }
    function pictureZoom() {
      fig.querySelectorAll("[data-zoom]").forEach(function (b) {
        if (b === full) return;
        b.addEventListener("click", function () {
          var how = b.getAttribute("data-zoom");
          zoom = how === "in" ? Math.min(zoom * 1.5, 6) : how === "out" ? Math.max(zoom / 1.5, 1) : 1;
          vp.style.setProperty("--zoom", zoom);
        });
      });
    }
    function viewer(svg) {
      var vb = (svg.getAttribute("viewBox") || "0 0 1000 1000").split(/[\s,]+/).map(Number);
      var board = { x: vb[0], y: vb[1], w: vb[2], h: vb[3] };
      fig.classList.add("viewer");
      vp.style.aspectRatio = board.w + " / " + board.h;
      // A tall board (W3K) is as wide as the frame's height lets it be, not letterboxed in a wide frame.
      fig.style.setProperty("--board-aspect", String(board.w / board.h));
      svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
      var view = { x: board.x, y: board.y, w: board.w, h: board.h };
      function size() { var r = vp.getBoundingClientRect(); return { w: r.width || 1, h: r.height || 1, r: r }; }
      // The frame's size is read before the view is written: read after it, it would make the browser lay out
      // the whole drawing at once (every name's text is laid out again at a new scale), and then again for the
      // frame with the names' new sizes, which doubled the cost of a zoom.
      // A region's name shown for a tap or under the mouse stands over the place it named: when the view moves,
      // it is taken away (it stayed on top, naming another place, after "Full").
      function show(s) {
        s = s || size();
        svg.setAttribute("viewBox", [view.x, view.y, view.w, view.h].join(" "));
        names(s);
        if (label) label.hidden = true;
        // A screen pixel in the map's units, for what is drawn a fixed width on screen (the focus ring).
        svg.dispatchEvent(new CustomEvent("mapview", { detail: { px: Math.max(view.w / s.w, view.h / s.h) } }));
      }
      // Names keep a readable size on screen: where the zoom would make a name smaller than 9 px, it is
      // drawn larger about its middle (its halo with it), so names stay as big on screen as the zoom needs.
      // Names so enlarged would run into each other and onto units, so they are shown by rank (supply
      // centres first, then the bigger names, which the renderer gives the larger regions), each only
      // where it overlaps no name already shown and no unit; the others are hidden until zooming in makes
      // room, and hover or a tap gives any region's full name.
      var READABLE = 9.2, labels = [], units = [];  // 9 px, with room for rounding
      var boardTop = parseFloat((svg.getAttribute("data-board") || "0 0").split(/\s+/)[1]) || 0;
      // A name is a text, or (a picture drawing the board by reference to its file) a use of the file's text,
      // which says its size and whether it names a supply centre itself (the centres' markers are in the file).
      function isText(e) { return e.tagName.toLowerCase() === "text" || /#t-[^#]*$/.test(e.getAttribute("href") || ""); }
      svg.querySelectorAll("[id^='label-']").forEach(function (t) {
        if (!isText(t)) return;
        var abbr = t.id.slice(6), texts = [t], parts = [t];
        svg.querySelectorAll("[data-for='" + abbr.replace(/'/g, "") + "']").forEach(function (p) {
          parts.push(p);
          if (isText(p)) texts.push(p);
        });
        labels.push({ el: t, size: parseFloat(t.getAttribute("font-size") || t.getAttribute("data-size")) || 0,
          centre: !!svg.getElementById("sc-" + abbr) || t.hasAttribute("data-sc"),
          texts: texts, parts: parts, box: null, scale: 1, hidden: false });
      });
      labels.sort(function (a, b) { return (b.centre - a.centre) || (b.size - a.size); });
      svg.querySelectorAll("[id^='unit-'], [id^='dislodged-']").forEach(function (u) { units.push({ el: u, box: null }); });
      function measure(el) {  // in map units (the board's own, shifted to the viewBox's), once
        try { var b = el.getBBox(); } catch (e) { return null; }
        return b.width ? { x: b.x, y: b.y + boardTop, w: b.width, h: b.height } : null;
      }
      // Every box is measured once, all before any name is hidden or moved (reading a box after a change makes
      // the browser lay the drawing out again, once per name).
      var measured = false;
      function names(s) {
        if (!measured) {
          units.forEach(function (u) { u.box = measure(u.el); });
          labels.forEach(function (l) { l.box = measure(l.el); });
          // A map folded away (the last turn on a phone) has no boxes yet: measured when it is shown.
          measured = labels.some(function (l) { return l.box; }) || !labels.length;
        }
        var k = Math.min(s.w / view.w, s.h / view.h), gap = 1.5 / k;
        var vx0 = view.x, vy0 = view.y, vx1 = view.x + view.w, vy1 = view.y + view.h;
        var shown = [];
        units.forEach(function (u) {
          var b = u.box;
          if (b && b.x + b.w > vx0 && b.x < vx1 && b.y + b.h > vy0 && b.y < vy1) shown.push([b.x, b.y, b.x + b.w, b.y + b.h]);
        });
        labels.forEach(function (l) {
          var b = l.box;
          if (!b || !l.size) return;
          // The enlargement in steps of 4%, rounded up (a name is never below the readable size): a
          // small zoom rewrites no name.
          var need = READABLE / (l.size * k), sc = need <= 1 ? 1 : Math.pow(1.04, Math.ceil(Math.log(need) / Math.log(1.04)));
          var cx = b.x + b.w / 2, cy = b.y + b.h / 2;
          var hw = b.w * sc / 2 + gap, hh = b.h * sc / 2 + gap;
          var me = [cx - hw, cy - hh, cx + hw, cy + hh], hide = l.hidden;
          var big = Math.max(sc, l.scale), bw = b.w * big / 2 + gap, bh = b.h * big / 2 + gap;
          // A name out of view, drawn as it is or as it will be, is left alone (it is not seen): it is
          // drawn anew when it comes into view.
          if (!(cx + bw > vx0 && cx - bw < vx1 && cy + bh > vy0 && cy - bh < vy1)) return;
          if (me[2] > vx0 && me[0] < vx1 && me[3] > vy0 && me[1] < vy1) {
            hide = false;
            for (var i = 0; i < shown.length && !hide; i++) {
              var o = shown[i];
              hide = me[0] < o[2] && o[0] < me[2] && me[1] < o[3] && o[1] < me[3];
            }
            if (!hide) shown.push(me);
          }
          // A hidden name is taken out of the drawing (display: none, so the browser does not lay it out at
          // each zoom) and keeps its old size until it is shown again.
          if (!hide && Math.abs(sc - l.scale) > 0.002 * sc) {
            l.scale = sc;
            var ty = cy - boardTop, t = sc === 1 ? null
              : "translate(" + cx + " " + ty + ") scale(" + sc + ") translate(" + (-cx) + " " + (-ty) + ")";
            l.texts.forEach(function (e) { if (t) e.setAttribute("transform", t); else e.removeAttribute("transform"); });
          }
          if (hide !== l.hidden) {
            l.hidden = hide;
            l.parts.forEach(function (p) { p.classList.toggle("name-small", hide); });
          }
        });
      }
      // A view of at least the rectangle (x, y, w, h), shaped like the frame, centred on it.
      function frame(x, y, w, h) {
        var s = size(), a = s.w / s.h;
        if (w / h < a) { var nw = h * a; x -= (nw - w) / 2; w = nw; } else { var nh = w / a; y -= (nh - h) / 2; h = nh; }
        view = { x: x, y: y, w: w, h: h };
        show(s);
      }
      fit = function () { frame(board.x, board.y, board.w, board.h); };
      // The view's middle and scale now, and a function that shows them again in the frame as it will be.
      keep = function () {
        var s = size(), k = s.w / view.w, cx = view.x + view.w / 2, cy = view.y + view.h / 2;
        return function () {
          var t = size(), w = t.w / k, h = t.h / k;
          view = { x: cx - w / 2, y: cy - h / 2, w: w, h: h };
          clamp();
        };
      };
      function fitWidth() { var s = size(); return Math.max(board.w, board.h * s.w / s.h); }
      // Keep the view's middle on the board and its zoom between the whole board and 24 times closer (a phone
      // opens W3K closer than it did, its provinces a finger wide: a pinch from there still has room to go on).
      var CLOSEST = 24;
      function clamp() {
        var s = size(), a = s.w / s.h, maxW = fitWidth(), minW = maxW / CLOSEST;
        var w = Math.min(maxW, Math.max(minW, view.w)), h = w / a;
        var cx = view.x + view.w / 2, cy = view.y + view.h / 2;
        cx = Math.min(board.x + board.w, Math.max(board.x, cx));
        cy = Math.min(board.y + board.h, Math.max(board.y, cy));
        if (w >= board.w) cx = board.x + board.w / 2;
        if (h >= board.h) cy = board.y + board.h / 2;
        view = { x: cx - w / 2, y: cy - h / 2, w: w, h: h };
        show(s);
      }
      function toMap(cx, cy) {
        var s = size();
        return { x: view.x + (cx - s.r.left) / s.w * view.w, y: view.y + (cy - s.r.top) / s.h * view.h };
      }
      // Zoom by k about the screen point (cx, cy): the map point under it stays under it.
      function zoomAt(k, cx, cy) {
        var s = size(), p = toMap(cx, cy), fx = (cx - s.r.left) / s.w, fy = (cy - s.r.top) / s.h;
        var maxW = fitWidth(), w = Math.min(maxW, Math.max(maxW / CLOSEST, view.w / k)), h = w * s.h / s.w;
        view = { x: p.x - fx * w, y: p.y - fy * h, w: w, h: h };
        show(s);
      }
      // The map box (in map units) of some elements, read from the screen at the present view.
      function boxOf(els) {
        var s = size(), x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
        els.forEach(function (e) {
          var r = e.getBoundingClientRect();
          if (!r.width && !r.height) return;
          var a = toMap(r.left, r.top), b = toMap(r.right, r.bottom);
          x0 = Math.min(x0, a.x); y0 = Math.min(y0, a.y); x1 = Math.max(x1, b.x); y1 = Math.max(y1, b.y);
        });
        return x0 < x1 ? { x: x0, y: y0, w: x1 - x0, h: y1 - y0, s: s } : null;
      }
      // The height on screen of a region's name at its drawn size at the present view (the median name).
      function nameHeight() {
        var s = size(), k = Math.min(s.w / view.w, s.h / view.h), hs = [];
        labels.forEach(function (l) { if (l.box) hs.push(l.box.h * k); });
        hs.sort(function (a, b) { return a - b; });
        return hs.length ? hs[hs.length >> 1] : 12;
      }
      function opening() {
        fit();
        var power = fig.getAttribute("data-focus-power");
        if (!power) return;
        var readable = 11, nh = nameHeight();
        if (nh >= readable) return;  // the whole board reads well as it is
        var own = [];
        // A map of orders given (the last turn) shows the power's orders whole, their arrows' ends too (Kiel's
        // fleet's arrow to Denmark was cut at the frame's top).
        var drawnOrders = fig.hasAttribute("data-interactive") ? "" : ", g.order";
        svg.querySelectorAll("[id^='unit-'], [id^='dislodged-']" + drawnOrders).forEach(function (u) {
          if (u.getAttribute("data-power") === power) own.push(u);
        });
        var b = boxOf(own);
        if (!b) return;
        b = withReach(b);
        // Padded by a finger's width about the places' middles (a unit's width about the units); no closer than
        // names at twice the readable size.
        var pad = Math.max(b.w, b.h) * 0.07 + view.w * 0.005;
        var x = b.x - pad, y = b.y - pad, w = b.w + 2 * pad, h = b.h + 2 * pad;
        var s = size(), minW = view.w * nh / (readable * 2), a = s.w / s.h;
        if (w < minW && h * a < minW) { x -= (minW - w) / 2; w = minW; }
        frame(x, y, w, h);
        clamp();
        fingerSized(b);
      }
      // The units' box grown to take in every province they may go to (the page's legal orders), so a first
      // tap can reach each (Germany's view cut Denmark off at the top edge: the players' trial, issue 55). A
      // province counts by its middle (the renderer's data-at, inside it) and a little room about it: whole,
      // Burgundy, Tyrolia and the Baltic made Germany's view twice as wide, its names and units half as large.
      function withReach(b) {
        if (!legal.length || !fig.hasAttribute("data-interactive")) return b;  // the orders are this map's
        var x0 = b.x, y0 = b.y, x1 = b.x + b.w, y1 = b.y + b.h, s = size(), px = view.w / s.w, seen = {};
        legal.forEach(function (u) {
          (u.orders || []).forEach(function (o) {
            var p = o.dest && o.dest.split("/")[0];
            if (!p || seen[p]) return;
            seen[p] = true;
            var r = svg.querySelector(".region[data-province='" + p.replace(/'/g, "") + "']");
            if (!r) return;
            var box = null;
            var at = (r.getAttribute("data-at") || "").split(" ").map(Number), ctm = r.getScreenCTM();
            if (at.length !== 2 || !ctm || !window.DOMPoint) box = boxOf([r]);
            else {
              var q = new DOMPoint(at[0], at[1]).matrixTransform(ctm), m = toMap(q.x, q.y), d = 4 * px;
              box = { x: m.x - d, y: m.y - d, w: 2 * d, h: 2 * d };
            }
            if (!box) return;
            x0 = Math.min(x0, box.x); y0 = Math.min(y0, box.y);
            x1 = Math.max(x1, box.x + box.w); y1 = Math.max(y1, box.y + box.h);
          });
        });
        return { x: x0, y: y0, w: x1 - x0, h: y1 - y0, s: b.s };
      }
      // On a touch screen every province in view is a target a finger can hit (WCAG 2.2: 24 px): the view
      // closes in about the player's units while the smallest province in view is smaller, as far as the
      // units all stay in view (W3K's Portsmouth was 14 px high, Corfe Castle 17).
      var coarse = window.matchMedia && window.matchMedia("(pointer: coarse)").matches;
      function smallestInView() {
        var r = size().r, least = Infinity;
        svg.querySelectorAll(".region[data-province]").forEach(function (p) {
          var q = p.getBoundingClientRect();
          if (q.right <= r.left || q.left >= r.right || q.bottom <= r.top || q.top >= r.bottom) return;
          least = Math.min(least, q.width, q.height);
        });
        return least;
      }
      function fingerSized(units) {
        if (!coarse) return;
        var cx = units.x + units.w / 2, cy = units.y + units.h / 2;
        for (var i = 0; i < 3; i++) {
          var least = smallestInView();
          if (!(least < 24)) return;
          // No closer than the units' box (and a little room) fills the frame.
          var most = Math.min(view.w / (units.w * 1.1), view.h / (units.h * 1.1));
          var k = Math.min(24.5 / least, most);
          if (k <= 1.01) return;
          var w = view.w / k, h = view.h / k;
          view = { x: cx - w / 2, y: cy - h / 2, w: w, h: h };
          clamp();
        }
      }
      opening();
      window.addEventListener("resize", function () {  // the same middle and width, shaped like the new frame
        var s = size(), cx = view.x + view.w / 2, cy = view.y + view.h / 2, h = view.w * s.h / s.w;
        view = { x: cx - view.w / 2, y: cy - h / 2, w: view.w, h: h };
        clamp();
      });
      fig.querySelectorAll("[data-zoom]").forEach(function (b) {
        if (b === full) return;
        b.addEventListener("click", function () {
          var how = b.getAttribute("data-zoom"), s = size();
          if (how === "fit") { fit(); return; }
          if (how === "home") { opening(); return; }  // the view the page opened on: the player's units
          zoomAt(how === "in" ? 1.5 : 1 / 1.5, s.r.left + s.w / 2, s.r.top + s.h / 2);
        });
      });
      // A wheel or touchpad sends many events a frame: they are added up and the view drawn once a frame.
      var wheel = null;
      vp.addEventListener("wheel", function (ev) {
        ev.preventDefault();
        var d = ev.deltaMode === 1 ? ev.deltaY * 16 : ev.deltaY;
        if (!wheel) {
          wheel = { k: 1 };
          requestAnimationFrame(function () { var w = wheel; wheel = null; zoomAt(w.k, w.x, w.y); });
        }
        wheel.k *= Math.pow(1.0015, -d);
        wheel.x = ev.clientX; wheel.y = ev.clientY;
      }, { passive: false });
      // Pointers: one drags, two pinch. A pointer that moved more than a few pixels made a drag, not a click.
      var ptrs = {}, moved = false, pinch = null, start = null;
      vp.addEventListener("pointerdown", function (ev) {
        if (ev.button && ev.button !== 0) return;
        if (ev.target.closest && ev.target.closest(".chooser")) return;
        ptrs[ev.pointerId] = { x: ev.clientX, y: ev.clientY };
        var ids = Object.keys(ptrs);
        if (ids.length === 1) { moved = false; start = { x: ev.clientX, y: ev.clientY }; }
        if (ids.length === 2) {
          var a = ptrs[ids[0]], b = ptrs[ids[1]];
          pinch = { d: Math.hypot(a.x - b.x, a.y - b.y) || 1 };
          moved = true;
        }
      });
      vp.addEventListener("pointermove", function (ev) {
        var p = ptrs[ev.pointerId];
        if (!p) { hover(ev); return; }
        var ids = Object.keys(ptrs);
        if (ids.length === 2 && pinch) {
          ptrs[ev.pointerId] = { x: ev.clientX, y: ev.clientY };
          var a = ptrs[ids[0]], b = ptrs[ids[1]], d = Math.hypot(a.x - b.x, a.y - b.y) || 1;
          var mx = (a.x + b.x) / 2, my = (a.y + b.y) / 2;
          var pm = { x: (p.x + (ev.pointerId == ids[0] ? b.x : a.x)) / 2, y: (p.y + (ev.pointerId == ids[0] ? b.y : a.y)) / 2 };
          panBy(mx - pm.x, my - pm.y);
          zoomAt(d / pinch.d, mx, my);
          pinch.d = d;
          return;
        }
        if (!moved && Math.hypot(ev.clientX - start.x, ev.clientY - start.y) > 6) {
          moved = true;
          try { vp.setPointerCapture(ev.pointerId); } catch (e) { /* the pointer is gone */ }
          vp.classList.add("dragging");
        }
        if (moved) { panBy(ev.clientX - p.x, ev.clientY - p.y); }
        ptrs[ev.pointerId] = { x: ev.clientX, y: ev.clientY };
      });
      function panBy(dx, dy) {
        var s = size();
        view.x -= dx / s.w * view.w; view.y -= dy / s.h * view.h;
        clamp();
      }
      function up(ev) {
        if (!ptrs[ev.pointerId]) return;
        delete ptrs[ev.pointerId];
        if (Object.keys(ptrs).length < 2) pinch = null;
        if (!Object.keys(ptrs).length) vp.classList.remove("dragging");
        if (!moved && ev.type === "pointerup" && ev.pointerType !== "mouse") tapName(ev);
      }
      vp.addEventListener("pointerup", up);
      vp.addEventListener("pointercancel", up);
      vp.addEventListener("click", function (ev) {
        if (moved) { ev.stopImmediatePropagation(); ev.preventDefault(); moved = false; }
      }, true);
      // A region's full name: under the mouse (desktop) or where a finger tapped (phone).
      var label = vp.querySelector(".map-name"), hideTimer = null;
      function nameAt(x, y) {
        var els = document.elementsFromPoint(x, y);
        for (var i = 0; i < els.length; i++) {
          var n = els[i].getAttribute && els[i].getAttribute("data-name");
          if (n && vp.contains(els[i])) return n;
        }
        return null;
      }
      function say(n, x, y) {
        if (!label) return;
        if (!n) { label.hidden = true; return; }
        label.textContent = n;
        label.hidden = false;
        var s = size(), w = label.offsetWidth, h = label.offsetHeight;
        label.style.left = Math.max(2, Math.min(x - s.r.left + 12, s.w - w - 2)) + "px";
        label.style.top = Math.max(2, Math.min(y - s.r.top - h - 10, s.h - h - 2)) + "px";
      }
      function hover(ev) { if (ev.pointerType === "mouse") say(nameAt(ev.clientX, ev.clientY), ev.clientX, ev.clientY); }
      function tapName(ev) {
        say(nameAt(ev.clientX, ev.clientY), ev.clientX, ev.clientY);
        clearTimeout(hideTimer);
        hideTimer = setTimeout(function () { if (label) label.hidden = true; }, 2500);
      }
      vp.addEventListener("pointerleave", function (ev) { if (ev.pointerType === "mouse" && label) label.hidden = true; });
      // Others (the move browser) bring a place into the middle of the view.
      fig.mapCentre = function (el) {
        var b = boxOf([el]);
        if (!b) return;
        view.x = b.x + b.w / 2 - view.w / 2; view.y = b.y + b.h / 2 - view.h / 2;
        clamp();
      };
      // ... or show some places as large as the frame allows (the move browser's territory and where it
      // goes), with a margin, and never closer than a sixth of the board's width.
      fig.mapShow = function (els) {
        var b = boxOf(els);
        if (!b) return;
        var pad = Math.max(b.w, b.h) * 0.15, minW = board.w / 6;
        var x = b.x - pad, y = b.y - pad, w = b.w + 2 * pad, h = b.h + 2 * pad;
        if (w < minW) { x -= (minW - w) / 2; w = minW; }
        frame(x, y, w, h);
        clamp();
      };
      fig.mapHome = opening;
      fig.setAttribute("data-viewer-ready", "");
    }
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
      if (!e || !e.getAttribute || !mapFig.contains(e) || e.closest(".finger-targets")) return null;
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
      mapFig.querySelectorAll("." + cls).forEach(function (e) { e.classList.remove(cls); keys.name(e); });
      provs.forEach(function (p) { var e = shapeOf(p); if (e) { e.classList.add(cls); keys.name(e); } });
    }
    // What the player is told to do next: "click" for a pointer, "press Enter on" for the keyboard (each
    // sentence whole in both forms, so a translation never glues fragments).
    var byKeys = false;
    function act(clickWords, keyWords, vals) { return tr(byKeys ? keyWords : clickWords, vals); }
    function nameOf(p) { var e = shapeOf(p); return (e && e.getAttribute("data-name")) || p; }
    // A chooser answered (or cancelled) from the keyboard gives the focus back to the province it came from.
    function closeChooser() {
      if (!chooser) return;
      var had = chooser.contains(document.activeElement);
      chooser.remove(); chooser = null;
      if (had && keys.current) keys.current.focus({ preventScroll: true });
    }
    function reset(msg) {
      closeChooser(); state.unit = null; state.target = null; mark("picked", []); mark("target", []); say(msg || "");
    }
    function add(order) { putOrder(order.text, order.subject || ""); reset(tr("Added: %(line)s", { line: order.text })); }
    // Several orders fit one click (a fleet arriving on either coast, what to build on a site): a small
    // chooser by the click offers exactly those, and nothing is added until one is chosen. So does a tap
    // within a finger's reach of several small provinces (a place: "Which one?"), which keeps what was chosen
    // before it when cancelled.
    function choose(title, options, label, x, y, then) {
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
        b.setAttribute(then ? "data-place" : "data-order", then ? o : o.text);
        b.addEventListener("click", function (ev) { ev.stopPropagation(); if (then) then(o); else add(o); });
        chooser.appendChild(b);
      });
      var c = document.createElement("button");
      c.type = "button";
      c.className = "cancel";
      c.textContent = tr("Cancel");
      c.addEventListener("click", function (ev) { ev.stopPropagation(); cancel(); });
      chooser.place = !!then;
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
    // A chooser of places goes, leaving the unit chosen; any other leaves nothing chosen.
    function cancel() {
      if (chooser && chooser.place) { closeChooser(); say(tr("Nothing added.")); } else reset(tr("Nothing added."));
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
        if (!u) { say(act("No order to give in %(place)s: click one of your units.", "No order to give in %(place)s: press Enter on one of your units.", { place: nameOf(p) })); return; }
        var builds = u.orders.filter(function (o) { return o.type === "build"; });
        if (builds.length) {
          state.unit = u; mark("picked", [p]);
          if (builds.length === 1) { add(builds[0]); return; }
          choose(tr("What to build in %(place)s?", { place: nameOf(p) }), builds,
                 function (o) { return o.text; }, x, y);
          return;
        }
        if (u.orders.length && u.orders.every(function (o) { return o.type === "disband"; })) {
          state.unit = u; add(u.orders[0]); return;  // a removal: nothing else to choose
        }
        state.unit = u; mark("picked", [p]);
        var dests = u.orders.filter(function (o) { return o.dest && (o.type === "move" || o.type === "retreat"); })
          .map(function (o) { return o.dest; });
        // By keyboard, where it may go is said too (a screen reader does not see the lit provinces).
        var where = byKeys && dests.length ? " " + tr("It may go to %(places)s.", { places: dests.filter(function (d, i) { return dests.indexOf(d) === i; })
          .map(nameOf).join(", ") }) : "";
        var who = { unit: u.label };
        // A dislodged unit does not hold: chosen again, it disbands.
        var retreating = u.orders.some(function (o) { return o.type === "retreat" || o.type === "disband"; });
        if (m === "move" && retreating) { mark("target", dests); say(act("%(unit)s: click where it retreats (click it again to disband).", "%(unit)s: press Enter on where it retreats (press Enter on it again to disband).", who) + where); }
        else if (m === "move") { mark("target", dests); say(act("%(unit)s: click where it goes (click it again to hold).", "%(unit)s: press Enter on where it goes (press Enter on it again to hold).", who) + where); }
        else if (m === "support") say(act("%(unit)s: click the unit it supports.", "%(unit)s: press Enter on the unit it supports.", who));
        else say(act("%(unit)s: click the unit it convoys.", "%(unit)s: press Enter on the unit it convoys.", who));
        return;
      }
      var orders = state.unit.orders;
      if (m === "move") {
        if (p === state.unit.province) {
          var h = orders.filter(function (o) { return o.type === "hold" || o.type === "disband"; })[0];
          if (h) add(h); else reset(tr("That unit cannot hold here."));
          return;
        }
        var mv = orders.filter(function (o) { return (o.type === "move" || o.type === "retreat") && o.dest === p; });
        // By land (or sea) rather than by convoy when both are possible; by convoy only if nothing else.
        var direct = mv.filter(function (o) { return !o.via; });
        if (direct.length) mv = direct;
        if (!mv.length) { reset(tr("%(unit)s cannot move to %(place)s.", { unit: state.unit.label, place: nameOf(p) })); return; }
        if (mv.length === 1) { add(mv[0]); return; }
        choose(tr("%(unit)s to which coast?", { unit: state.unit.label }), mv, coastName, x, y);
        return;
      }
      var kind = m === "support" ? "support" : "convoy";
      if (!state.target) {
        if (!orders.some(function (o) { return o.type === kind && o.target === p; })) {
          reset(tr(kind === "support" ? "%(unit)s cannot support a unit in %(place)s." : "%(unit)s cannot convoy a unit in %(place)s.", { unit: state.unit.label, place: nameOf(p) })); return;
        }
        state.target = p; mark("target", [p]);
        say(kind === "support"
          ? act("Now click where the supported unit goes (or the same unit again to support it holding).", "Now press Enter on where the supported unit goes (or the same unit again to support it holding).")
          : act("Now click where the convoyed unit goes.", "Now press Enter on where the convoyed unit goes."));
        return;
      }
      var want = orders.filter(function (o) {
        return o.type === kind && o.target === state.target && (p === state.target ? !o.dest : o.dest === p);
      });
      if (want.length) add(want[0]); else reset(tr(kind === "support" ? "That support is not possible." : "That convoy is not possible."));
    }
    // Whether a click or tap on province p would do something now: a unit of the player's to order, where
    // the chosen unit may go (or its own place, to hold), the unit it may support or convoy and where that unit
    // may go. Among several provinces within a finger's reach, those that would are the ones that count.
    function useful(p) {
      if (!state.unit) return !!byProv[p];
      var orders = state.unit.orders, m = mode();
      if (m === "move") return p === state.unit.province || orders.some(function (o) { return o.dest === p; });
      var kind = m === "support" ? "support" : "convoy";
      if (!state.target) return orders.some(function (o) { return o.type === kind && o.target === p; });
      return orders.some(function (o) {
        return o.type === kind && o.target === state.target && (p === state.target ? !o.dest : o.dest === p);
      });
    }
    var fingers = fingerTargets(viewport.querySelector("svg"));
    viewport.addEventListener("click", function (ev) {
      // Choosing a unit, its token counts (else the province beneath); choosing a place, only the province, or
      // on a touch screen the small provinces within a finger's reach.
      var token = expectsPlace() ? null : ev.target.closest && ev.target.closest("[data-unit]");
      var places = token ? [provinceOf(token)] : fingers.placesAt(ev.clientX, ev.clientY, regionAt(ev));
      if (!places.length && provinceOf(ev.target)) places = [provinceOf(ev.target)];
      var worth = places.filter(useful);
      // A finger is no pointer: where the tap meant nothing (land the board draws outside any province, such as
      // Denmark's islands; a sea at a coast), the places within a finger's reach that would mean something
      // count instead, nearest first (a tap on Denmark's edge said "Fleet Kiel cannot move to ska").
      if (!worth.length && !token) {
        var near = fingers.near(ev.clientX, ev.clientY, useful);
        if (near.length) places = worth = near;
      }
      if (!places.length) return;
      ev.preventDefault();
      byKeys = false;
      if (places.length > 1 && worth.length) places = worth;
      if (places.length === 1 || !worth.length) { pick(places[0], ev.clientX, ev.clientY); return; }
      var bubble = mapFig.querySelector(".map-name");  // the tap's name bubble names one of them only
      if (bubble) bubble.hidden = true;
      choose(tr("Which one?"), places, nameOf, ev.clientX, ev.clientY, function (p) {
        closeChooser();
        pick(p, ev.clientX, ev.clientY);
      });
    });
    document.addEventListener("keydown", function (ev) { if (ev.key === "Escape" && (chooser || state.unit)) cancel(); });
    bar.addEventListener("change", function () { reset(); });
    var keys = keyboardMap(viewport.querySelector("svg"), function (p, x, y) { byKeys = true; pick(p, x, y); });
  }

  // ------------------------------------------------------------------ a finger's reach on a touch screen
  // On a touch screen every province is a target a finger can hit (WCAG 2.2's 24 px): a province drawn
  // smaller than 24 px across at the present zoom gets an invisible disc 24 px across about its middle (the
  // renderer's data-at, inside it), over the provinces and under the names and units, kept 24 px on screen as
  // the view zooms (px: a screen pixel in the map's units). A tap on a disc means its province, even
  // over a larger neighbour (which has room elsewhere); a tap within the reach of several small provinces
  // (or within one's and on another small one) is answered with a chooser naming them, nearest first, with the
  // province under the finger last, rather than a guess. A pointer that is not a finger, the keyboard and the
  // screen reader use the provinces themselves.
  function fingerTargets(svg) {
    var coarse = window.matchMedia && window.matchMedia("(pointer: coarse)").matches;
    // The provinces within REACH px of (x, y) for which want(p) holds, nearest first: looked for on rings
    // about the tap (a finger covers about that much; a province beyond it was not meant).
    var REACH = 12;
    function near(x, y, want) {
      if (!coarse || !svg) return [];
      var found = {}, out = [];
      for (var d = 3; d <= REACH; d += 3) {
        for (var a = 0; a < 16; a++) {
          var px = x + d * Math.cos(a * Math.PI / 8), py = y + d * Math.sin(a * Math.PI / 8);
          var els = document.elementsFromPoint(px, py);
          for (var i = 0; i < els.length; i++) {
            var e = els[i];
            if (!svg.contains(e) || !e.matches || !e.matches(".region[data-province]")) continue;
            var p = e.getAttribute("data-province").toLowerCase().split("/")[0];
            if (!(p in found) && want(p)) { found[p] = d; out.push(p); }
            break;  // the province drawn on top there: the one seen
          }
        }
        // The nearest ring that found any: one province is the one meant; several at the same distance are
        // asked about ("Which one?"), never guessed.
        if (out.length) return out;
      }
      return out;
    }
    var none = { placesAt: function (x, y, under) { return under ? [under] : []; }, near: near };
    if (!svg || !coarse) return none;
    var SIZE = 24, regions = [], small = {}, layer = null;
    svg.querySelectorAll(".region[data-province][data-at]").forEach(function (r) {
      var at = r.getAttribute("data-at").split(" ").map(Number);
      regions.push({ el: r, p: r.getAttribute("data-province").toLowerCase(), x: at[0], y: at[1], box: null, disc: null });
    });
    if (!regions.length) return none;
    function update(px) {
      if (!px) return;
      if (!layer) {
        var over = svg.querySelector("g.regions");
        if (!over) return;
        layer = document.createElementNS(SVGNS, "g");
        layer.setAttribute("class", "finger-targets");
        layer.setAttribute("aria-hidden", "true");
        over.parentNode.insertBefore(layer, over.nextSibling);
      }
      regions.forEach(function (g) {
        if (!g.box) { try { var b = g.el.getBBox(); if (b.width) g.box = b; } catch (e) { /* not drawn yet */ } }
        var tiny = !!g.box && Math.min(g.box.width, g.box.height) / px < SIZE;
        small[g.p] = tiny;
        if (tiny && !g.disc) {
          g.disc = document.createElementNS(SVGNS, "circle");
          g.disc.setAttribute("cx", g.x);
          g.disc.setAttribute("cy", g.y);
          g.disc.setAttribute("data-province", g.p);
          g.disc.setAttribute("data-name", g.el.getAttribute("data-name") || g.p);
          layer.appendChild(g.disc);
        }
        if (tiny) g.disc.setAttribute("r", String(SIZE / 2 * px));
        if (g.disc) g.disc.classList.toggle("off", !tiny);
      });
    }
    svg.addEventListener("mapview", function (ev) { update(ev.detail && ev.detail.px); });
    if (svg.closest("[data-viewer-ready]")) {
      var ctm = svg.getScreenCTM();
      if (ctm && ctm.a) update(1 / ctm.a);
    }
    return {
      placesAt: function (x, y, under) {
        var near = [];
        document.elementsFromPoint(x, y).forEach(function (e) {
          if (!layer || e.parentNode !== layer) return;
          var r = e.getBoundingClientRect(), d = Math.hypot(r.left + r.width / 2 - x, r.top + r.height / 2 - y);
          near.push({ p: e.getAttribute("data-province"), d: d });
        });
        near.sort(function (a, b) { return a.d - b.d; });
        // A small province's own shape under the finger, its middle the nearest by 3 px or more, is that
        // province: a tap on Great Yarmouth asked "Which one?" between it and its neighbours, whose reaches lie
        // over it (issue 55). Nearer another's middle, the tap still asks.
        if (under && small[under] && near.length && near[0].p === under && (near.length === 1 || near[0].d + 3 <= near[1].d)) return [under];
        var out = near.map(function (n) { return n.p; });
        if (under && out.indexOf(under) < 0 && (out.length !== 1 || small[under])) out.push(under);
        return out;
      },
      near: near
    };
  }

  // ------------------------------------------------------------------ the map by keyboard and screen reader
  // The player's map as one Tab stop whose provinces are buttons, each named for a screen reader by its
  // name and the unit in it ("Paris (army of France)"): the arrow keys go to the next province that way on
  // the map, typing a name's first letters goes to it, and Enter or Space chooses it as a click on it would
  // (the same order line). The focus moves among the provinces (one of them at a time is in the Tab order)
  // and the view follows it. The drawing itself is left as the server made it (its picture, PNG and PDF
  // alike); the roles and names are added here, where they can be used. The rest of the drawing (names,
  // tokens, arrows) is hidden from the reader: the board in words under the map says it as text.
  function keyboardMap(svg, choose) {
    var none = { current: null, name: function () {} };
    if (!svg) return none;
    var regions = [], seen = {};
    svg.querySelectorAll(".region[data-province]").forEach(function (r) {
      var p = r.getAttribute("data-province");
      if (seen[p]) return;
      seen[p] = true;
      regions.push(r);
    });
    if (!regions.length) return none;
    var KINDS = { A: "army", F: "fleet" };
    function unitWords(p) {
      var out = [];
      ["unit-", "dislodged-"].forEach(function (w) {
        var u = svg.querySelector('[id="' + w + p + '"]');
        if (!u) return;
        var m = /\bkind-(\S+)/.exec(u.getAttribute("class") || "");
        var kind = (m && KINDS[m[1]]) || "unit", power = { power: u.getAttribute("data-power") };
        out.push(w === "unit-" ? tr(kind + " of %(power)s", power) : tr("dislodged " + kind + " of %(power)s", power));
      });
      return out;
    }
    var base = new Map();
    regions.forEach(function (r) {
      var words = unitWords(r.getAttribute("data-province"));
      base.set(r, (r.getAttribute("data-name") || r.getAttribute("data-province")) + (words.length ? " (" + words.join("; ") + ")" : ""));
    });
    function name(r) {
      if (!base.has(r)) return;
      var extra = r.classList.contains("picked") ? tr(", chosen") : r.classList.contains("target") ? tr(", a destination") : "";
      r.setAttribute("aria-label", base.get(r) + extra);
    }
    var power = (svg.closest("[data-focus-power]") || { getAttribute: function () { return ""; } }).getAttribute("data-focus-power");
    svg.setAttribute("role", "group");
    svg.setAttribute("aria-label", tr("Map: %(title)s. Arrow keys go from province to province, Enter chooses; the board in words is under the map.",
      { title: (svg.querySelector("title") || {}).textContent || tr("the board") }));
    (function hide(el) {
      Array.prototype.forEach.call(el.children, function (c) {
        if (c.matches(".region[data-province]") || c.tagName.toLowerCase() === "title") return;
        if (c.querySelector(".region[data-province]")) hide(c); else c.setAttribute("aria-hidden", "true");
      });
    })(svg);
    var first = null;
    regions.forEach(function (r) {
      r.setAttribute("role", "button");
      r.setAttribute("tabindex", "-1");
      name(r);
      var u = svg.querySelector('[id="unit-' + r.getAttribute("data-province") + '"]');
      if (!first && u && u.getAttribute("data-power") === power) first = r;
    });
    var keys = { current: null, name: name };
    function setCurrent(r, focus) {
      if (keys.current && keys.current !== r) keys.current.setAttribute("tabindex", "-1");
      keys.current = r;
      r.setAttribute("tabindex", "0");
      if (!focus) return;
      r.focus({ preventScroll: true });
      var a = r.getBoundingClientRect(), f = svg.getBoundingClientRect();
      var inside = a.left >= f.left && a.right <= f.right && a.top >= f.top && a.bottom <= f.bottom;
      var fig = svg.closest("[data-map]");
      if (!inside && fig && fig.mapCentre) fig.mapCentre(r);
      var b = r.getBoundingClientRect();  // the whole province seen on the page, not only the frame
      if (b.top < 0 || b.bottom > window.innerHeight) svg.closest(".map-viewport").scrollIntoView({ block: "nearest" });
    }
    setCurrent(first || regions[0], false);
    // Where each province lies on the board (its box's middle, in the drawing's units: the same at any zoom).
    var middles = new Map();
    function middle(r) {
      if (!middles.has(r)) {
        var b = null;
        try { b = r.getBBox(); } catch (e) { /* not drawn */ }
        middles.set(r, b ? { x: b.x + b.width / 2, y: b.y + b.height / 2 } : { x: 0, y: 0 });
      }
      return middles.get(r);
    }
    // The nearest province that way: ahead of this one, and the less to the side the better.
    function toward(r, dx, dy) {
      var here = middle(r), best = null, score = Infinity;
      regions.forEach(function (o) {
        if (o === r) return;
        var m = middle(o), vx = m.x - here.x, vy = m.y - here.y, along = vx * dx + vy * dy;
        if (along <= 0) return;
        var s = along + 2.5 * Math.abs(vx * dy - vy * dx);
        if (s < score) { score = s; best = o; }
      });
      return best;
    }
    var typed = "", typedAt = 0;
    function byName(text) {
      var start = regions.indexOf(keys.current), n = regions.length;
      for (var pass = 0; pass < 2; pass++) {
        for (var i = 1; i <= n; i++) {
          var r = regions[(start + (text.length > 1 ? i - 1 : i)) % n];
          var word = pass ? r.getAttribute("data-province") : r.getAttribute("data-name");
          if (word && word.toLowerCase().indexOf(text) === 0) return r;
        }
      }
      return null;
    }
    var STEPS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    svg.addEventListener("keydown", function (ev) {
      var r = ev.target;
      if (!base.has(r) || ev.altKey || ev.ctrlKey || ev.metaKey) return;
      // A name is typed in one go (a space within it too): any other key, or a pause, ends it.
      var now = Date.now();
      if (ev.key.length !== 1 || now - typedAt > 800) typed = "";
      if (ev.key === " " && typed) { ev.preventDefault(); typed += " "; typedAt = now; return; }
      if (STEPS[ev.key]) {
        ev.preventDefault();
        var next = toward(r, STEPS[ev.key][0], STEPS[ev.key][1]);
        if (next) setCurrent(next, true);
      } else if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        var b = r.getBoundingClientRect();
        choose(r.getAttribute("data-province").toLowerCase().split("/")[0], b.left + b.width / 2, b.top + b.height / 2);
      } else if (ev.key.length === 1 && /\S/.test(ev.key)) {
        typed += ev.key.toLowerCase();
        typedAt = now;
        var found = byName(typed);
        if (found) { ev.preventDefault(); setCurrent(found, true); }
      }
    });
    // The province with the focus drawn again on top, outlined: its own border is partly under its neighbours'.
    // Its shape is the province's path, or the same use of the board's file; a use's lines are drawn by the
    // file's path, which the page's non-scaling stroke does not reach, so their width is given in the map's
    // units for the view (--map-px, a screen pixel in them), again as the view changes.
    var ring = null;
    function ringWidth(px) { if (ring && px) ring.style.setProperty("--map-px", String(px)); }
    svg.addEventListener("mapview", function (ev) { ringWidth(ev.detail && ev.detail.px); });
    svg.addEventListener("focusin", function (ev) {
      if (!base.has(ev.target)) return;
      setCurrent(ev.target, false);
      var board = ev.target.closest("g.board") || svg, shape = ev.target.tagName.toLowerCase();
      if (!ring || ring.firstChild.tagName.toLowerCase() !== shape) {
        if (ring) ring.remove();
        ring = document.createElementNS(SVGNS, "g");
        ring.setAttribute("class", "focus-ring");
        ring.setAttribute("aria-hidden", "true");
        ["halo", "line"].forEach(function (c) {
          var u = document.createElementNS(SVGNS, shape);
          u.setAttribute("class", c);
          u.setAttribute("fill", "none");
          ring.appendChild(u);
        });
      }
      Array.prototype.forEach.call(ring.children, function (u) {
        if (shape === "use") u.setAttribute("href", ev.target.getAttribute("href"));
        else u.setAttribute("d", ev.target.getAttribute("d"));
      });
      var ctm = svg.getScreenCTM();
      if (ctm && ctm.a) ringWidth(1 / ctm.a);
      board.appendChild(ring);
      ring.classList.toggle("shown", ev.target.matches(":focus-visible"));
    });
    svg.addEventListener("focusout", function () { if (ring) ring.classList.remove("shown"); });
    return keys;
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

  // ------------------------------------------------------------------ long lists folded on a phone
  // A list sent open (readable without this script) that would push what the page is for out of reach on a
  // narrow screen, such as the last turn's results above the new orders, starts folded there; its summary
  // opens it.
  if (window.matchMedia && window.matchMedia("(max-width: 599px)").matches) {
    document.querySelectorAll("details[data-fold-narrow]").forEach(function (d) {
      d.open = false;
      // A map folded away had no size to open its view on: it opens it when it is shown.
      d.addEventListener("toggle", function () {
        if (!d.open) return;
        requestAnimationFrame(function () {
          d.querySelectorAll("[data-map]").forEach(function (f) { if (f.mapHome) f.mapHome(); });
        });
      });
    });
  }

  // ------------------------------------------------------------------ move browser: light up the moves on the map
  var moves = document.getElementById("moves");
  var fig = document.querySelector("[data-map]");
  if (moves && fig) {
    var light = function (p, cls) {
      fig.querySelectorAll('[id="r-' + p + '"], [data-province="' + p + '"]').forEach(function (e) { e.classList.add(cls); });
    };
    light(moves.getAttribute("data-from"), "picked");
    moves.querySelectorAll("[data-dest]").forEach(function (d) { light(d.getAttribute("data-dest").split("/")[0], "target"); });
    // The view opens on the chosen territory and where it goes, as large as the frame allows (the whole
    // board showed them a few pixels wide); without the viewer, a tall map scrolls to it inside its frame.
    var chosen = fig.querySelector('[id="r-' + moves.getAttribute("data-from") + '"]');
    var frame = fig.querySelector(".map-viewport");
    if (chosen && fig.mapShow) {
      fig.mapShow([chosen].concat(Array.from(fig.querySelectorAll("path.target"))));
    } else if (chosen && frame) {
      var c = chosen.getBoundingClientRect(), f = frame.getBoundingClientRect();
      frame.scrollTop += (c.top + c.height / 2) - (f.top + f.height / 2);
      frame.scrollLeft += (c.left + c.width / 2) - (f.left + f.width / 2);
    }
  }
})();

// The site's one service worker (served from /sw.js, so that it controls every page): the offline page, the
// static files kept, and push notifications. Browsers register it only on https and on localhost.
(function () {
  "use strict";
  if (!("serviceWorker" in navigator)) return;
  window.addEventListener("load", function () {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () { /* no worker: pages work as ever */ });
  });
})();
