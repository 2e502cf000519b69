/* dippouch replay: the replay page played in place. The page works without this file (every step is a link,
   ?at=N, and the slider is a form); here the same links and slider change the picture without a reload, a Play
   button steps on its own, the pictures ahead are loaded before they are shown, and the keyboard steps: space
   plays or pauses, the arrows step, Home and End go to the ends. Nothing plays by itself for someone whose
   system asks for reduced motion. */
(function () {
  "use strict";
  var tr = window.dpTr; // the page's words in its language (static/words.js)
  var box = document.querySelector("[data-replay]");
  var list = document.querySelector("[data-frames]");
  if (!box || !list) return;
  var items = Array.prototype.slice.call(list.querySelectorAll("li"));
  var frames = items.map(function (li) {
    return { src: li.getAttribute("data-src"), caption: li.getAttribute("data-caption"),
             phase: li.getAttribute("data-phase-words") || li.getAttribute("data-phase"), page: li.getAttribute("data-page"),
             phaseId: li.getAttribute("data-phase-id") };
  });
  // The coach's look at the phase shown (templates/replay.html): its block, or a word that it has none.
  var coachBlocks = Array.prototype.slice.call(document.querySelectorAll("[data-coach-phase]"));
  var coachNone = document.querySelector("[data-coach-none]");
  function showCoach(phaseId) {
    var found = false;
    coachBlocks.forEach(function (b) {
      var here = b.getAttribute("data-coach-phase") === phaseId;
      b.hidden = !here;
      found = found || here;
    });
    if (coachNone) coachNone.hidden = found;
  }
  var n = frames.length;
  if (!n) return;
  var picture = document.getElementById("replay-picture");
  var caption = document.getElementById("replay-caption");
  var count = document.getElementById("replay-count");
  var phase = document.getElementById("replay-phase");
  var full = document.getElementById("replay-full");
  var slider = document.getElementById("replay-at");
  var play = box.querySelector("[data-play]");
  var go = box.querySelector("[data-go]");
  var help = box.querySelector("[data-keys]");
  var steps = {};
  Array.prototype.forEach.call(box.querySelectorAll("[data-step]"), function (a) { steps[a.getAttribute("data-step")] = a; });
  var FRAME_MS = 1200;
  var AHEAD = 6;
  var reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  var at = Math.max(0, Math.min(n - 1, parseInt(slider ? slider.value : "0", 10) || 0));
  var timer = null;
  var run = 0;
  var loaded = {};

  // A picture is asked for once; the browser keeps it (each map's address is the same for good).
  function preload(i) {
    if (i < 0 || i >= n || loaded[i] || !frames[i].src) return loaded[i];
    var img = new Image();
    img.decoding = "async";
    loaded[i] = new Promise(function (resolve) {
      img.onload = img.onerror = function () { resolve(); };
    });
    img.src = frames[i].src;
    return loaded[i];
  }
  function preloadAhead() {
    for (var k = 1; k <= AHEAD; k++) preload(at + k);
    preload(at - 1);
  }

  function href(i) { return "?at=" + i; }

  function show(i, fromHistory) {
    at = Math.max(0, Math.min(n - 1, i));
    var f = frames[at];
    if (picture && f.src) {
      picture.src = f.src;
      picture.alt = tr("The map: %(caption)s", { caption: f.caption });
    }
    caption.textContent = f.caption;
    count.textContent = tr("%(at)s of %(count)s", { at: at + 1, count: n });
    phase.textContent = tr("%(phase)s: its page", { phase: f.phase });
    phase.href = f.page;
    if (full && f.src) full.href = f.src;
    if (slider) {
      slider.value = String(at);
      slider.setAttribute("aria-valuetext", f.caption);
    }
    steps.first.href = href(0);
    steps.back.href = href(Math.max(0, at - 1));
    steps.forward.href = href(Math.min(n - 1, at + 1));
    steps.last.href = href(n - 1);
    items.forEach(function (li, k) {
      if (k === at) li.setAttribute("aria-current", "true"); else li.removeAttribute("aria-current");
    });
    box.setAttribute("data-at", String(at));
    showCoach(f.phaseId);
    if (!fromHistory && window.history && history.replaceState) history.replaceState(null, "", href(at));
    preloadAhead();
  }

  function playing() { return timer !== null; }
  function setPlaying(on) {
    if (on === playing()) return;
    run += 1;
    if (on) {
      if (at >= n - 1) show(0);
      timer = window.setTimeout(tick, FRAME_MS);
    } else {
      window.clearTimeout(timer);
      timer = null;
    }
    play.setAttribute("aria-pressed", on ? "true" : "false");
    play.setAttribute("aria-label", on ? tr("Pause") : tr("Play"));
    play.firstChild.textContent = on ? "\u275A\u275A" : "\u25B6\uFE0E";
    play.lastChild.textContent = " " + (on ? tr("Pause") : tr("Play"));
    box.classList.toggle("playing", on);
  }
  // The next picture is shown once it has arrived, so a slow line pauses the replay rather than showing gaps.
  function tick() {
    if (at >= n - 1) { setPlaying(false); return; }
    var next = at + 1;
    var mine = run;
    Promise.resolve(preload(next)).then(function () {
      if (!playing() || mine !== run) return;  // paused meanwhile (and perhaps played again: a new run)
      show(next);
      if (at >= n - 1) setPlaying(false);
      else timer = window.setTimeout(tick, FRAME_MS);
    });
  }

  function target(step) {
    return { first: 0, back: at - 1, forward: at + 1, last: n - 1 }[step];
  }
  Object.keys(steps).forEach(function (step) {
    steps[step].addEventListener("click", function (e) {
      e.preventDefault();
      setPlaying(false);
      show(target(step));
    });
  });
  play.hidden = false;
  play.addEventListener("click", function () { setPlaying(!playing()); });
  if (slider) {
    slider.addEventListener("input", function () { setPlaying(false); show(parseInt(slider.value, 10) || 0); });
  }
  if (go) go.hidden = true;
  if (help) help.hidden = false;
  items.forEach(function (li, k) {
    var a = li.querySelector("a");
    if (a) a.addEventListener("click", function (e) { e.preventDefault(); setPlaying(false); show(k); box.scrollIntoView({ block: "start" }); });
  });

  Array.prototype.forEach.call(document.querySelectorAll(".coach-turns a"), function (a) {
    var k = parseInt((a.getAttribute("href") || "").replace("?at=", ""), 10);
    if (isNaN(k)) return;
    a.addEventListener("click", function (e) { e.preventDefault(); setPlaying(false); show(k); box.scrollIntoView({ block: "start" }); });
  });

  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var t = e.target;
    var tag = t && t.tagName ? t.tagName.toLowerCase() : "";
    // A focused control does what it does itself (a button clicks on space, the slider moves on the arrows).
    if (tag === "input" || tag === "textarea" || tag === "select" || (t && t.isContentEditable)) return;
    if (e.key === " " || e.key === "Spacebar") {
      if (tag === "button" || tag === "a") return;
      e.preventDefault();
      setPlaying(!playing());
    } else if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      e.preventDefault();
      setPlaying(false);
      show(at + (e.key === "ArrowRight" ? 1 : -1));
    } else if (e.key === "Home" || e.key === "End") {
      e.preventDefault();
      setPlaying(false);
      show(e.key === "Home" ? 0 : n - 1);
    }
  });

  show(at, true);
  box.setAttribute("data-ready", "");
  // Played from the start on arrival, unless a picture was asked for (?at=N) or motion is unwelcome.
  if (!reduced && !box.hasAttribute("data-start") && n > 1) setPlaying(true);
})();
