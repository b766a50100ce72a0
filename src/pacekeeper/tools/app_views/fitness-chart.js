/* The fitness chart (get_fitness_chart): CTL, ATL, TSB per day, the day's load behind. */
"use strict";
PkView.start("pacekeeper-fitness-chart", (chart) => {
  const {el} = PkView;
  const days = chart.days || [];
  const main = document.querySelector("main");
  if (!days.length) { main.replaceChildren(el("p", {class: "empty", text: chart.summary || "No days in this range."})); return; }
  const xs = days.map((d, i) => i);
  const step = Math.max(1, Math.round(days.length / 6));
  const last = days[days.length - 1];
  main.replaceChildren(
    el("h1", {text: "Fitness, fatigue and form"}),
    el("p", {class: "summary", text: chart.summary}),
    PkView.lineChart(xs, [
      {values: days.map((d) => d.load), color: "#cbd5e1", label: "load", width: 1},
      {values: days.map((d) => d.ctl), color: "#0f766e", label: "ctl"},
      {values: days.map((d) => d.atl), color: "#be185d", label: "atl"},
      {values: days.map((d) => d.tsb), color: "#1d4ed8", label: "tsb"},
    ], {title: "CTL " + last.ctl.toFixed(1) + ", ATL " + last.atl.toFixed(1) + ", TSB " + last.tsb.toFixed(1) + " on " + last.date,
      ticks: (x) => x.filter((i) => i % step === 0).map((i) => ({x: i, label: days[i].date.slice(5)}))}),
    el("ul", {class: "legend"}, el("li", {class: "ctl", text: "Fitness (CTL)"}), el("li", {class: "atl", text: "Fatigue (ATL)"}),
      el("li", {class: "tsb", text: "Form (TSB)"}), el("li", {class: "load", text: "Daily load"})));
});
