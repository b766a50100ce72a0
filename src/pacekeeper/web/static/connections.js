/* Connections: Connect (the provider's consent page), Sync now with live progress
   (POST /api/sync, then GET /api/sync/{provider} every second), Disconnect. */
"use strict";
(() => {
  const userId = document.body.dataset.userId;

  function describe(state) {
    const report = state.report || {};
    const counts = "imported " + (report.imported || 0) + ", merged " + (report.merged || 0) + ", already there " + (report.duplicates || 0);
    switch (state.status) {
      case "running": return "Syncing… " + counts;
      case "done": return "Last sync done: " + counts + (state.finished_at ? " (" + Pk.fmt.datetime(state.finished_at) + ")" : "");
      case "paused": return "Paused by the provider's rate limit; it resumes on the next sync. " + counts;
      case "failed": return "The last sync failed" + (report.message ? ": " + report.message : "") + ".";
      case "never": return "Not synced yet.";
      default: return state.status;
    }
  }

  async function poll(provider, line, button) {
    for (;;) {
      const [state] = await Promise.all([Pk.api("/api/sync/" + provider), Pk.zone()]);
      line.textContent = describe(state);
      if (state.status !== "running") { break; }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    if (button) { button.disabled = false; }
  }

  document.querySelectorAll("button[data-connect]").forEach((button) => {
    button.addEventListener("click", async () => {
      try {
        const answer = await Pk.api("/api/oauth/auth/" + button.dataset.connect + "/" + userId);
        location.assign(answer.authorization_url);
      } catch (error) { Pk.showError(error); }
    });
  });
  function wireDisconnect(button) {
    button.addEventListener("click", async () => {
      // No confirmation: a disconnection is undone by connecting again, and what the
      // provider already brought stays.
      try {
        await Pk.api("/api/oauth/connections/" + button.dataset.disconnect, {method: "DELETE"});
        location.reload();
      } catch (error) { Pk.showError(error); }
    });
  }
  document.querySelectorAll("button[data-disconnect]").forEach(wireDisconnect);

  function wireSync(button) {
    const provider = button.dataset.sync;
    const line = document.querySelector("[data-sync-status=" + provider + "]");
    Promise.all([Pk.api("/api/sync/" + provider), Pk.zone()]).then(([state]) => {
      line.textContent = describe(state);
      if (state.status === "running") { button.disabled = true; poll(provider, line, button); }
    }).catch(() => { line.textContent = ""; });
    button.addEventListener("click", async () => {
      button.disabled = true;
      line.textContent = "Starting…";
      try {
        await Pk.api("/api/sync", {method: "POST", body: {provider: provider}});
        await poll(provider, line, button);
      } catch (error) {
        line.textContent = error.message;
        button.disabled = false;
      }
    });
  }
  document.querySelectorAll("button[data-sync]").forEach(wireSync);

  /* When the Live panel reports a sync for a row still shown as not connected (connected
     in another tab), show it connected; but ask first: the event may come from a sync
     that was already running when the person disconnected here. */
  document.addEventListener("pk:live", async (event) => {
    const data = event.detail;
    if (!data || data.type !== "sync") { return; }
    const row = document.querySelector(".row[data-provider=" + CSS.escape(data.provider) + "]");
    if (!row || row.classList.contains("connected")) { return; }
    let now;
    try { now = await Pk.api("/oauth/status"); } catch (error) { return; }
    if (!now[data.provider] || !now[data.provider].connected || row.classList.contains("connected")) { return; }
    row.classList.remove("disconnected", "needs_reconnect");
    row.classList.add("connected");
    row.querySelector(".state").replaceChildren(Pk.el("span", {class: "dot"}), "Connected");
    const sync = Pk.el("button", {class: "primary", type: "button", "data-sync": data.provider, text: "Sync now"});
    const disconnect = Pk.el("button", {class: "secondary danger", type: "button", "data-disconnect": data.provider, text: "Disconnect"});
    row.querySelector(".buttons").replaceChildren(sync, disconnect);
    wireSync(sync);
    wireDisconnect(disconnect);
  });
})();
