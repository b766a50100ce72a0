/* Admin: create users (the admin form of POST /api/auth/register), the service's state
   (registration mode, signing keys), where the server offers it. */
"use strict";
(() => {
  const {el} = Pk;
  const form = document.querySelector("[data-create-user]");
  const status = document.querySelector("[data-user-status]");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const created = await Pk.api("/api/auth/register", {method: "POST", body: {email: form.email.value, password: form.password.value}});
      status.textContent = "Created " + created.email + ".";
      form.reset();
    } catch (error) { status.textContent = error.message; }
  });
  const box = document.querySelector("[data-admin-status]");
  Pk.api("/oauth2/jwks").then((jwks) => {
    const keys = jwks.keys || [];
    box.replaceChildren(
      el("p", {text: keys.length + " signing key" + (keys.length === 1 ? "" : "s") + " published (the current one and any retired ones still in their grace period)."}),
      el("ul", {}, ...keys.map((k) => el("li", {}, el("code", {text: k.kid}), " " + (k.alg || k.kty)))),
      el("p", {class: "muted", text: "Users can be disabled, tenants and plans changed, registration switched and keys rotated with the command line (pacekeeper admin, pacekeeper user); those HTTP endpoints are not in this server yet."}));
  }).catch(Pk.showError);
})();
