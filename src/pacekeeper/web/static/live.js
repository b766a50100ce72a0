/* Live: the person's own topic (user.<id>, pacekeeper.live) through mcpcast's browser
   client (WebSocket, SSE as the fallback; the session cookie authenticates it, and the
   server lets nobody else subscribe). Shows sync progress and activities as they
   arrive. */
"use strict";
(() => {
  const panel = document.querySelector("[data-live]");
  if (!panel || !window.mcpcast) { return; }
  const {el, fmt} = Pk;
  const stateLabel = panel.querySelector("[data-live-state]");
  const syncBox = panel.querySelector("[data-live-sync]");
  const line = panel.querySelector("[data-live-line]");
  const bar = panel.querySelector("[data-live-progress]");
  const list = panel.querySelector("[data-live-activities]");
  const empty = panel.querySelector("[data-live-empty]");
  const STATES = {connecting: "Connecting…", open: "Live", reconnecting: "Reconnecting…", closed: "Not connected"};

  function onSync(event) {
    syncBox.hidden = false;
    if (event.status === "running") {
      if (typeof event.total === "number" && event.total > 0) {
        bar.max = event.total;
        bar.value = Math.min(event.done || 0, event.total);
      } else {
        bar.removeAttribute("value");  // indeterminate until the first batch
      }
      bar.hidden = false;
      line.textContent = event.message;
      panel.dataset.sync = "running";
      return;
    }
    bar.hidden = true;
    const r = event.report || {};
    line.textContent = event.status === "done"
      ? "Sync of " + event.provider + " done: " + (r.imported || 0) + " new, " + (r.merged || 0) + " merged, " + (r.duplicates || 0) + " already there."
      : "Sync of " + event.provider + " " + event.status + (event.message ? ": " + event.message : "") + ".";
    panel.dataset.sync = event.status;
  }

  function onActivity(event) {
    const a = event.activity;
    const when = fmt.date(a.start_time || a.start_at);
    list.prepend(el("li", {"data-activity": a.id},
      el("a", {href: "/activities/" + encodeURIComponent(a.id), text: a.name || a.sport}),
      el("span", {class: "muted", text: " " + [when, fmt.km(a.distance_m), event.source === "import" ? "imported" : "from " + event.source].filter(Boolean).join(" · ")})));
    empty.hidden = true;
  }

  window.mcpcast.subscribe("user." + document.body.dataset.userId, {
    baseUrl: "/mcp/topics",
    onState: (state) => { panel.dataset.state = state; stateLabel.textContent = STATES[state] || state; },
    onMessage: (event) => {
      document.dispatchEvent(new CustomEvent("pk:live", {detail: event}));  // for the page's own script
      if (event && event.type === "sync") { onSync(event); } else if (event && event.type === "activity") { onActivity(event); }
    },
  });
})();
