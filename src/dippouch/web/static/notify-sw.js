// dippouch's service worker: shows a push notification, and opens its page when it is clicked. It only
// receives pushes; it does not intercept the site's requests.
"use strict";

self.addEventListener("push", function (event) {
  var data = { title: "dippouch", body: "", url: "/" };
  try {
    if (event.data) data = event.data.json();
  } catch (e) {
    data.body = event.data ? event.data.text() : "";
  }
  event.waitUntil(self.registration.showNotification(String(data.title || "dippouch"), {
    body: String(data.body || ""),
    icon: "/static/favicon.svg",
    data: { url: String(data.url || "/") }
  }));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var url = new URL(event.notification.data && event.notification.data.url || "/", self.location.origin);
  if (url.origin !== self.location.origin) url = new URL("/", self.location.origin);  // only our own pages
  event.waitUntil(self.clients.openWindow(url.href));
});
