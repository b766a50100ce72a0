/* The calendar (get_calendar): its days a week to a row, Monday first; each day's planned
   workouts (planned time and load; once done, how closely: duration and load ratios) and
   what was done. Text only from the result, never markup. */
"use strict";
PkView.start("pacekeeper-calendar", (answer) => {
  const {el, duration} = PkView;
  const main = document.querySelector("main");
  const byDay = new Map((answer.days || []).map((d) => [d.date, d]));
  const first = answer.from ? new Date(answer.from + "T00:00:00Z") : null;
  const last = answer.to ? new Date(answer.to + "T00:00:00Z") : null;
  if (!first || !last || last < first) { main.replaceChildren(el("p", {class: "empty", text: answer.summary || "No days in this range."})); return; }
  const DAY = 86400000;
  const start = new Date(first.getTime() - ((first.getUTCDay() + 6) % 7) * DAY);  // its Monday
  const iso = (d) => d.toISOString().slice(0, 10);
  const pct = (r) => (r === null || r === undefined ? null : Math.round(r * 100) + " %");
  const item = (cls, name, parts) => el("li", {class: cls}, el("strong", {text: name}),
    el("span", {text: parts.filter(Boolean).join(" · ")}));
  const rows = [];
  for (let week = start; week <= last; week = new Date(week.getTime() + 7 * DAY)) {
    const cells = [];
    for (let i = 0; i < 7; i++) {
      const day = new Date(week.getTime() + i * DAY);
      const entry = byDay.get(iso(day));
      const outside = day < first || day > last;
      const list = el("ul", {});
      for (const p of (entry ? entry.planned : [])) {
        const done = p.done;
        list.append(item(done ? "planned done" : "planned", p.name || p.sport, [
          p.sport, p.duration_s ? duration(p.duration_s) : null,
          p.load === null || p.load === undefined ? null : Math.round(p.load) + " load",
          done ? "done: time " + pct(done.duration_ratio) + ", load " + (pct(done.load_ratio) || "–") : null]));
      }
      for (const d of (entry ? entry.done : [])) {
        if (d.workout_id) { continue; }  // shown with its plan
        list.append(item("done", d.name || d.sport, [d.sport, d.moving_s ? duration(d.moving_s) : null,
          d.load === null || d.load === undefined ? null : Math.round(d.load) + " load"]));
      }
      cells.push(el("td", {class: outside ? "outside" : null, "data-date": iso(day)},
        el("div", {class: "date", text: day.toLocaleDateString("en", {weekday: "short", day: "numeric", month: "short", timeZone: "UTC"})}), list));
    }
    rows.push(el("tr", {}, ...cells));
  }
  const names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
  main.replaceChildren(el("h1", {text: "Training calendar"}), el("p", {class: "summary", text: answer.summary}),
    el("table", {class: "calendar", "aria-label": "Calendar"}, el("thead", {}, el("tr", {}, ...names.map((n) => el("th", {text: n})))),
      el("tbody", {}, ...rows)));
});
