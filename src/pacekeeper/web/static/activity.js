/* One activity: summary metrics, stream charts, the mean-maximal power curve. */
"use strict";
(() => {
  const {el, fmt} = Pk;
  const root = document.querySelector("[data-activity]");
  const id = root.dataset.activity;
  const STREAMS = [
    {key: "power", label: "Power", unit: "W"},
    {key: "heartrate", label: "Heart rate", unit: "bpm"},
    {key: "speed", label: "Speed", unit: "km/h", scale: 3.6, digits: 1},
    {key: "altitude", label: "Altitude", unit: "m"},
  ];

  function metric(label, value) {
    return value === "–" || value === undefined ? null : el("div", {}, el("dt", {text: label}), el("dd", {text: value}));
  }

  function summary(values) {
    const present = values.filter((v) => v !== null && v !== undefined);
    if (!present.length) { return "no samples"; }
    const mean = present.reduce((a, b) => a + b, 0) / present.length;
    return "average " + mean.toFixed(0) + ", max " + Math.max(...present).toFixed(0);
  }

  // Pace per 100 m (swims) as m:ss.
  function pace100(s) { return fmt.pace(s, "/100 m"); }

  // A run's (walk's, hike's) pace per km or mile (the person's units), a row's per 500 m,
  // as m:ss; other sports a speed. A runner reads pace, never km/h (issue 27 item 14).
  function paceOrSpeed(sport, mps, units) {
    const basis = fmt.paceBasis(sport, units);
    if (!mps) { return [basis ? "Average pace" : "Average speed", "–"]; }
    if (!basis) { return ["Average speed", fmt.num(mps * 3.6, 1, "km/h")]; }
    return ["Average pace", fmt.pace(fmt.secondsPer(mps, basis.per), basis.unit)];
  }

  // Slower than this (m/s) is standing, not a pace: a gap in the chart, not a 40-minute km.
  const STOPPED_MPS = 0.5;

  function metres(m) { return m === null || m === undefined ? "–" : Math.round(m).toLocaleString() + " m"; }

  function table(caption, head, rows) {
    return el("table", {class: "data"}, el("caption", {class: "sr-only", text: caption}),
      el("thead", {}, el("tr", {}, ...head.map((h, i) => el("th", {class: i ? "num" : null, scope: "col", text: h})))),
      el("tbody", {}, ...rows.map((r) => el("tr", {}, ...r.map((c, i) => el("td", {class: i ? "num" : null, text: c}))))));
  }

  // A multisport file's legs: each with its own sport, times and figures; they add up.
  function legs(a) {
    const list = a.legs || [];
    const section = root.querySelector("[data-legs-section]");
    if (!list.length) { section.hidden = true; return; }
    section.hidden = false;
    const rows = list.map((l) => [
      l.transition ? "Transition" : (l.file_sport || l.sport),
      fmt.duration(l.elapsed_s),
      l.distance_m >= 1000 ? fmt.km(l.distance_m) : metres(l.distance_m),
      fmt.num(l.avg_heartrate, 0, "bpm"),
      fmt.num(l.avg_watts, 0, "W"),
    ]);
    const total = list.reduce((sum, l) => sum + (l.distance_m || 0), 0);
    rows.push(["Total", fmt.duration(a.elapsed_time_s), fmt.km(total), fmt.num(a.average_heartrate, 0, "bpm"), fmt.num(a.average_power, 0, "W")]);
    root.querySelector("[data-legs]").replaceChildren(
      table("Legs of this multisport activity", ["Leg", "Time", "Distance", "Avg heart rate", "Avg power"], rows));
  }

  // A pool swim: lengths, pace per 100 m, strokes, SWOLF and rests, from the device's lengths.
  function swim(a) {
    const s = a.swim;
    const section = root.querySelector("[data-swim-section]");
    if (!s) { section.hidden = true; return; }
    section.hidden = false;
    root.querySelector("[data-swim]").replaceChildren(...[
      metric("Pool length", fmt.num(s.pool_length_m, s.pool_length_m % 1 ? 2 : 0, "m")),
      metric("Lengths", String(s.active_lengths)),
      metric("Distance", metres(s.distance_m)),
      metric("Swim time", fmt.duration(s.swim_time_s)),
      metric("Pace", pace100(s.pace_s_per_100m)),
      metric("Strokes", s.strokes === null ? "–" : String(s.strokes)),
      metric("SWOLF", fmt.num(s.swolf, 1)),
      metric("Rest", fmt.duration(s.rest_s) + " in " + (s.rest || []).length + " intervals"),
    ].filter(Boolean));
    const laps = (a.laps || []).filter((l) => l.swim);
    root.querySelector("[data-swim-laps]").replaceChildren(laps.length ? table("Laps of this swim",
      ["Lap", "Lengths", "Distance", "Time", "Pace", "Strokes", "SWOLF"],
      laps.map((l, i) => l.swim.rest
        ? [String(i + 1) + " rest", "–", "–", fmt.duration(l.elapsed_s), "–", "–", "–"]
        : [String(i + 1) + (l.swim.stroke ? " " + l.swim.stroke : ""), String(l.swim.lengths), metres(l.distance_m),
          fmt.duration(l.moving_s), pace100(l.swim.pace_s_per_100m),
          l.swim.strokes === null ? "–" : String(l.swim.strokes), fmt.num(l.swim.swolf, 1)])) : "");
  }

  async function main() {
    // The person's units (km or mile), fetched once beside the activity; metric without.
    const athlete = Pk.api("/api/athlete").catch(() => null);
    let a;
    try { a = await Pk.api("/api/activities/" + encodeURIComponent(id)); } catch (error) {
      root.querySelector("[data-name]").textContent = error.status === 404 ? "Activity not found" : "Could not load the activity";
      Pk.showError(error);
      return;
    }
    document.title = (a.name || a.sport) + " · Pacekeeper";
    root.querySelector("[data-name]").textContent = a.name || "Untitled " + a.sport;
    root.querySelector("[data-when]").textContent = fmt.localDateTime(a.start_time) + " · " + a.sport + (a.device ? " · " + a.device : "");
    // A file read in part says so (FIG-11): its source's warnings, as the import answered.
    const warnings = (a.sources || []).flatMap((s) => s.warnings || []);
    if (warnings.length) {
      const box = root.querySelector("[data-warnings]");
      box.textContent = warnings.join(" ");
      box.hidden = false;
    }
    const units = ((await athlete) || {settings: {}}).settings.units;
    const basis = fmt.paceBasis(a.sport, units);
    const m = a.metrics || {};
    const items = [
      metric("Distance", fmt.km(a.distance_m)),
      metric("Moving time", fmt.duration(a.moving_time_s)),
      metric("Elapsed time", fmt.duration(a.elapsed_time_s)),
      metric("Elevation gain", fmt.num(a.elevation_gain_m, 0, "m")),
      a.swim ? metric("Pace", pace100(a.swim.pace_s_per_100m))
        : metric(...paceOrSpeed(a.sport, a.average_speed_mps, units)),
      metric("Average power", fmt.num(a.average_power, 0, "W")),
      metric("Normalized power", fmt.num(m.normalized_power, 0, "W")),
      metric("Average heart rate", fmt.num(a.average_heartrate, 0, "bpm")),
      metric("Max heart rate", fmt.num(a.max_heartrate, 0, "bpm")),
      // Run cadence is stored in strides a minute (FIT's unit); runners read steps (spm).
      basis && a.sport !== "row" && a.sport !== "swim"
        ? metric("Cadence", fmt.num(a.average_cadence === null || a.average_cadence === undefined ? null : a.average_cadence * 2, 0, "spm"))
        : metric("Cadence", fmt.num(a.average_cadence, 0, a.sport === "row" ? "spm" : "rpm")),
      metric("Training load", fmt.num(m.load, 0)),
      metric("Intensity factor", fmt.num(m.intensity_factor, 2)),
      metric("Calories", fmt.num(a.calories, 0, "kcal")),
    ];
    root.querySelector("[data-metrics]").replaceChildren(...items.filter(Boolean));
    legs(a);
    swim(a);

    const box = root.querySelector("[data-streams]");
    const wanted = STREAMS.filter((s) => (a.streams || []).includes(s.key));
    if (!wanted.length) {
      box.replaceChildren(el("p", {class: "muted", text: "This activity has no sample streams (a summary only)."}));
    } else {
      const keys = wanted.map((s) => s.key).join(",");
      const data = await Pk.api("/api/activities/" + encodeURIComponent(id) + "/streams?keys=" + keys + "&max_points=800");
      box.replaceChildren();
      for (const s of wanted) {
        const raw = data.streams[s.key] || [];
        if (s.key === "speed" && a.swim && (a.laps || []).some((l) => l.swim)) {
          // A pool swim has no pace between the ends of its lengths (the watch writes a
          // sample a length): its pace is each lap's, from the device's lengths, held
          // over the lap; rests are gaps.
          const t0 = Date.parse(a.start_time_utc), x = [], values = [];
          const laps = a.laps.filter((lap) => lap.swim), starts = laps.map((l) => (Date.parse(l.start) - t0) / 1000);
          laps.forEach((l, i) => {
            // x must not step back: a lap's whole-second start may fall before the last one's end.
            const end = i + 1 < laps.length ? Math.min(starts[i] + l.elapsed_s, starts[i + 1]) : starts[i] + l.elapsed_s;
            const pace = l.swim.rest ? null : l.swim.pace_s_per_100m;
            x.push(starts[i], end);
            values.push(pace, pace);
          });
          const paces = values.filter((v) => v !== null);
          Charts.line(box, {id: "pace", title: "Pace per lap (min/100 m)", x: x, xLabel: "Elapsed", xKind: "elapsed", pace: true,
            series: [{label: "Pace", values: values, color: Charts.COLORS.speed, unit: "/100 m"}],
            summary: "Pace per lap: " + (paces.length
              ? "average " + pace100(a.swim.pace_s_per_100m) + ", fastest lap " + pace100(Math.min(...paces))
              : "no laps swum")});
          continue;
        }
        if (s.key === "speed" && basis) {
          // Pace, not speed, for the sports read in pace; standing samples are gaps.
          const values = raw.map((v) => (v === null || v < STOPPED_MPS ? null : fmt.secondsPer(v, basis.per)));
          const present = values.filter((v) => v !== null);
          Charts.line(box, {id: "pace", title: "Pace (" + basis.axis + ")", x: data.streams.time, xLabel: "Elapsed", xKind: "elapsed", pace: true,
            series: [{label: "Pace", values: values, color: Charts.COLORS.speed, unit: basis.unit}],
            summary: "Pace over the activity: " + (present.length
              ? "average " + fmt.pace(fmt.secondsPer(a.average_speed_mps, basis.per), basis.unit) + ", fastest " + fmt.pace(Math.min(...present), basis.unit)
              : "no samples")});
          continue;
        }
        const values = raw.map((v) => (v === null ? null : v * (s.scale || 1)));
        Charts.line(box, {id: s.key, title: s.label + " (" + s.unit + ")", x: data.streams.time, xLabel: "Elapsed", xKind: "elapsed",
          series: [{label: s.label, values: values, color: Charts.COLORS[s.key], unit: s.unit, digits: s.digits}],
          summary: s.label + " over the activity: " + summary(values) + " " + s.unit});
      }
    }

    const curveBox = root.querySelector("[data-curve]");
    const durations = m.curve_durations || [];
    const curve = m.power_curve || [];
    const points = durations.map((d, i) => [d, curve[i]]).filter((p) => p[1] !== null && p[1] !== undefined && p[0] > 0);
    if (!points.length) {
      curveBox.replaceChildren(el("p", {class: "muted", text: "No power data: no mean-maximal curve for this activity."}));
    } else {
      curveBox.replaceChildren();
      Charts.line(curveBox, {id: "power-curve", title: "Best average power for each duration (W)", x: points.map((p) => p[0]), xLabel: "Duration", xKind: "duration", log: true,
        series: [{label: "Power", values: points.map((p) => p[1]), color: Charts.COLORS.curve, unit: "W"}],
        summary: "Mean-maximal power: " + points.map((p) => Charts.durationLabel(p[0]) + " " + Math.round(p[1]) + " W").join(", ")});
    }

    const wbal = root.querySelector("[data-wbal]");
    const section = root.querySelector("[data-wbal-section]");
    if (a.sport !== "ride" || !(a.streams || []).includes("power")) {
      section.hidden = true;
    } else {
      try {
        const answer = await Pk.api("/api/activities/" + encodeURIComponent(id) + "/wbal?max_points=400");
        const series = answer.series || [];
        wbal.replaceChildren();
        if (answer.summary) { wbal.append(el("p", {class: "muted", text: answer.summary})); }
        Charts.line(wbal, {id: "wbal", title: "W\u2032 balance (kJ)", x: series.map((p) => p.t_s), xLabel: "Elapsed", xKind: "elapsed",
          series: [{label: "W\u2032 balance", values: series.map((p) => (p.w_prime_bal_j === null ? null : p.w_prime_bal_j / 1000)), color: Charts.COLORS.tsb, unit: "kJ", digits: 1}],
          summary: answer.summary || "W\u2032 balance over the ride"});
      } catch (error) {
        wbal.replaceChildren(el("p", {class: "muted", text: error.status === 404 || error.status === 405
          ? "W\u2032 balance is not available from this server yet (it comes from the analysis endpoint; the browser does not compute it)."
          : error.message}));
      }
    }

    root.querySelector("[data-delete]").addEventListener("click", async () => {
      if (!window.confirm("Delete this activity, its files and streams? This cannot be undone.")) { return; }
      try {
        await Pk.api("/api/activities/" + encodeURIComponent(id), {method: "DELETE"});
        location.assign("/activities");
      } catch (error) { Pk.showError(error); }
    });
  }
  main().catch(Pk.showError);
})();
