/* API keys: create (the secret shown once, with Copy), list with usage against quota,
   revoke. */
"use strict";
(() => {
  const {el, fmt} = Pk;
  const body = document.querySelector("[data-keys] tbody");
  const empty = document.querySelector("[data-empty]");
  const form = document.querySelector("[data-create-key]");
  const secretBox = document.querySelector("[data-secret]");
  const secretValue = document.querySelector("[data-secret-value]");

  function usage(u) {
    const limit = u.limit === null || u.limit === undefined ? null : u.limit;
    return el("div", {class: "usage"},
      el("span", {text: u.used + (limit ? " of " + limit.toLocaleString() : "") + " calls"}),
      limit ? el("meter", {min: "0", max: String(limit), value: String(u.used), "aria-label": "Usage of " + limit + " calls"}) : null);
  }

  async function load() {
    try {
      const [answer] = await Promise.all([Pk.api("/api/keys"), Pk.zone()]);
      body.replaceChildren(...answer.keys.map((k) => el("tr", {"data-key": k.id},
        el("td", {text: k.name}),
        el("td", {}, el("code", {text: k.prefix + "…"})),
        el("td", {text: k.tier}),
        el("td", {}, usage(k.usage)),
        el("td", {text: k.expires_at ? fmt.date(k.expires_at) : "never"}),
        el("td", {}, el("button", {type: "button", class: "secondary danger", "data-revoke": k.id, "aria-label": "Revoke " + k.name, text: "Revoke",
          onclick: () => revoke(k)})))));
      empty.hidden = answer.keys.length > 0;
    } catch (error) { Pk.showError(error); }
  }

  async function revoke(key) {
    if (!window.confirm("Revoke the key \u201c" + key.name + "\u201d? Systems using it stop working at once.")) { return; }
    try {
      await Pk.api("/api/keys/" + encodeURIComponent(key.id), {method: "DELETE"});
      await load();
    } catch (error) { Pk.showError(error); }
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const created = await Pk.api("/api/keys", {method: "POST", body: {name: form.name.value, tier: form.tier.value}});
      secretValue.textContent = created.api_key;
      secretBox.hidden = false;
      document.querySelector("[data-copied]").textContent = "";
      form.reset();
      await load();
      document.querySelector("[data-copy-secret]").focus();
    } catch (error) { Pk.showError(error); }
  });
  document.querySelector("[data-copy-secret]").addEventListener("click", () =>
    Pk.copy(secretValue.textContent, document.querySelector("[data-copied]")));
  load();
})();
