/* Admin: the registration mode, users (find, disable, enable), creating users (in a
   tenant or their own), tenants and plans (create, change plan and rate limit), the
   published signing keys. Everything through /api/admin/* (admins only, CSRF on writes). */
"use strict";
(() => {
  const {el, fmt} = Pk;
  const me = document.body.dataset.userId;
  let plans = [];
  let tenants = [];

  /* Registration mode */
  const regForm = document.querySelector("[data-registration]");
  const regStatus = document.querySelector("[data-registration-status]");
  function showMode(state) {
    regForm.querySelectorAll("input[name=mode]").forEach((r) => { r.checked = r.value === state.mode; });
    regStatus.textContent = state.source === "stored" ? "" : "Set by the server's configuration (PACEKEEPER_REGISTRATION) until you save a choice here.";
  }
  regForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const chosen = regForm.querySelector("input[name=mode]:checked");
    if (!chosen) { return; }
    try {
      showMode(await Pk.api("/api/admin/registration", {method: "PUT", body: {mode: chosen.value}}));
      regStatus.textContent = "Saved: registration is " + {open: "open to anyone", admin: "by invitation (administrators create accounts)", closed: "closed"}[chosen.value] + ".";
    } catch (error) { regStatus.textContent = error.message; }
  });

  /* Users */
  const usersBody = document.querySelector("[data-users] tbody");
  const usersEmpty = document.querySelector("[data-users-empty]");
  const usersMore = document.querySelector("[data-users-more]");
  const usersStatus = document.querySelector("[data-users-status]");
  const findForm = document.querySelector("[data-find-users]");
  let after = null;

  function userRow(u) {
    const disabled = u.status === "disabled";
    const action = u.id === me ? el("span", {class: "muted", text: "you"}) : el("button", {
      type: "button", class: disabled ? "secondary" : "secondary danger",
      text: disabled ? "Enable" : "Disable", "aria-label": (disabled ? "Enable " : "Disable ") + u.email,
      onclick: () => setStatus(u, disabled ? "active" : "disabled")});
    return el("tr", {"data-user": u.email, "data-status": u.status},
      el("td", {}, u.email, u.role === "admin" ? el("span", {class: "tag", text: "admin"}) : null),
      el("td", {class: "hide-phone", text: u.tenant_name}),
      el("td", {text: disabled ? "Disabled" : "Active"}),
      el("td", {class: "hide-phone", text: u.last_login_at ? fmt.datetime(u.last_login_at) : "never"}),
      el("td", {}, action));
  }

  async function loadUsers(more) {
    const query = new URLSearchParams({limit: "50"});
    if (findForm.q.value) { query.set("q", findForm.q.value); }
    if (findForm.tenant_id.value) { query.set("tenant_id", findForm.tenant_id.value); }
    if (more && after) { query.set("after", after); }
    try {
      const page = await Pk.api("/api/admin/users?" + query.toString());
      const rows = page.users.map(userRow);
      if (more) { usersBody.append(...rows); } else { usersBody.replaceChildren(...rows); }
      after = page.next_after;
      usersMore.hidden = !after;
      usersEmpty.hidden = usersBody.children.length > 0;
    } catch (error) { usersStatus.textContent = error.message; }
  }

  async function setStatus(user, status) {
    if (status === "disabled" && !window.confirm("Disable " + user.email + "? Their sessions, tokens and API keys stop working at once.")) { return; }
    try {
      const answer = await Pk.api("/api/admin/users/" + encodeURIComponent(user.id), {method: "PATCH", body: {status: status}});
      usersBody.querySelector("tr[data-user='" + CSS.escape(user.email) + "']").replaceWith(userRow(answer.user));
      usersStatus.textContent = (status === "disabled" ? "Disabled " : "Enabled ") + user.email + ".";
    } catch (error) { usersStatus.textContent = error.message; }
  }

  findForm.addEventListener("submit", (event) => { event.preventDefault(); loadUsers(false); });
  usersMore.addEventListener("click", () => loadUsers(true));

  /* Create a user */
  const userForm = document.querySelector("[data-create-user]");
  const userStatus = document.querySelector("[data-user-status]");
  userForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = {email: userForm.email.value, password: userForm.password.value};
    if (userForm.tenant_id.value) { body.tenant_id = userForm.tenant_id.value; }
    try {
      const created = await Pk.api("/api/auth/register", {method: "POST", body: body});
      userStatus.textContent = "Created " + created.email + ".";
      userForm.reset();
      await Promise.all([loadUsers(false), loadTenants()]);
    } catch (error) { userStatus.textContent = error.message; }
  });

  /* Tenants and plans */
  const tenantsBody = document.querySelector("[data-tenants] tbody");
  const tenantStatus = document.querySelector("[data-tenant-status]");
  const tenantForm = document.querySelector("[data-create-tenant]");

  function planSelect(current, label) {
    return el("select", {"aria-label": label}, ...plans.map((p) => el("option", {value: p.name, text: p.name, selected: p.name === current})));
  }

  function rateValue(input) {
    return input.value === "" ? null : Number(input.value);
  }

  function tenantRow(t) {
    const plan = planSelect(t.plan, "Plan of " + t.name);
    const rate = el("input", {type: "number", min: "1", max: "1000000", placeholder: "default",
      value: t.rate_limit_per_minute === null ? null : String(t.rate_limit_per_minute), "aria-label": "Requests per minute for " + t.name});
    const save = el("button", {type: "button", class: "secondary", text: "Save", "aria-label": "Save " + t.name, onclick: async () => {
      try {
        const answer = await Pk.api("/api/admin/tenants/" + encodeURIComponent(t.id), {method: "PATCH", body: {plan: plan.value, rate_limit_per_minute: rateValue(rate)}});
        tenantStatus.textContent = "Saved " + answer.tenant.name + ": plan " + answer.tenant.plan + ".";
      } catch (error) { tenantStatus.textContent = error.message; }
    }});
    return el("tr", {"data-tenant": t.slug},
      el("td", {}, el("div", {text: t.name}), el("small", {class: "muted", text: t.slug})),
      el("td", {}, plan), el("td", {}, rate), el("td", {class: "num hide-phone", text: String(t.users)}), el("td", {}, save));
  }

  function tenantOptions(select, first) {
    select.replaceChildren(el("option", {value: "", text: first}), ...tenants.map((t) => el("option", {value: t.id, text: t.name})));
  }

  async function loadTenants() {
    try {
      tenants = (await Pk.api("/api/admin/tenants")).tenants;
      tenantsBody.replaceChildren(...tenants.map(tenantRow));
      const filter = document.querySelector("[data-tenant-filter]");
      const kept = filter.value;
      tenantOptions(filter, "Every tenant");
      filter.value = kept;
      tenantOptions(document.querySelector("[data-tenant-choice]"), "A new personal tenant");
    } catch (error) { tenantStatus.textContent = error.message; }
  }

  tenantForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const answer = await Pk.api("/api/admin/tenants", {method: "POST", body: {name: tenantForm.name.value, plan: tenantForm.plan.value, rate_limit_per_minute: rateValue(tenantForm.rate)}});
      tenantStatus.textContent = "Created " + answer.tenant.name + ".";
      tenantForm.reset();
      await loadTenants();
    } catch (error) { tenantStatus.textContent = error.message; }
  });

  async function start() {
    try {
      const [mode, planList] = await Promise.all([Pk.api("/api/admin/registration"), Pk.api("/api/admin/plans"), Pk.zone()]);
      showMode(mode);
      plans = planList.plans;
      document.querySelector("[data-plans]").textContent = "A tenant's plan decides which API key tiers its people may create: " +
        plans.map((p) => p.name + " (" + p.key_tiers.join(", ") + ")").join("; ") + ".";
      document.querySelector("[data-plan-choice]").replaceChildren(...plans.map((p) => el("option", {value: p.name, text: p.name})));
      await loadTenants();
      await loadUsers(false);
    } catch (error) { Pk.showError(error); }
  }
  start();

  /* Signing keys */
  const box = document.querySelector("[data-admin-status]");
  Pk.api("/oauth2/jwks").then((jwks) => {
    const keys = jwks.keys || [];
    box.replaceChildren(
      el("p", {text: keys.length + " signing key" + (keys.length === 1 ? "" : "s") + " published (the current one and any retired ones still in their grace period)."}),
      el("ul", {class: "kids"}, ...keys.map((k) => el("li", {}, el("code", {text: k.kid}), " " + (k.alg || k.kty)))),
      el("p", {class: "muted", text: "Keys rotate on schedule; rotate now with the command line: pacekeeper keys rotate."}));
  }).catch(Pk.showError);
})();
