/* Calendar (issue 32): a month or a week of planned workouts beside what was done, from
   GET /api/calendar. A planned workout moves to another day by drag and drop, or by its
   "Move" date field (the keyboard's way): both PATCH its date. The workouts made without
   a date (GET /api/workouts) are listed under "Unscheduled", scheduled the same two ways. Dates are handled as
   YYYY-MM-DD strings in UTC arithmetic, so no time zone shifts a day. */
"use strict";
(() => {
  const {el, fmt} = Pk;
  const DAY = 86400000;
  const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
  const box = document.querySelector("[data-cal]");
  const empty = document.querySelector("[data-cal-empty]");
  const status = document.querySelector("[data-cal-status]");
  const title = document.querySelector("[data-cal-title]");

  const iso = (d) => d.toISOString().slice(0, 10);
  const parse = (s) => new Date(s + "T00:00:00Z");
  const addDays = (s, n) => iso(new Date(parse(s).getTime() + n * DAY));
  const monday = (s) => addDays(s, -((parse(s).getUTCDay() + 6) % 7));
  const now = new Date();
  const today = iso(new Date(Date.UTC(now.getFullYear(), now.getMonth(), now.getDate())));
  const label = (s, opts) => parse(s).toLocaleDateString(undefined, {...opts, timeZone: "UTC"});

  const params = new URLSearchParams(location.search);
  const state = {view: params.get("view") === "week" ? "week" : "month",
    anchor: /^\d{4}-\d{2}-\d{2}$/.test(params.get("date") || "") ? params.get("date") : today};

  function range() {
    if (state.view === "week") { const first = monday(state.anchor); return [first, addDays(first, 6)]; }
    const first = state.anchor.slice(0, 8) + "01";
    const next = parse(first); next.setUTCMonth(next.getUTCMonth() + 1);
    const last = addDays(iso(next), -1);
    return [monday(first), addDays(monday(last), 6)];
  }

  function keepInUrl() {
    const query = new URLSearchParams({view: state.view, date: state.anchor});
    history.replaceState(null, "", "/calendar?" + query.toString());
  }

  async function move(id, date) {
    status.textContent = "Moving…";
    try {
      await Pk.api("/api/workouts/" + encodeURIComponent(id), {method: "PATCH", body: {date: date}});
      status.textContent = "Moved to " + label(date, {weekday: "short", day: "numeric", month: "short"}) + ".";
      await load();
    } catch (error) { status.textContent = error.message; }
  }

  function percent(ratio) { return ratio === null || ratio === undefined ? "–" : Math.round(ratio * 100) + " %"; }

  // A planned workout on its day, or (date null) an unscheduled one: "Schedule" it.
  function plannedItem(w, date) {
    const figures = [w.duration_s ? fmt.duration(w.duration_s) : null,
      w.load === null || w.load === undefined ? null : Math.round(w.load) + " " + (w.load_method || "load").toUpperCase()].filter(Boolean).join(" · ");
    const verb = date ? "Move" : "Schedule";
    const field = el("input", {type: "date", value: date || "", required: "", "aria-label": verb + " " + w.name + (date ? " to" : " on")});
    const item = el("li", {class: "cal-item planned" + (w.done ? " is-done" : ""), draggable: "true", "data-workout-id": w.id},
      el("a", {href: "/workouts/" + w.id, text: w.name}),
      el("span", {class: "cal-figures", text: figures || w.sport}));
    if (w.done) {
      const parts = ["time " + percent(w.done.duration_ratio), "load " + percent(w.done.load_ratio)];
      if (w.done.time_in_target !== undefined) { parts.push("in target " + percent(w.done.time_in_target)); }
      item.append(el("span", {class: "cal-compliance", text: "Done: " + parts.join(", ")}));
    }
    item.append(el("details", {class: "cal-move"}, el("summary", {text: verb}),
      el("form", {onsubmit: (e) => { e.preventDefault(); if (field.value && field.value !== date) { move(w.id, field.value); } }},
        el("label", {}, date ? "Move to " : "On ", field), el("button", {type: "submit", class: "secondary", text: verb}))));
    item.addEventListener("dragstart", (e) => { e.dataTransfer.setData("text/plain", w.id); e.dataTransfer.effectAllowed = "move"; });
    return item;
  }

  function doneItem(a) {
    return el("li", {class: "cal-item done"},
      el("a", {href: "/activities/" + a.id, text: a.name || a.sport}),
      el("span", {class: "cal-figures", text: [fmt.duration(a.moving_s), a.load === null ? null : Math.round(a.load) + " load"].filter(Boolean).join(" · ")}));
  }

  function cell(date, day, month) {
    const outside = month !== null && date.slice(0, 7) !== month;
    const node = el("div", {role: "cell", class: "cal-day" + (outside ? " outside" : "") + (date === today ? " today" : ""), "data-date": date},
      el("time", {datetime: date, class: "cal-date", "aria-current": date === today ? "date" : null,
        text: label(date, {weekday: "short", day: "numeric", month: "short"})}));
    const planned = (day && day.planned) || [], done = (day && day.done) || [];
    if (planned.length) { node.append(el("ul", {class: "cal-list", "aria-label": "Planned"}, ...planned.map((w) => plannedItem(w, date)))); }
    if (done.length) { node.append(el("ul", {class: "cal-list", "aria-label": "Done"}, ...done.map(doneItem))); }
    node.addEventListener("dragover", (e) => { e.preventDefault(); node.classList.add("drop"); });
    node.addEventListener("dragleave", () => node.classList.remove("drop"));
    node.addEventListener("drop", (e) => {
      e.preventDefault();
      node.classList.remove("drop");
      const id = e.dataTransfer.getData("text/plain");
      if (id) { move(id, date); }
    });
    return node;
  }

  function unscheduled(list) {
    const section = document.querySelector("[data-unscheduled-section]");
    section.hidden = !list.length;
    document.querySelector("[data-unscheduled]").replaceChildren(...list.map((w) => plannedItem(w, null)));
  }

  async function load() {
    const [first, last] = range();
    keepInUrl();
    document.querySelectorAll("[data-cal-view]").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.calView === state.view)));
    title.textContent = state.view === "week"
      ? "Week of " + label(first, {day: "numeric", month: "long", year: "numeric"})
      : label(state.anchor.slice(0, 8) + "01", {month: "long", year: "numeric"});
    try {
      const [answer, loose] = await Promise.all([Pk.api("/api/calendar?from=" + first + "&to=" + last), Pk.api("/api/workouts")]);
      unscheduled(loose.unscheduled || []);
      const byDate = new Map((answer.days || []).map((d) => [d.date, d]));
      const month = state.view === "month" ? state.anchor.slice(0, 7) : null;
      const rows = [el("div", {role: "row", class: "cal-row cal-head"}, ...WEEKDAYS.map((d) => el("div", {role: "columnheader", text: d})))];
      for (let start = first; start <= last; start = addDays(start, 7)) {
        const cells = [];
        for (let i = 0; i < 7; i++) { const date = addDays(start, i); cells.push(cell(date, byDate.get(date), month)); }
        rows.push(el("div", {role: "row", class: "cal-row"}, ...cells));
      }
      box.replaceChildren(el("div", {role: "table", class: "cal-grid cal-" + state.view, "aria-label": title.textContent}, ...rows));
      const anything = (answer.days || []).some((d) => d.planned.length || d.done.length);
      empty.hidden = anything;
      empty.replaceChildren(...(anything ? [] : (loose.unscheduled || []).length
        ? ["Nothing planned or done in this " + state.view + ": give one of your unscheduled workouts a day."]
        : ["Nothing planned or done in this " + state.view + ". ",
          el("a", {href: "/workouts/new", text: "Build a workout"}), " and give it a date, or ask your assistant to plan your weeks."]));
    } catch (error) { box.replaceChildren(el("p", {class: "error", text: error.message})); }
  }

  document.querySelectorAll("[data-cal-step]").forEach((button) => button.addEventListener("click", () => {
    const step = Number(button.dataset.calStep);
    if (state.view === "week") { state.anchor = addDays(state.anchor, 7 * step); } else {
      const d = parse(state.anchor.slice(0, 8) + "01"); d.setUTCMonth(d.getUTCMonth() + step); state.anchor = iso(d);
    }
    status.textContent = "";
    load();
  }));
  document.querySelector("[data-cal-today]").addEventListener("click", () => { state.anchor = today; load(); });
  document.querySelectorAll("[data-cal-view]").forEach((button) => button.addEventListener("click", () => { state.view = button.dataset.calView; load(); }));
  load();
})();
