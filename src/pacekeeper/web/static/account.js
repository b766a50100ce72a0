/* Account: units and locale, change password, download my data, delete my account
   (each confirmed). */
"use strict";
(() => {
  /* Units and locale (issue 33): athlete settings (PATCH /api/athlete), so every page and
     tool answer reads them from one place. The zone is checked by the server (zoneinfo);
     the browser's list only helps typing. */
  const locale = document.querySelector("[data-locale]");
  const zoneHint = document.querySelector("[data-zone-hint]");
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  function nowIn(zone) {
    if (!zone) { return; }
    try {
      const now = new Date().toLocaleString(undefined, {timeZone: zone, weekday: "long", day: "numeric", month: "long", hour: "2-digit", minute: "2-digit"});
      zoneHint.textContent = "Now in " + zone + ": " + now + ".";
    } catch (e) { /* a zone this browser does not know: the server decides */ }
  }
  function fill(settings) {
    locale.elements.units.value = settings.units || "metric";
    locale.elements.time_zone.value = settings.time_zone || "";
    locale.elements.first_day_of_week.value = settings.first_day_of_week || "monday";
    if (!settings.time_zone && browserZone) { locale.elements.time_zone.placeholder = browserZone; }
    nowIn(settings.time_zone);
  }
  try {
    const list = document.getElementById("zones");
    for (const zone of Intl.supportedValuesOf ? Intl.supportedValuesOf("timeZone") : []) { list.append(Pk.el("option", {value: zone})); }
  } catch (e) { /* an older browser: typing still works */ }
  Pk.api("/api/athlete").then((athlete) => fill(athlete.settings || {})).catch(Pk.showError);
  locale.addEventListener("submit", async (event) => {
    event.preventDefault();
    const status = locale.querySelector(".form-status");
    status.textContent = "";
    const zone = locale.elements.time_zone.value.trim();
    const body = {units: locale.elements.units.value, first_day_of_week: locale.elements.first_day_of_week.value};
    if (zone) { body.time_zone = zone; }
    try {
      const athlete = await Pk.api("/api/athlete", {method: "PATCH", body: body});
      fill(athlete.settings || {});
      status.textContent = "Saved.";
    } catch (error) { status.textContent = error.message; }
  });

  const password = document.querySelector("[data-change-password]");
  password.addEventListener("submit", async (event) => {
    event.preventDefault();
    const status = password.querySelector(".form-status");
    status.textContent = "";
    try {
      const answer = await Pk.api("/api/account/password", {method: "POST", body: {current_password: password.current_password.value, new_password: password.new_password.value}});
      if (answer.csrf_token) { try { localStorage.setItem("pk.csrf", JSON.stringify({token: answer.csrf_token, at: Date.now()})); } catch (e) { /* ignore */ } }
      password.reset();
      status.textContent = "Password changed. Other sessions and devices were signed out.";
    } catch (error) { status.textContent = error.message; }
  });

  const exportButton = document.querySelector("[data-export]");
  const exportStatus = document.querySelector("[data-export-status]");
  exportButton.addEventListener("click", async () => {
    exportButton.disabled = true;
    exportStatus.textContent = "Preparing your archive…";
    try {
      const response = await Pk.api("/api/account/export", {raw: true});
      const blob = await response.blob();
      const name = (/filename="([^"]+)"/.exec(response.headers.get("content-disposition") || "") || [null, "pacekeeper-export.zip"])[1];
      const link = Pk.el("a", {href: URL.createObjectURL(blob), download: name, class: "offscreen", text: "download"});
      document.body.append(link);
      link.click();
      link.remove();
      exportStatus.textContent = "Downloaded " + name + " (" + Math.ceil(blob.size / 1024) + " KB).";
    } catch (error) { exportStatus.textContent = error.message; }
    exportButton.disabled = false;
  });

  /* The calendar feed (PLAN-4): a new secret address (shown once), or none. */
  const feedUrl = document.querySelector("[data-feed-url]");
  const feedStatus = document.querySelector("[data-feed-status]");
  document.querySelector("[data-feed-new]").addEventListener("click", async () => {
    try {
      const answer = await Pk.api("/api/account/calendar-token", {method: "POST"});
      feedUrl.value = answer.url;
      feedUrl.closest("label").hidden = false;
      feedStatus.textContent = "Copy this address into your calendar app now: it is not shown again.";
    } catch (error) { feedStatus.textContent = error.message; }
  });
  document.querySelector("[data-feed-revoke]").addEventListener("click", async () => {
    try {
      await Pk.api("/api/account/calendar-token", {method: "DELETE"});
      feedStatus.textContent = "The feed is off: its address no longer works.";
    } catch (error) { feedStatus.textContent = error.status === 404 ? "There is no feed to turn off." : error.message; }
    feedUrl.value = "";
    feedUrl.closest("label").hidden = true;
  });

  const remove = document.querySelector("[data-delete-account]");
  remove.addEventListener("submit", async (event) => {
    event.preventDefault();
    const status = remove.querySelector(".form-status");
    if (!window.confirm("Delete your account and all your data now? This cannot be undone.")) { return; }
    try {
      await Pk.api("/api/account", {method: "DELETE", body: {password: remove.password.value}});
      try { localStorage.removeItem("pk.csrf"); } catch (e) { /* ignore */ }
      location.assign("/?reason=deleted");
    } catch (error) { status.textContent = error.message; }
  });
})();
