/* Fitness: CTL/ATL/TSB over a chosen range, curves for a period against the season best,
   zone distribution, readiness, race predictions. Each from the analysis API; a route
   this server does not have yet says so instead of failing the page. */
"use strict";
(() => {
  const {el, fmt} = Pk;
  const DAY = 86400000;
  const iso = (d) => d.toISOString().slice(0, 10);
  const today = new Date();

  function unavailable(box, error, what) {
    box.replaceChildren(el("p", {class: "muted", text: error.status === 404 || error.status === 405
      ? what + " is not available on this server yet." : error.message}));
  }

  function noData(box, text) { box.replaceChildren(el("p", {class: "muted", text: text})); }

  /* Fitness chart */
  const chartBox = document.querySelector("[data-fitness-chart]");
  const range = document.querySelector("[data-range]");
  async function fitnessChart() {
    const from = iso(new Date(today.getTime() - Number(range.value) * DAY));
    try {
      const answer = await Pk.api("/api/fitness-chart?from=" + from + "&to=" + iso(today));
      const days = answer.days || [];
      if (!days.length) { noData(chartBox, "No training load yet: import or sync some activities."); return; }
      chartBox.replaceChildren();
      if (answer.summary) { chartBox.append(el("p", {class: "muted", text: answer.summary})); }
      Charts.line(chartBox, {id: "fitness", title: "Fitness (CTL), fatigue (ATL) and form (TSB)", xKind: "date", xLabel: "Date", height: 260,
        x: days.map((d) => Date.parse(d.date) / 1000),
        series: Charts.pmcSeries(days),
        summary: answer.summary || "Fitness, fatigue and form"});
    } catch (error) { unavailable(chartBox, error, "The fitness chart"); }
  }
  range.addEventListener("change", fitnessChart);

  /* Curves */
  const curveBox = document.querySelector("[data-curves]");
  const kind = document.querySelector("[data-curve-kind]");
  const period = document.querySelector("[data-curve-days]");
  const VALUE = {power: ["watts", "W", 0], hr: ["bpm", "bpm", 0], pace: ["speed_mps", null, 0]};
  // The person's units (the pace curve per km or per mile), fetched once for the page.
  let athlete = null;
  const units = () => (athlete = athlete || Pk.api("/api/athlete").then((a) => a.settings.units, () => "metric"));
  async function curves() {
    const k = kind.value;
    const from = iso(new Date(today.getTime() - Number(period.value) * DAY));
    const season = today.getFullYear() + "-01-01";
    try {
      const [recent, best] = await Promise.all([
        Pk.api("/api/curves/" + k + "?from=" + from + "&to=" + iso(today)),
        Pk.api("/api/curves/" + k + "?from=" + season + "&to=" + iso(today)),
      ]);
      const [key, given, digits] = VALUE[k];
      // The pace curve is a run's (the API's default sport): seconds per km or mile.
      const basis = k === "pace" ? Pk.fmt.paceBasis("run", await units()) : null;
      const unit = basis ? basis.unit : given;
      const value = (v) => (v === null || v === undefined ? null : basis ? Pk.fmt.secondsPer(v, basis.per) : v);
      const durations = Array.from(new Set([...(best.points || []), ...(recent.points || [])].map((p) => p.duration_s))).sort((a, b) => a - b);
      if (!durations.length) { noData(curveBox, "No " + kind.options[kind.selectedIndex].text.toLowerCase() + " data in this season yet."); return; }
      const lookup = (points) => { const m = new Map(points.map((p) => [p.duration_s, value(p[key])])); return durations.map((d) => (m.has(d) ? m.get(d) : null)); };
      curveBox.replaceChildren();
      Charts.line(curveBox, {id: "curve-" + k, title: kind.options[kind.selectedIndex].text + " curve (" + (basis ? basis.axis : unit) + ")", x: durations, xKind: "duration", xLabel: "Duration", log: true, pace: Boolean(basis),
        series: [
          {label: period.options[period.selectedIndex].text, values: lookup(recent.points || []), color: Charts.COLORS.curve, unit: unit, digits: digits},
          {label: "Season best", values: lookup(best.points || []), color: Charts.COLORS.best, unit: unit, digits: digits, dash: [6, 4]},
        ],
        summary: recent.summary || "Curve against the season best"});
    } catch (error) { unavailable(curveBox, error, "Curves"); }
  }
  kind.addEventListener("change", curves);
  period.addEventListener("change", curves);

  /* Zones: time in each zone over the last 90 days */
  const zoneBox = document.querySelector("[data-zones]");
  async function zones() {
    try {
      const from = iso(new Date(today.getTime() - 90 * DAY));
      const answer = await Pk.api("/api/zone-distribution?kind=power&from=" + from + "&to=" + iso(today));
      const list = answer.zones || [];
      if (!list.length) { noData(zoneBox, answer.summary || "No time in zones yet."); return; }
      zoneBox.replaceChildren(el("p", {class: "muted", text: answer.summary || ""}),
        el("table", {class: "data"}, el("caption", {class: "sr-only", text: "Time in power zones, last 90 days"}),
          el("thead", {}, el("tr", {}, el("th", {scope: "col", text: "Zone"}), el("th", {scope: "col", class: "num", text: "Time"}), el("th", {scope: "col", text: "Share"}))),
          el("tbody", {}, ...list.map((z) => el("tr", {}, el("td", {text: "Z" + z.zone}), el("td", {class: "num", text: fmt.duration(z.seconds)}),
            el("td", {}, el("meter", {min: "0", max: "1", value: String(z.share || 0), "aria-label": "Zone " + z.zone + " share"}), " " + Math.round((z.share || 0) * 100) + "%"))))));
    } catch (error) { unavailable(zoneBox, error, "Zone distribution"); }
  }

  /* Readiness */
  const readyBox = document.querySelector("[data-readiness]");
  async function readiness() {
    try {
      const answer = await Pk.api("/api/readiness");
      readyBox.replaceChildren(
        el("p", {class: "big", text: answer.score === null || answer.score === undefined ? "–" : answer.score + " / 100"}),
        el("p", {class: "muted", text: answer.summary || answer.level || ""}));
    } catch (error) { unavailable(readyBox, error, "Readiness"); }
  }

  /* Race predictions from a recent result */
  const predBox = document.querySelector("[data-predictions]");
  function predictionForm() {
    const form = el("form", {class: "inline-form"},
      el("label", {}, "Recent race distance",
        el("select", {name: "distance"}, ...[["5000", "5 km"], ["10000", "10 km"], ["21097.5", "Half marathon"], ["42195", "Marathon"]].map(([v, t]) => el("option", {value: v, text: t})))),
      el("label", {}, "Your time (h:mm:ss)", el("input", {name: "time", type: "text", inputmode: "numeric", placeholder: "0:25:00", required: true, pattern: "\\d{1,2}:\\d{2}(:\\d{2})?"})),
      el("button", {type: "submit", class: "secondary", text: "Predict"}));
    const out = el("div", {"aria-live": "polite"});
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const parts = form.time.value.split(":").map(Number);
      const seconds = parts.reduce((total, part) => total * 60 + part, 0);
      try {
        const answer = await Pk.api("/api/race-prediction?distance_m=" + form.distance.value + "&time_s=" + seconds);
        // One row per distance, the two methods side by side.
        const byDistance = new Map();
        for (const p of answer.predictions || []) {
          const row = byDistance.get(p.distance_m) || {};
          row[p.method] = p.time_s;
          byDistance.set(p.distance_m, row);
        }
        const rows = [...byDistance.entries()];
        out.replaceChildren(el("p", {class: "muted", text: "VDOT " + (answer.vdot ?? "–")}),
          rows.length ? el("table", {class: "data"}, el("caption", {class: "sr-only", text: "Predicted race times"}),
            el("thead", {}, el("tr", {}, el("th", {scope: "col", text: "Distance"}),
              el("th", {scope: "col", class: "num", text: "VDOT (Daniels)"}),
              el("th", {scope: "col", class: "num", text: "Riegel"}))),
            el("tbody", {}, ...rows.map(([d, r]) => el("tr", {}, el("td", {text: fmt.km(d)}),
              el("td", {class: "num", text: r.vdot == null ? "–" : fmt.duration(r.vdot)}),
              el("td", {class: "num", text: r.riegel == null ? "–" : fmt.duration(r.riegel)}))))) : null);
      } catch (error) { unavailable(out, error, "Race prediction"); }
    });
    predBox.replaceChildren(el("p", {text: "Predictions for other distances from a recent race result (Riegel and VDOT)."}), form, out);
  }

  fitnessChart();
  curves();
  zones();
  readiness();
  predictionForm();
})();
