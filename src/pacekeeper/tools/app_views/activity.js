/* One activity (get_activity): the headline figures, its mean-maximal power curve, laps. */
"use strict";
PkView.start("pacekeeper-activity", (a) => {
  const {el, duration} = PkView;
  const main = document.querySelector("main");
  const m = a.metrics || {};
  const fmt = (v, d, u) => (v === null || v === undefined ? null : Number(v).toFixed(d) + (u ? " " + u : ""));
  const hms = (s) => { s = Math.round(s); const h = Math.floor(s / 3600), mi = Math.floor(s % 3600 / 60), se = s % 60; return (h ? h + ":" + String(mi).padStart(2, "0") : mi) + ":" + String(se).padStart(2, "0"); };
  const facts = [
    ["Distance", a.distance_m === null ? null : fmt(a.distance_m / 1000, 2, "km")],
    ["Time", a.elapsed_time_s ? hms(a.moving_time_s || a.elapsed_time_s) : null],
    ["Elevation gain", fmt(a.elevation_gain_m, 0, "m")], ["Avg heart rate", fmt(a.avg_hr_bpm, 0, "bpm")],
    ["Avg power", fmt(a.avg_power_w, 0, "W")], ["Normalized power", fmt(m.normalized_power_w, 0, "W")],
    ["Training load", fmt(m.load, 0)], ["Intensity factor", fmt(m.intensity_factor, 2)],
  ].filter((f) => f[1] !== null);
  const parts = [el("h1", {text: a.name || a.sport}), el("p", {class: "summary", text: [a.sport, (a.start_time || "").slice(0, 16).replace("T", " "), a.device].filter(Boolean).join(" · ")}),
    el("dl", {class: "facts"}, ...facts.map((f) => el("div", {}, el("dt", {text: f[0]}), el("dd", {text: f[1]}))))];
  const curve = m.power_curve_w, durations = m.curve_durations_s;
  if (Array.isArray(curve) && Array.isArray(durations) && curve.some((v) => v)) {
    const xs = [], ys = [];
    durations.forEach((d, i) => { if (d > 0 && curve[i]) { xs.push(d); ys.push(curve[i]); } });
    parts.push(el("h1", {text: "Power curve"}), PkView.lineChart(xs, [{values: ys, color: "#0f766e", label: "power"}], {logX: true,
      title: "Best power: " + xs.filter((d) => [5, 60, 300, 1200].includes(d)).map((d) => duration(d) + " " + Math.round(ys[xs.indexOf(d)]) + " W").join(", "),
      ticks: () => [1, 5, 15, 60, 300, 1200, 3600].filter((d) => d >= xs[0] && d <= xs[xs.length - 1]).map((d) => ({x: d, label: duration(d)}))}));
  }
  const laps = (a.laps || []).slice(0, 30);
  if (laps.length > 1) {
    parts.push(el("h1", {text: "Laps"}), el("table", {}, el("thead", {}, el("tr", {}, el("th", {text: "Lap"}), el("th", {text: "Time"}), el("th", {text: "km"}), el("th", {text: "W"}), el("th", {text: "bpm"}))),
      el("tbody", {}, ...laps.map((l, i) => el("tr", {}, el("td", {text: String(i + 1)}), el("td", {text: l.elapsed_s ? hms(l.elapsed_s) : ""}),
        el("td", {text: fmt((l.distance_m || 0) / 1000, 2) || ""}), el("td", {text: fmt(l.avg_power_w, 0) || ""}), el("td", {text: fmt(l.avg_hr_bpm, 0) || ""}))))));
  }
  main.replaceChildren(...parts);
});
