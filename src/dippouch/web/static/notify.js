// The notifications page: subscribe this browser to push (Web Push with the installation's VAPID key) and
// keep the subscription on the server. The site's service worker (/sw.js, which app.js registers) shows what arrives.
(function () {
  "use strict";
  var tr = window.dpTr; // the page's words in its language (static/words.js)
  var button = document.getElementById("notify-push");
  var status = document.getElementById("notify-push-status");
  if (!button) return;
  var csrf = (document.querySelector('meta[name="csrf"]') || {}).content || "";

  function say(text) { if (status) status.textContent = text; }

  function keyBytes(b64url) {
    var text = atob(b64url.replace(/-/g, "+").replace(/_/g, "/") + "==".slice(0, (4 - b64url.length % 4) % 4));
    var out = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
    return out;
  }

  if (!("serviceWorker" in navigator) || !("PushManager" in window)) {
    button.disabled = true;
    say(tr("This browser cannot receive push notifications."));
    return;
  }

  button.addEventListener("click", function () {
    button.disabled = true;
    say(tr("Asking the browser…"));
    Notification.requestPermission().then(function (answer) {
      if (answer !== "granted") throw new Error("notifications are not allowed in this browser's settings");
      return navigator.serviceWorker.register("/sw.js", { scope: "/" });
    }).then(function (reg) {
      return reg.pushManager.getSubscription().then(function (old) {
        return old || reg.pushManager.subscribe({
          userVisibleOnly: true,
          applicationServerKey: keyBytes(button.dataset.vapidKey)
        });
      });
    }).then(function (sub) {
      return fetch("/api/notify/push", {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
        body: JSON.stringify(sub.toJSON())
      });
    }).then(function (r) {
      return r.json().then(function (body) {
        if (!r.ok) throw new Error(body.error || ("the server answered " + r.status));
        say(tr("This browser will get your notifications."));
        window.location.reload();
      });
    }).catch(function (e) {
      button.disabled = false;
      say(tr("Not subscribed: %(why)s", { why: e.message }));
    });
  });
})();
