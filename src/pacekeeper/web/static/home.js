/* Home: how am I doing. Today's form and its trend, readiness with its parts, this week
   against the four before it per sport, the latest activities, and the thresholds (what
   to set where they are missing). Each from the JSON API (the analysis twins of the MCP
   tools, so the figures are the ones an assistant is given); a part that fails says so
   and leaves the others. */
"use strict";
(() => {
  const {el, fmt} = Pk;
  const DAY = 86400000;
  const iso = (d) => d.toISOString().slice(0, 10);
  const $ = (selector) => document.querySelector(selector);
  const SPORTS = {ride: "Ride", run: "Run", swim: "Swim", walk: "Walk", hike: "Hike", row: "Row", other: "Other"};

  function says(box, text) { box.replaceChildren(el("p", {class: "muted", text: text})); }
  function failed(box, error) { says(box, error.status === 404 ? "Not available on this server yet." : error.message); }
  const signed = (v) => (v > 0 ? "+" : "") + v.toFixed(1);
  // The weekly answer's hours are to a tenth: shown as they are, not as made-up minutes.
  const hours = (h) => h.toFixed(1) + " h";

  let units = "metric";
  const distance = (km) => (units === "imperial" ? (km / 1.609344).toFixed(1) + " mi" : km.toFixed(1) + " km");

  /* Form: TSB today, from the one PMC (training summary), its words (recovery), and its
     last six weeks of CTL, ATL and TSB (the fitness chart). */
  async function form() {
    const box = $("[data-form]");
    try {
      const today = new Date();
      const [summary, recovery, chart] = await Promise.all([
        Pk.api("/api/training-summary"), Pk.api("/api/recovery"),
        Pk.api("/api/fitness-chart?from=" + iso(new Date(today.getTime() - 42 * DAY)) + "&to=" + iso(today))]);
      const days = chart.days || [];
      if (!days.some((d) => d.load > 0) && !summary.ctl) {
        says(box, "No training load yet. Load comes from activities with power, heart rate or pace and your thresholds (below).");
        return;
      }
      box.replaceChildren(
        el("p", {class: "big", "data-tsb": String(summary.tsb)}, signed(summary.tsb), el("span", {class: "state", text: " " + recovery.state.replace("_", " ")})),
        el("p", {class: "muted", text: recovery.advice}),
        el("dl", {class: "facts"},
          el("dt", {text: "Fitness (CTL)"}), el("dd", {text: summary.ctl.toFixed(1) + " (" + signed(summary.ramp_7d) + " in 7 days)"}),
          el("dt", {text: "Fatigue (ATL)"}), el("dd", {text: summary.atl.toFixed(1)})));
      Charts.line(box, {id: "form", title: "The last 6 weeks", xKind: "date", xLabel: "Date", height: 160,
        x: days.map((d) => Date.parse(d.date) / 1000),
        series: Charts.pmcSeries(days),
        summary: chart.summary || "Fitness, fatigue and form over six weeks"});
    } catch (error) { failed(box, error); }
  }

  /* Readiness and its parts: each input's figure against its baseline and the points it
     gives; what is missing and where it comes from. */
  const INPUTS = {hrv: "HRV", resting_hr: "Resting heart rate", sleep_hours: "Sleep", sleep_score: "Sleep score", tsb: "Form (TSB)"};
  const MISSING = {hrv: "HRV", resting_hr: "resting heart rate", sleep: "sleep", training: "training load"};
  async function readiness() {
    const box = $("[data-readiness]");
    try {
      const r = await Pk.api("/api/readiness");
      const missing = (r.missing || []).map((m) => MISSING[m] || m);
      const how = missing.length ? el("p", {class: "muted"}, "Without " + missing.join(", ") + ": ",
        el("a", {href: "/connections", text: "connect a device"}), " that records them, or ",
        el("a", {href: "/activities", text: "import activities"}), " for a training load.") : null;
      if (r.score === null || r.score === undefined) {
        box.replaceChildren(el("p", {class: "big", text: "–"}), el("p", {class: "muted", text: "No readiness yet."}), how);
        return;
      }
      const number = (v, unit) => (v === null || v === undefined ? "–" : Number(v).toFixed(unit === "h" ? 1 : 0) + (unit ? " " + unit : ""));
      box.replaceChildren(el("p", {class: "big", text: r.score + " / 100"}, el("span", {class: "state", text: " " + r.level})),
        el("table", {class: "data"}, el("caption", {class: "sr-only", text: "Readiness inputs"}),
          el("thead", {}, el("tr", {}, el("th", {scope: "col", text: "Input"}), el("th", {scope: "col", class: "num", text: "Today"}),
            el("th", {scope: "col", class: "num", text: "Baseline"}), el("th", {scope: "col", class: "num", text: "Points"}))),
          el("tbody", {}, ...(r.inputs || []).map((i) => el("tr", {"data-input": i.name}, el("td", {text: INPUTS[i.name] || i.name}),
            el("td", {class: "num", text: number(i.value, i.unit)}), el("td", {class: "num", text: number(i.baseline, i.unit)}),
            el("td", {class: "num", text: i.score_points === null || i.score_points === undefined ? "–" : signed(i.score_points)}))))),
        how);
    } catch (error) { failed(box, error); }
  }

  /* This week against the mean of the four before it, per sport: time, distance, load. */
  async function week() {
    const box = $("[data-week]");
    try {
      const answer = await Pk.api("/api/weekly-load?weeks=5");
      const weeks = answer.weeks || [];
      const current = weeks[weeks.length - 1] || {by_sport: {}};
      const before = weeks.slice(0, -1);
      const sports = Array.from(new Set(weeks.flatMap((w) => Object.keys(w.by_sport || {}))));
      if (!sports.length) { says(box, "Nothing this week or in the four before it."); return; }
      const figure = (w, sport, key) => ((w.by_sport || {})[sport] || {})[key] || 0;
      const mean = (sport, key) => before.reduce((sum, w) => sum + figure(w, sport, key), 0) / (before.length || 1);
      const cell = (now, avg, show) => el("td", {class: "num"}, el("span", {class: "two"}, show(now), el("small", {text: "avg " + show(avg)})));
      const row = (label, get) => el("tr", {}, el("th", {scope: "row", text: label}),
        cell(get("moving_hours"), get("moving_hours", true), hours),
        cell(get("km"), get("km", true), distance),
        cell(get("load"), get("load", true), (v) => v.toFixed(0)));
      const rows = sports.map((s) => row(SPORTS[s] || s, (key, avg) => (avg ? mean(s, key) : figure(current, s, key))));
      rows.push(row("All", (key, avg) => sports.reduce((sum, s) => sum + (avg ? mean(s, key) : figure(current, s, key)), 0)));
      rows[rows.length - 1].classList.add("total");
      box.replaceChildren(el("table", {class: "data week"},
        el("caption", {class: "sr-only", text: "This week (from " + current.week + ") and the mean of the four weeks before"}),
        el("thead", {}, el("tr", {}, el("th", {scope: "col", text: "Sport"}), el("th", {scope: "col", class: "num", text: "Time"}),
          el("th", {scope: "col", class: "num", text: "Distance"}), el("th", {scope: "col", class: "num", text: "Load"}))),
        el("tbody", {}, ...rows)),
      el("p", {class: "muted", text: "Week from " + fmt.localDate(current.week) + "; beneath each figure, the mean of the four weeks before."}));
    } catch (error) { failed(box, error); }
  }

  /* Planned next: the next two weeks' planned workouts not done yet (the calendar,
     issue 32), each with its planned time and load and its file for a device. */
  async function planned() {
    const box = $("[data-planned]");
    const today = new Date();
    try {
      const answer = await Pk.api("/api/calendar?from=" + iso(today) + "&to=" + iso(new Date(today.getTime() + 13 * DAY)));
      const rows = [];
      for (const day of answer.days || []) {
        for (const w of day.planned) { if (!w.done) { rows.push([day.date, w]); } }
      }
      if (!rows.length) { return; }
      box.replaceChildren(box.querySelector("h2"), el("div", {class: "table-wrap"}, el("table", {class: "data", "aria-label": "Planned next"},
        el("thead", {}, el("tr", {}, el("th", {scope: "col", text: "Date"}), el("th", {scope: "col", text: "Workout"}),
          el("th", {scope: "col", class: "num", text: "Time"}), el("th", {scope: "col", class: "num", text: "Load"}))),
        el("tbody", {}, ...rows.map(([date, w]) => el("tr", {},
          el("td", {class: "date", text: fmt.localDate(date + "T12:00:00")}),
          el("td", {}, el("a", {href: "/workouts/" + w.id, text: w.name}), el("small", {class: "sport", text: " " + w.sport + " · "}),
            el("a", {href: "/api/workouts/" + w.id + "/export?format=fit", download: "", text: "FIT"})),
          el("td", {class: "num", text: w.duration_s ? fmt.duration(w.duration_s) : "–"}),
          el("td", {class: "num", text: w.load === null || w.load === undefined ? "–" : String(Math.round(w.load))})))))));
    } catch (error) { if (error.status !== 404) { failed(box, error); } }
  }

  /* The latest activities; none: how to bring some in (the Get started card). */
  async function latest() {
    const box = $("[data-latest]");
    try {
      const answer = await Pk.api("/api/activities?limit=5");
      const list = answer.activities || [];
      $("[data-start]").hidden = list.length > 0;
      if (!list.length) { says(box, "No activities yet."); return false; }
      box.replaceChildren(el("table", {class: "data"}, el("caption", {class: "sr-only", text: "Latest activities"}),
        el("thead", {}, el("tr", {}, el("th", {scope: "col", text: "Date"}), el("th", {scope: "col", text: "Name"}),
          el("th", {scope: "col", class: "num", text: "Distance"}), el("th", {scope: "col", class: "num", text: "Time"}))),
        el("tbody", {}, ...list.map((a) => el("tr", {},
          el("td", {class: "date", text: fmt.localDate(a.start_time)}),
          el("td", {}, el("a", {href: "/activities/" + a.id, text: a.name || "Untitled " + a.sport}), el("small", {class: "sport", text: " " + a.sport})),
          el("td", {class: "num", text: a.distance_m ? distance(a.distance_m / 1000) : "–"}),
          el("td", {class: "num", text: fmt.duration(a.moving_time_s || a.elapsed_time_s)}))))));
      return true;
    } catch (error) { failed(box, error); return false; }
  }

  /* Thresholds: the current ones in the form; a note naming those missing and what they
     give. A pace is typed as m:ss per km or mile (the person's units), kept per km. */
  const PER_MILE = 1.609344;
  const NEEDS = {ftp_watts: "FTP (rides: load and power zones)", lthr_bpm: "threshold heart rate (load without power, heart rate zones)",
    threshold_pace_s_per_km: "run threshold pace (run load and pace zones)"};
  function thresholds(athlete) {
    const formBox = $("[data-thresholds]");
    const note = $("[data-thresholds-note]");
    const settings = athlete.settings || {};
    const perMile = units === "imperial";
    $("[data-pace-label]").textContent = "Run threshold pace (m:ss per " + (perMile ? "mile" : "km") + ")";
    for (const name of ["ftp_watts", "lthr_bpm", "max_hr_bpm"]) {
      if (settings[name] !== undefined && settings[name] !== null) { formBox.elements[name].value = settings[name]; }
    }
    if (settings.threshold_pace_s_per_km) {
      formBox.elements.threshold_pace.value = fmt.mss(settings.threshold_pace_s_per_km * (perMile ? PER_MILE : 1));
    }
    const missing = Object.keys(NEEDS).filter((k) => settings[k] === undefined || settings[k] === null);
    note.className = missing.length ? "notice" : "muted";
    note.textContent = missing.length
      ? "Not set yet: " + missing.map((k) => NEEDS[k]).join("; ") + ". Set what you know; each is used from today on."
      : "Your thresholds. A change applies from today on.";
  }

  $("[data-thresholds]").addEventListener("submit", async (event) => {
    event.preventDefault();
    const formBox = event.target;
    const status = $("[data-thresholds-status]");
    const body = {};
    for (const name of ["ftp_watts", "lthr_bpm", "max_hr_bpm"]) {
      if (formBox.elements[name].value) { body[name] = Number(formBox.elements[name].value); }
    }
    const pace = formBox.elements.threshold_pace.value.trim();
    if (pace) {
      const [m, s] = pace.split(":").map(Number);
      body.threshold_pace_s_per_km = Math.round((m * 60 + s) / (units === "imperial" ? PER_MILE : 1));
    }
    if (!Object.keys(body).length) { status.textContent = "Enter at least one threshold."; return; }
    try {
      const athlete = await Pk.api("/api/athlete", {method: "PATCH", body: body});
      thresholds(athlete);
      status.textContent = "Saved." + (athlete.recomputing ? " Your activities' load and zones are being worked out again." : "");
    } catch (error) { status.textContent = error.message; }
  });

  async function main() {
    const athlete = await Pk.api("/api/athlete").catch(() => ({settings: {}}));
    units = (athlete.settings || {}).units || "metric";
    thresholds(athlete);
    const when = $("[data-today]");
    if (athlete.as_of) { when.textContent = fmt.localDate(athlete.as_of) + ": your form, your week and your latest sessions."; }
    await Promise.all([latest(), form(), readiness(), week(), planned()]);
  }
  main().catch(Pk.showError);
})();
