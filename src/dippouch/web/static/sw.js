// dippouch's service worker, for every page of the site: it shows push notifications (and opens their page
// when clicked), keeps the static files and the boards of map shapes, a variant's or a game's (their
// addresses carry their content's hash, so a kept file is never stale), and shows the offline page when a page
// cannot be fetched. Pages themselves always come from the network: a game's page must show the game as it is
// now.
"use strict";

// Written in by the server (web/installable.py): the offline page and the static files it needs.
var PRECACHED = /*PRECACHED*/[];
var OFFLINE = "/offline";
var CACHE = "dippouch-" + hash(PRECACHED.join(" "));

function hash(text) {
  var h = 0;
  for (var i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) | 0;
  return (h >>> 0).toString(36);
}

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    return cache.addAll(PRECACHED);
  }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (n) { return n.indexOf("dippouch-") === 0 && n !== CACHE; })
      .map(function (n) { return caches.delete(n); }));
  }).then(function () { return self.clients.claim(); }));
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(function () {
      return caches.match(OFFLINE).then(function (page) {
        return page || new Response("You are offline.", { status: 503, headers: { "Content-Type": "text/plain" } });
      });
    }));
    return;
  }
  // A file named with its content's hash (a static file, a variant's or a game's board of map shapes) is the
  // same file forever: from the cache, else fetched, and kept when the server says so (an old hash is answered with the
  // file as it is now, not to be kept under the old name).
  var hashed = (url.pathname.indexOf("/static/") === 0 && url.searchParams.has("v")) ||
    /^\/(games|variants)\/[^/]+\/board-[0-9a-f]+\.svg$/.test(url.pathname);
  if (hashed) {
    event.respondWith(caches.open(CACHE).then(function (cache) {
      return cache.match(request).then(function (kept) {
        return kept || fetch(request).then(function (answer) {
          if (answer.ok && /immutable/.test(answer.headers.get("Cache-Control") || "")) cache.put(request, answer.clone());
          return answer;
        });
      });
    }));
  }
});

self.addEventListener("push", function (event) {
  var data = { title: "dippouch", body: "", url: "/" };
  try {
    if (event.data) data = event.data.json();
  } catch (e) {
    data.body = event.data ? event.data.text() : "";
  }
  event.waitUntil(self.registration.showNotification(String(data.title || "dippouch"), {
    body: String(data.body || ""),
    icon: "/static/icon-192.png",
    data: { url: String(data.url || "/") }
  }));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var url = new URL(event.notification.data && event.notification.data.url || "/", self.location.origin);
  if (url.origin !== self.location.origin) url = new URL("/", self.location.origin);  // only our own pages
  event.waitUntil(self.clients.openWindow(url.href));
});
