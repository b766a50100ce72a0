/* A mean-maximal curve (get_power_curve, get_hr_curve, get_pace_curve). */
"use strict";
PkView.start("pacekeeper-curve", (curve) => {
  const {el, duration} = PkView;
  const main = document.querySelector("main");
  const points = (curve.points || []).filter((p) => p.duration_s > 0);
  const field = {power: "watts", hr: "bpm", pace: "speed_mps"}[curve.kind] || "watts";
  const unit = {power: "W", hr: "bpm", pace: "m/s"}[curve.kind] || "";
  const title = {power: "Power curve", hr: "Heart-rate curve", pace: "Pace curve"}[curve.kind] || "Curve";
  if (!points.length) { main.replaceChildren(el("h1", {text: title}), el("p", {class: "empty", text: curve.summary || "No data."})); return; }
  const xs = points.map((p) => p.duration_s);
  const best = [1, 5, 60, 300, 1200, 3600].map((d) => points.find((p) => p.duration_s === d)).filter(Boolean);
  main.replaceChildren(
    el("h1", {text: title}),
    el("p", {class: "summary", text: curve.summary}),
    PkView.lineChart(xs, [{values: points.map((p) => p[field]), color: "#0f766e", label: curve.kind}],
      {logX: true, title: title + ": " + best.map((p) => duration(p.duration_s) + " " + Math.round(p[field]) + " " + unit).join(", "),
        ticks: () => [1, 5, 15, 60, 300, 1200, 3600, 7200].filter((d) => d >= xs[0] && d <= xs[xs.length - 1]).map((d) => ({x: d, label: duration(d)}))}),
    el("table", {}, el("thead", {}, el("tr", {}, el("th", {text: "Duration"}), el("th", {text: "Best (" + unit + ")"}), el("th", {text: "Day"}))),
      el("tbody", {}, ...best.map((p) => el("tr", {}, el("td", {text: duration(p.duration_s)}), el("td", {text: String(Math.round(p[field]))}), el("td", {text: p.date}))))));
});
