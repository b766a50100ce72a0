/* Live: the person's own topic (user.<id>, pacekeeper.live) through mcpcast's browser
   client (WebSocket, SSE as the fallback; the session cookie authenticates it, and the
   server lets nobody else subscribe). Shows sync progress, activities as they arrive,
   and assistants' tool calls (pacekeeper.mcp._activity) with their progress and outcome. */
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
  const tools = panel.querySelector("[data-live-tools]");
  const toolsEmpty = panel.querySelector("[data-live-tools-empty]");
  const OUTCOMES = {ok: "done", error: "failed", rejected: "refused"};
  const MAX_CALLS = 30;
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
    const when = fmt.localDate(a.start_time || a.start_at);
    list.prepend(el("li", {"data-activity": a.id},
      el("a", {href: "/activities/" + encodeURIComponent(a.id), text: a.name || a.sport}),
      el("span", {class: "muted", text: " " + [when, fmt.km(a.distance_m), event.source === "import" ? "imported" : "from " + event.source].filter(Boolean).join(" · ")})));
    empty.hidden = true;
  }

  // One line per call: who called which tool, then its progress and its outcome.
  function onTool(event) {
    let item = tools.querySelector('[data-call="' + CSS.escape(String(event.id)) + '"]');
    if (!item) {
      item = el("li", {"data-call": event.id, "data-tool": event.tool, "data-phase": "started"},
        el("strong", {text: event.assistant || "An assistant"}),
        el("span", {text: " called "}),
        el("code", {text: event.tool}),
        el("span", {class: "muted", "data-call-summary": "", text: event.summary ? " — " + event.summary : ""}),
        el("div", {class: "live-call-state", "data-call-state": "", text: "Running…"}));
      tools.prepend(item);
      while (tools.children.length > MAX_CALLS) { tools.lastElementChild.remove(); }
      toolsEmpty.hidden = true;
    }
    const state = item.querySelector("[data-call-state]");
    if (event.phase === "progress") {
      const parts = [];
      if (typeof event.progress === "number") {
        parts.push(typeof event.total === "number" ? event.progress + " of " + event.total : String(event.progress));
      }
      if (event.message) { parts.push(event.message); }
      if (item.dataset.phase !== "ended") { state.textContent = parts.join(": ") || "Running…"; }
    } else if (event.phase === "ended") {
      item.dataset.phase = "ended";
      item.dataset.outcome = event.outcome;
      state.textContent = (OUTCOMES[event.outcome] || event.outcome) + " in " + event.ms + " ms";
    }
  }

  window.mcpcast.subscribe("user." + document.body.dataset.userId, {
    baseUrl: "/mcp/topics",
    onState: (state) => { panel.dataset.state = state; stateLabel.textContent = STATES[state] || state; },
    onMessage: (event) => {
      document.dispatchEvent(new CustomEvent("pk:live", {detail: event}));  // for the page's own script
      if (!event) { return; }
      if (event.type === "sync") { onSync(event); } else if (event.type === "activity") { onActivity(event); } else if (event.type === "tool") { onTool(event); }
    },
  });
})();
