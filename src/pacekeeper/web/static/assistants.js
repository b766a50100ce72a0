/* Assistants: ready-to-paste MCP client configuration, and the OAuth clients the person
   authorised (with Revoke). */
"use strict";
(() => {
  const {el, fmt} = Pk;
  const url = location.origin + "/mcp";
  const config = JSON.stringify({mcpServers: {pacekeeper: {type: "http", url: url}}}, null, 2);
  const bridge = "MCPCAST_BRIDGE_TOKEN=<your token> python3 mcpcast-bridge.pyz --url " + url;
  const texts = {"mcp-url": url, "config-json": config, bridge: bridge};
  document.querySelector("[data-mcp-url]").textContent = url;
  document.querySelector("[data-config-json]").textContent = config;
  document.querySelector("[data-bridge]").textContent = bridge;
  const status = document.querySelector("[data-copied]");
  document.querySelectorAll("button[data-copy]").forEach((button) => {
    button.addEventListener("click", () => Pk.copy(texts[button.dataset.copy], status));
  });

  const box = document.querySelector("[data-clients]");
  async function load() {
    try {
      const [answer] = await Promise.all([Pk.api("/api/account/assistants"), Pk.zone()]);
      if (!answer.assistants.length) {
        box.replaceChildren(el("p", {class: "muted", text: "No assistant has access yet. Add the URL above to one and approve it when asked."}));
        return;
      }
      box.replaceChildren(el("div", {class: "list"}, ...answer.assistants.map((a) => el("div", {class: "row", "data-client": a.client_id},
        el("div", {}, el("div", {class: "name", text: a.client_name}),
          el("div", {class: "state", text: "Allowed " + fmt.date(a.authorized_at) + (a.scopes.length ? " · " + a.scopes.join(", ") : "")})),
        el("button", {type: "button", class: "secondary danger", text: "Revoke", "aria-label": "Revoke " + a.client_name, onclick: async () => {
          if (!window.confirm("Revoke " + a.client_name + "'s access? It must ask you again to use Pacekeeper.")) { return; }
          try { await Pk.api("/api/account/assistants/" + encodeURIComponent(a.client_id), {method: "DELETE"}); await load(); } catch (error) { Pk.showError(error); }
        }})))));
    } catch (error) {
      box.replaceChildren(el("p", {class: "muted", text: error.status === 404 ? "Listing assistants is not available on this server yet." : error.message}));
    }
  }
  load();
})();
