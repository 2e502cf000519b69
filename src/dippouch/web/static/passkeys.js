// Passkeys (WebAuthn): the sign-in page's "Sign in with a passkey" and /me's "Add a passkey".
// The server makes every challenge and checks every answer (web/accounts.py); this only carries them
// between the server's JSON and the browser's navigator.credentials, converting base64url and bytes.
"use strict";
(function () {
  var tr = window.dpTr; // the page's words in its language (static/words.js)
  function b64uToBytes(s) {
    s = s.replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) s += "=";
    var bin = atob(s), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out.buffer;
  }
  function bytesToB64u(buf) {
    var bytes = new Uint8Array(buf), bin = "";
    for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function csrf() {
    var m = document.querySelector('meta[name="csrf"]');
    return m ? m.getAttribute("content") : "";
  }
  function say(text) {
    var out = document.getElementById("passkey-status");
    if (out) out.textContent = text;
  }
  function post(url, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf(), "Accept": "application/json" },
      body: JSON.stringify(body || {}),
    }).then(function (r) {
      return r.json().then(function (data) {
        if (!r.ok) throw new Error(data.error || ("refused (" + r.status + ")"));
        return data;
      });
    });
  }
  function credentialJSON(cred) {
    var resp = cred.response, out = {
      id: cred.id, rawId: bytesToB64u(cred.rawId), type: cred.type,
      clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
      response: { clientDataJSON: bytesToB64u(resp.clientDataJSON) },
    };
    if (resp.attestationObject) {
      out.response.attestationObject = bytesToB64u(resp.attestationObject);
      if (resp.getTransports) out.response.transports = resp.getTransports();
    } else {
      out.response.authenticatorData = bytesToB64u(resp.authenticatorData);
      out.response.signature = bytesToB64u(resp.signature);
      if (resp.userHandle) out.response.userHandle = bytesToB64u(resp.userHandle);
    }
    if (cred.authenticatorAttachment) out.authenticatorAttachment = cred.authenticatorAttachment;
    return out;
  }
  function register() {
    say(tr("Asking your device…"));
    post("/api/me/passkeys/options").then(function (data) {
      var o = data.options;
      o.challenge = b64uToBytes(o.challenge);
      o.user.id = b64uToBytes(o.user.id);
      (o.excludeCredentials || []).forEach(function (c) { c.id = b64uToBytes(c.id); });
      return navigator.credentials.create({ publicKey: o });
    }).then(function (cred) {
      var body = credentialJSON(cred);
      body.label = navigator.platform ? "passkey on " + navigator.platform : "passkey";
      return post("/api/me/passkeys", body);
    }).then(function (done) {
      say(tr("Passkey added."));
      window.location.assign(done.url);
    }).catch(function (e) { say(tr("No passkey added: %(why)s", { why: e.message })); });
  }
  function signin() {
    say(tr("Asking your device…"));
    post("/api/signin/passkey/options").then(function (data) {
      var o = data.options;
      o.challenge = b64uToBytes(o.challenge);
      (o.allowCredentials || []).forEach(function (c) { c.id = b64uToBytes(c.id); });
      return navigator.credentials.get({ publicKey: o });
    }).then(function (cred) {
      return post("/api/signin/passkey", credentialJSON(cred));
    }).then(function (done) {
      window.location.assign(done.url);
    }).catch(function (e) { say(tr("Not signed in: %(why)s", { why: e.message })); });
  }
  document.addEventListener("DOMContentLoaded", function () {
    var supported = !!(window.PublicKeyCredential && navigator.credentials);
    document.querySelectorAll("[data-passkey-register]").forEach(function (b) {
      if (!supported) { b.disabled = true; return; }
      b.addEventListener("click", register);
    });
    document.querySelectorAll("[data-passkey-signin]").forEach(function (b) {
      if (!supported) { b.disabled = true; return; }
      b.addEventListener("click", signin);
    });
  });
})();
