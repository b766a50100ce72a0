/* Pacekeeper web client: the cookie session with CSRF (spec 5.2 and 7), shared helpers.

   - Every write (POST, PUT, PATCH, DELETE) carries X-CSRF-Token, read from the
     script-readable csrf_token cookie.
   - The CSRF token lives 30 minutes. The time it was issued is kept in localStorage
     (shared by every tab); 25 minutes after it, POST /api/auth/refresh renews it (and the
     session cookie), checked every minute, when the tab comes back into view and before
     every write. A token of unknown age is renewed at once.
   - On any 401 the client clears its CSRF token and says so: a notice "Your session
     expired" with a sign-in link that brings the person back to the page they were on
     (issue 33; it used to leave the page at once, losing what was typed).
   No inline script anywhere: the pages load this file and their own with `defer`. */
"use strict";

const Pk = (() => {
  const CSRF_COOKIE = "csrf_token";
  const STORE = "pk.csrf";
  const RENEW_AFTER_MS = 25 * 60 * 1000;
  const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

  function csrfToken() {
    const found = document.cookie.split("; ").find((c) => c.startsWith(CSRF_COOKIE + "="));
    return found ? decodeURIComponent(found.slice(CSRF_COOKIE.length + 1)) : "";
  }

  function remember(token) {
    try { localStorage.setItem(STORE, JSON.stringify({token: token, at: Date.now()})); } catch (e) { /* private mode */ }
  }

  function issuedAt(token) {
    try {
      const kept = JSON.parse(localStorage.getItem(STORE) || "null");
      return kept && kept.token === token ? kept.at : null;
    } catch (e) { return null; }
  }

  function clearCsrf() {
    document.cookie = CSRF_COOKIE + "=; Max-Age=0; Path=/; Secure; SameSite=Strict";
    try { localStorage.removeItem(STORE); } catch (e) { /* ignore */ }
  }

  function signedIn() { return document.body.hasAttribute("data-user-id"); }

  /* Spec 7: on 401 the web client clears its CSRF token and returns to sign-in. */
  function toSignIn(reason) {
    clearCsrf();
    const here = location.pathname + location.search;
    const query = new URLSearchParams({reason: reason || "expired"});
    if (here !== "/") { query.set("next", here); }
    location.assign("/?" + query.toString());
  }

  /* Spec 7 and issue 33: on 401 the CSRF token is cleared and the page says the session
     expired, with a link to sign in that returns here (next= this path; the sign-in
     checks it is this origin). The page stays, so a form being filled in is not lost. */
  function sessionExpired() {
    clearCsrf();
    if (document.getElementById("session-notice")) { return; }
    const here = location.pathname + location.search;
    const query = new URLSearchParams({reason: "expired"});
    if (here !== "/") { query.set("next", here); }
    const notice = el("div", {id: "session-notice", class: "session-notice", role: "alert"},
      el("span", {text: "Your session expired, so this could not be saved or loaded."}),
      el("a", {href: "/?" + query.toString(), text: "Sign in again"}));
    document.body.prepend(notice);
  }

  let renewing = null;
  async function renew() {
    if (renewing) { return renewing; }
    renewing = (async () => {
      const response = await fetch("/api/auth/refresh", {
        method: "POST", credentials: "same-origin",
        headers: {"X-CSRF-Token": csrfToken()},
      });
      if (response.status === 401) { sessionExpired(); throw new ApiError(401, {message: "Your session expired: sign in again."}); }
      if (!response.ok) {
        // The token could not be renewed (it expired already): the session cannot write.
        await fetch("/api/auth/logout", {method: "POST", credentials: "same-origin"});
        sessionExpired();
        throw new ApiError(401, {message: "Your session expired: sign in again."});
      }
      const body = await response.json();
      remember(body.csrf_token || csrfToken());
    })();
    try { await renewing; } finally { renewing = null; }
  }

  async function ensureFresh() {
    if (!signedIn()) { return; }
    const token = csrfToken();
    if (!token) {
      // The 30-minute token is gone (the browser dropped the cookie): sign in again.
      await fetch("/api/auth/logout", {method: "POST", credentials: "same-origin"});
      sessionExpired();
      throw new ApiError(401, {message: "Your session expired: sign in again."});
    }
    const at = issuedAt(token);
    if (at === null || Date.now() - at >= RENEW_AFTER_MS) { await renew(); }
  }

  class ApiError extends Error {
    constructor(status, body) {
      super((body && (body.message || body.error_description)) || ("request failed (" + status + ")"));
      this.status = status;
      this.body = body;
    }
  }

  /* fetch for the JSON API: credentials, CSRF on writes, 401 handling, JSON in and out.
     Returns the parsed body (or the Response for `raw`); throws ApiError otherwise. */
  async function api(path, options) {
    const opts = options || {};
    const method = (opts.method || "GET").toUpperCase();
    const headers = new Headers(opts.headers || {});
    headers.set("Accept", "application/json");
    let body = opts.body;
    if (body !== undefined && !(body instanceof FormData) && typeof body !== "string") {
      body = JSON.stringify(body);
      headers.set("Content-Type", "application/json");
    }
    if (WRITES.has(method)) {
      await ensureFresh();
      headers.set("X-CSRF-Token", csrfToken());
    }
    const response = await fetch(path, {method: method, headers: headers, body: body, credentials: "same-origin"});
    if (response.status === 401) {
      sessionExpired();
      throw new ApiError(401, {message: "Your session expired: sign in again."});
    }
    if (opts.raw && response.ok) { return response; }
    let data = null;
    const type = response.headers.get("content-type") || "";
    if (type.includes("json")) { data = await response.json(); }
    if (!response.ok) { throw new ApiError(response.status, data); }
    return data;
  }

  /* A multipart upload with progress (fetch cannot report upload progress). */
  async function upload(path, formData, onProgress) {
    await ensureFresh();
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open("POST", path);
      xhr.withCredentials = true;
      xhr.setRequestHeader("X-CSRF-Token", csrfToken());
      xhr.setRequestHeader("Accept", "application/json");
      xhr.upload.addEventListener("progress", (e) => { if (e.lengthComputable && onProgress) { onProgress(e.loaded / e.total); } });
      xhr.addEventListener("load", () => {
        if (xhr.status === 401) { sessionExpired(); reject(new ApiError(401, {message: "Your session expired: sign in again."})); return; }
        let data = null;
        try { data = JSON.parse(xhr.responseText); } catch (e) { /* not JSON */ }
        resolve({status: xhr.status, data: data});
      });
      xhr.addEventListener("error", () => reject(new ApiError(0, {message: "the upload failed (network)"})));
      xhr.send(formData);
    });
  }

  /* el("p", {class: "x", text: "hi"}, child...): DOM without innerHTML. */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) { continue; }
      if (name === "text") { node.textContent = value; } else if (name.startsWith("on")) { node.addEventListener(name.slice(2), value); } else { node.setAttribute(name, value === true ? "" : value); }
    }
    for (const child of children) {
      if (child === null || child === undefined) { continue; }
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  function showError(error) {
    const box = document.getElementById("error");
    const message = error instanceof Error ? error.message : String(error);
    if (box) { box.textContent = message; } else { window.alert(message); }
  }

  async function copy(text, status) {
    try {
      await navigator.clipboard.writeText(text);
    } catch (e) {
      const area = el("textarea", {"aria-hidden": "true", class: "offscreen"});
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    if (status) { status.textContent = "Copied to the clipboard."; }
  }

  function wallClock(iso, options) {
    const m = iso ? /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?/.exec(iso) : null;
    if (!m) { return ""; }
    const at = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +(m[4] || 0), +(m[5] || 0)));
    return at.toLocaleString(undefined, {...options, timeZone: "UTC"});
  }

  /* A moment (signed in, synced, allowed, expires) is shown in the person's time zone
     setting (Account), not the browser's: a laptop set to another zone still reads the
     person's clock. A page that shows moments awaits zone() first (one GET /api/athlete,
     asked once and only by those pages); without a setting, the browser's zone. */
  let personZone;
  let zoneAsked = null;
  function zone() {
    if (!zoneAsked) {
      zoneAsked = api("/api/athlete").then((a) => { personZone = (a.settings || {}).time_zone || undefined; },
        () => { /* the browser's zone, then */ });
    }
    return zoneAsked;
  }

  const fmt = {
    date(iso) { return iso ? new Date(iso).toLocaleDateString(undefined, {year: "numeric", month: "short", day: "numeric", timeZone: personZone}) : ""; },
    datetime(iso) { return iso ? new Date(iso).toLocaleString(undefined, {dateStyle: "medium", timeStyle: "short", timeZone: personZone}) : ""; },
    // An activity's own wall clock: the date and time written in its ISO string (in the
    // activity's offset), not turned into this browser's zone. A ride at 09:00 in
    // California stays on its day for a reader in Sydney, and on the day its load counts.
    localDate(iso) { return wallClock(iso, {year: "numeric", month: "short", day: "numeric"}); },
    localDateTime(iso) { return wallClock(iso, {dateStyle: "medium", timeStyle: "short"}); },
    duration(s) {
      if (s === null || s === undefined) { return "–"; }
      s = Math.round(s);
      const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
      return (h ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(sec).padStart(2, "0");
    },
    km(m) { return m === null || m === undefined ? "–" : (m / 1000).toFixed(m >= 100000 ? 0 : 1) + " km"; },
    num(v, digits, unit) { return v === null || v === undefined ? "–" : Number(v).toFixed(digits || 0) + (unit ? " " + unit : ""); },
    // Seconds as m:ss: the one pace formatter of every page and chart (issue 27 item 14).
    mss(s) {
      if (s === null || s === undefined || !Number.isFinite(s)) { return "–"; }
      const r = Math.round(s);
      return Math.floor(r / 60) + ":" + String(r % 60).padStart(2, "0");
    },
    pace(s, unit) { return s === null || s === undefined || !Number.isFinite(s) ? "–" : fmt.mss(s) + (unit ? " " + unit : ""); },
    /* The distance a sport's pace is read over: a runner's (walker's, hiker's) km or mile
       per the person's units, a swimmer's 100 m, a rower's 500 m; null where a speed is
       read (rides). {per: metres, unit: "/km", axis: "min/km"} */
    paceBasis(sport, units) {
      if (sport === "swim") { return {per: 100, unit: "/100 m", axis: "min/100 m"}; }
      if (sport === "row") { return {per: 500, unit: "/500 m", axis: "min/500 m"}; }
      if (!["run", "walk", "hike"].includes(sport)) { return null; }
      return units === "imperial" ? {per: 1609.344, unit: "/mi", axis: "min/mi"} : {per: 1000, unit: "/km", axis: "min/km"};
    },
    // Seconds over `per` metres at `mps`; null when standing (a pace has no value at 0).
    secondsPer(mps, per) { return mps === null || mps === undefined || !(mps > 0) ? null : per / mps; },
  };

  /* Where to go after signing in: `next` only when it resolves to this origin, as the
     browser itself will resolve it (issue 28: "/\\evil.example" and "/\t/evil.example"
     passed a check of the text and led off-site). The absolute URL is kept, so its path
     cannot be read again as a scheme-relative "//host". */
  function nextPath() {
    const next = new URLSearchParams(location.search).get("next");
    if (!next) { return null; }
    let url;
    try { url = new URL(next, location.origin); } catch (e) { return null; }
    return url.origin === location.origin ? url.href : null;
  }

  /* The sign-in and registration forms of the landing page (and of any page visited
     without a session). The password grant sets the cookies; its 401 is a wrong
     password here, not an ended session. */
  async function signIn(email, password) {
    const response = await fetch("/oauth/token", {
      method: "POST", credentials: "same-origin",
      body: new URLSearchParams({grant_type: "password", username: email, password: password}),
    });
    const data = await response.json().catch(() => null);
    if (!response.ok) {
      throw new ApiError(response.status, response.status === 401 ? {message: "Wrong email or password."} : data);
    }
    remember(data.csrf_token);
    const next = nextPath();
    if (next) { location.assign(next); } else if (location.pathname === "/") { location.assign("/"); } else { location.reload(); }
  }

  function wireSignIn() {
    const notice = document.getElementById("signin-notice");
    const reason = new URLSearchParams(location.search).get("reason");
    if (notice && reason) {
      notice.textContent = reason === "signed-out" ? "You signed out." : reason === "deleted" ? "Your account was deleted." : "Your session ended: sign in again.";
      notice.hidden = false;
    }
    document.querySelectorAll("form[data-form]").forEach((form) => {
      form.addEventListener("submit", async (event) => {
        event.preventDefault();
        const status = form.querySelector(".form-error");
        status.textContent = "";
        const button = form.querySelector("button[type=submit]");
        button.disabled = true;
        try {
          if (form.dataset.form === "register") {
            const response = await fetch("/api/auth/register", {
              method: "POST", credentials: "same-origin", headers: {"Content-Type": "application/json"},
              body: JSON.stringify({email: form.email.value, password: form.password.value, display_name: form.display_name.value || undefined}),
            });
            if (!response.ok) { throw new ApiError(response.status, await response.json().catch(() => null)); }
          }
          await signIn(form.email.value, form.password.value);
        } catch (error) {
          status.textContent = error.message;
          button.disabled = false;
        }
      });
    });
  }

  function wireSession() {
    document.querySelectorAll("[data-signout]").forEach((button) => {
      button.addEventListener("click", async () => {
        await fetch("/api/auth/logout", {method: "POST", credentials: "same-origin", headers: {"X-CSRF-Token": csrfToken()}});
        clearCsrf();
        location.assign("/?reason=signed-out");
      });
    });
    const check = () => { ensureFresh().catch(() => { /* handled: sent to sign-in */ }); };
    check();
    setInterval(check, 60 * 1000);
    document.addEventListener("visibilitychange", () => { if (!document.hidden) { check(); } });
  }

  document.addEventListener("DOMContentLoaded", () => {
    if (signedIn()) { wireSession(); } else { wireSignIn(); }
  });

  return {api: api, zone: zone, upload: upload, el: el, fmt: fmt, copy: copy, showError: showError, csrfToken: csrfToken, renew: renew, toSignIn: toSignIn, sessionExpired: sessionExpired, ApiError: ApiError};
})();
