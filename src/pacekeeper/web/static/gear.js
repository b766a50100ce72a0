/* Gear (issue 33): the person's bikes and shoes from /api/gear, with their distance, time
   and activities; due ones marked; add, retire (or bring back) and delete. */
"use strict";
(() => {
  const {el, fmt} = Pk;
  const $ = (selector) => document.querySelector(selector);
  const box = $("[data-gear-list]");
  const status = $("[data-gear-status]");
  let units = "metric";
  const distance = (km) => (units === "imperial" ? (km / 1.609344).toFixed(1) + " mi" : km.toFixed(1) + " km");

  async function change(g, method, body) {
    try {
      await Pk.api("/api/gear/" + encodeURIComponent(g.id), {method: method, body: body});
      status.textContent = method === "DELETE" ? g.name + " deleted; its activities stay." : "Saved.";
      await load();
    } catch (error) { status.textContent = error.message; }
  }

  async function load() {
    const gear = (await Pk.api("/api/gear")).gear || [];
    if (!gear.length) { box.replaceChildren(el("p", {class: "muted", text: "No gear yet: add your bike or shoes below."})); return; }
    box.replaceChildren(el("table", {class: "data", "aria-label": "Gear"},
      el("thead", {}, el("tr", {}, el("th", {scope: "col", text: "Name"}), el("th", {scope: "col", class: "num", text: "Distance"}),
        el("th", {scope: "col", class: "num", text: "Time"}), el("th", {scope: "col", class: "num gear-count", text: "Activities"}),
        el("th", {scope: "col", text: "Actions"}))),
      el("tbody", {}, ...gear.map((g) => el("tr", {"data-gear-id": g.id, class: g.retired ? "retired" : null},
        el("th", {scope: "row"}, el("span", {class: "two"}, g.name,
          el("small", {text: [g.kind, g.default_for ? "default for " + g.default_for : null, g.retired ? "retired" : null,
            g.alert_km ? "alert at " + distance(g.alert_km) : null].filter(Boolean).join(" · ")}))),
        el("td", {class: "num"}, distance(g.distance_km), g.due ? el("strong", {class: "due", text: " due"}) : null),
        el("td", {class: "num", text: fmt.duration(g.moving_time_s)}),
        el("td", {class: "num gear-count", text: String(g.activities)}),
        el("td", {class: "gear-actions"}, el("button", {type: "button", class: "secondary", onclick: () => change(g, "PATCH", {retired: !g.retired}),
          text: g.retired ? "Bring back" : "Retire"}), " ",
          el("button", {type: "button", class: "secondary", "aria-label": "Delete " + g.name, onclick: () => change(g, "DELETE")}, "Delete")))))));
  }

  $("[data-gear-form]").addEventListener("submit", async (event) => {
    event.preventDefault();
    const f = event.target.elements;
    const body = {name: f.name.value, kind: f.kind.value, default_for: f.default_for.value || null};
    if (f.alert_km.value) { body.alert_km = Number(f.alert_km.value) * (units === "imperial" ? 1.609344 : 1); }
    try {
      await Pk.api("/api/gear", {method: "POST", body: body});
      event.target.reset();
      status.textContent = "Added.";
      await load();
    } catch (error) { status.textContent = error.message; }
  });

  async function main() {
    const athlete = await Pk.api("/api/athlete").catch(() => ({settings: {}}));
    units = (athlete.settings || {}).units || "metric";
    await load();
  }
  main().catch(Pk.showError);
})();
