/* Records: run best efforts over all time and per season (calendar year), each linked to
   the activity it came from; the seasons side by side; this season's power curve against
   the best season's. One request, GET /api/records: the figures of get_best_efforts and
   get_power_curve per range (the ones an assistant is given), worked out by the server at
   once (the page used to ask 23 times, once per season and kind). */
"use strict";
(() => {
  const {el, fmt} = Pk;
  const $ = (selector) => document.querySelector(selector);
  let thisYear = new Date().getUTCFullYear();  // the person's, from the answer's "to"
  const NAMES = {"400m": "400 m", "800m": "800 m", "1km": "1 km", "1mile": "Mile", "5km": "5 km", "10km": "10 km",
    "15km": "15 km", "half_marathon": "Half marathon", "marathon": "Marathon"};
  const SEASON_COLUMNS = ["5km", "10km", "half_marathon", "marathon"];
  const name = (d) => NAMES[d] || d;
  function says(box, text) { box.replaceChildren(el("p", {class: "muted", text: text})); }

  function effortCell(e) {
    if (!e) { return el("td", {class: "num", text: "–"}); }
    // The answer gives the pace in the person's units (per km, or per mile when imperial).
    const pace = "pace_s_per_mi" in e ? fmt.pace(e.pace_s_per_mi, "/mi") : fmt.pace(e.pace_s_per_km, "/km");
    return el("td", {class: "num"}, el("span", {class: "two"}, el("a", {href: "/activities/" + e.activity_id, text: e.time}),
      // Pace and day: one line, or two on a phone (so the table fits 390 px).
      el("small", {}, el("span", {class: "nobr", text: pace}), el("span", {class: "sep", text: " · "}),
        el("span", {class: "nobr", text: fmt.localDate(e.date + "T12:00:00")}))));
  }

  function runs(allTime, seasons) {
    const box = $("[data-runs]");
    const efforts = allTime.efforts || [];
    if (!efforts.length) {
      says(box, "No runs with a distance record yet: import or sync runs recorded with GPS or a foot pod.");
      return;
    }
    const now = new Map(((seasons.get(thisYear) || {}).efforts || []).map((e) => [e.distance, e]));
    box.replaceChildren(el("table", {class: "data", "aria-label": "Running records"},
      el("thead", {}, el("tr", {}, el("th", {scope: "col", text: "Distance"}), el("th", {scope: "col", class: "num", text: "All time"}),
        el("th", {scope: "col", class: "num", text: String(thisYear)}), el("th", {scope: "col", class: "num", text: "VDOT"}))),
      el("tbody", {}, ...efforts.map((e) => el("tr", {"data-distance": e.distance},
        el("th", {scope: "row", text: name(e.distance)}), effortCell(e), effortCell(now.get(e.distance)),
        el("td", {class: "num", text: e.vdot === null || e.vdot === undefined ? "–" : e.vdot.toFixed(1)}))))));
  }

  function seasonsTable(seasons) {
    const box = $("[data-seasons]");
    const years = Array.from(seasons.keys()).filter((y) => (seasons.get(y).efforts || []).length);
    if (!years.length) { says(box, "No seasons with runs yet."); return; }
    // The distances some season has (a column of dashes says nothing and widens a phone's).
    const columns = SEASON_COLUMNS.filter((d) => years.some((y) => seasons.get(y).efforts.some((e) => e.distance === d)));
    box.replaceChildren(el("table", {class: "data", "aria-label": "Seasons"},
      el("thead", {}, el("tr", {}, el("th", {scope: "col", text: "Season"}),
        ...columns.map((d) => el("th", {scope: "col", class: "num", text: name(d)})), el("th", {scope: "col", class: "num", text: "VDOT"}))),
      el("tbody", {}, ...years.map((y) => {
        const by = new Map(seasons.get(y).efforts.map((e) => [e.distance, e]));
        const v = seasons.get(y).vdot;
        return el("tr", {"data-season": String(y)}, el("th", {scope: "row", text: String(y)}),
          ...columns.map((d) => effortCell(by.get(d))),
          el("td", {class: "num", text: v === null || v === undefined ? "–" : v.toFixed(1)}));
      }))));
  }

  /* The best season: the one with the highest power at the longest of 20, 5 and 1 min
     and 5 s that some season has (short rides have no 20 minutes to compare). */
  const HEADLINES = [1200, 300, 60, 5];
  const SAID = {1200: "20 minutes", 300: "5 minutes", 60: "1 minute", 5: "5 seconds"};
  function power(curves) {
    const box = $("[data-power]");
    const at = (c, d) => { const p = ((c && c.points) || []).find((q) => q.duration_s === d); return p ? p.watts : null; };
    const withPower = curves.filter(([, c]) => c && (c.points || []).length);
    if (!withPower.length) { says(box, "No rides with power yet."); return; }
    const headline = HEADLINES.find((d) => withPower.some(([, c]) => at(c, d))) || HEADLINES[HEADLINES.length - 1];
    const best = withPower.reduce((a, b) => ((at(b[1], headline) || 0) > (at(a[1], headline) || 0) ? b : a));
    const current = (curves.find(([y]) => y === thisYear) || [thisYear, null])[1];
    const hasCurrent = Boolean(current && (current.points || []).length);
    const durations = Array.from(new Set([...(best[1].points || []), ...(hasCurrent ? current.points : [])].map((p) => p.duration_s))).sort((a, b) => a - b);
    const lookup = (c) => { const m = new Map(((c && c.points) || []).map((p) => [p.duration_s, p.watts])); return durations.map((d) => (m.has(d) ? m.get(d) : null)); };
    const series = [];
    if (hasCurrent) { series.push({label: String(thisYear), values: lookup(current), color: Charts.COLORS.curve, unit: "W", digits: 0}); }
    if (best[0] !== thisYear) {
      series.push({label: "Best season (" + best[0] + ")", values: lookup(best[1]), color: Charts.COLORS.best, unit: "W", digits: 0, dash: [6, 4]});
    }
    const over = SAID[headline];
    const mine = hasCurrent ? at(current, headline) : null;
    box.replaceChildren(el("p", {class: "muted", "data-power-summary": "", text: best[0] === thisYear
      ? "This season is your best so far: " + Math.round(at(best[1], headline)) + " W for " + over + "."
      : "Best season " + best[0] + ": " + Math.round(at(best[1], headline)) + " W for " + over + "; this season " + (mine ? Math.round(mine) + " W." : "none yet.")}));
    Charts.line(box, {id: "records-power", title: "Power curve (W)", x: durations, xKind: "duration", xLabel: "Duration", log: true, series: series,
      summary: "Power curve of this season against the best season"});
  }

  async function main() {
    const records = await Pk.api("/api/records");
    thisYear = Number(records.to.slice(0, 4));
    const seasons = new Map(records.seasons.map((s) => [s.season, s.best_efforts]));
    runs(records.all_time, seasons);
    seasonsTable(seasons);
    power(records.seasons.map((s) => [s.season, s.power]));
  }
  main().catch(Pk.showError);
})();
