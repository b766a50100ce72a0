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

  /* A table of figures: the first column a label, the rest numbers. A heading given as
     [text, true] is a column a phone leaves out; a cell may be a node. */
  function table(caption, head, rows) {
    const phone = head.map((h) => Array.isArray(h) && h[1]);
    const cls = (i) => [i ? "num" : null, phone[i] ? "hide-phone" : null].filter(Boolean).join(" ") || null;
    return el("table", {class: "data"}, el("caption", {class: "sr-only", text: caption}),
      el("thead", {}, el("tr", {}, ...head.map((h, i) => el("th", {class: cls(i), scope: "col", text: Array.isArray(h) ? h[0] : h})))),
      el("tbody", {}, ...rows.map((r) => el("tr", {}, ...r.map((c, i) => el("td", {class: cls(i), text: c instanceof Node ? null : c}, c instanceof Node ? c : null))))));
  }

  /* The route from the lat/lng streams, on the configured tiles (map.js). */
  async function routeMap(a) {
    const streams = a.streams || [];
    if (!streams.includes("lat") || !streams.includes("lng")) { return; }
    const data = await Pk.api("/api/activities/" + encodeURIComponent(id) + "/streams?keys=lat,lng&max_points=2000");
    const section = root.querySelector("[data-map-section]");
    section.hidden = false;
    const drawn = RouteMap.draw(root.querySelector("[data-map]"), data.streams.lat || [], data.streams.lng || [],
      root.querySelector("[data-map-note]"));
    if (!drawn) { section.hidden = true; }
  }

  /* A figure as shown (the device's where the file has one) with ours beneath where the
     two read differently; both already formatted. */
  function twoFigures(shown, ours) {
    if (ours === undefined || ours === "–" || ours === shown) { return shown; }
    // The figure kept whole (no-break spaces): on a phone the line may break after "ours".
    return el("span", {class: "two"}, shown, el("small", {class: "ours", text: "ours " + ours.replace(/ /g, "\u00a0")}));
  }

  // The sport a lap was done in: its leg's (a multisport file; a transition's is none),
  // else the activity's.
  function lapSport(a, lap) {
    const legs = (a.legs || []).filter((l) => Date.parse(l.start) <= Date.parse(lap.start));
    const leg = legs[legs.length - 1];
    return leg ? (leg.transition ? "transition" : leg.sport) : a.sport;
  }

  // A run's (walk's, hike's) lap pace per km or mile, never km/h; a ride's speed.
  function lapPace(sport, mps, units) {
    const basis = fmt.paceBasis(sport, units);
    if (mps === null || mps === undefined) { return "–"; }
    return basis ? fmt.pace(fmt.secondsPer(mps, basis.per), basis.unit) : fmt.num(mps * 3.6, 1, "km/h");
  }

  function lapDistance(m, units) {
    if (m === null || m === undefined) { return "–"; }
    if (units === "imperial") { return (m / 1609.344).toFixed(2) + " mi"; }
    return m >= 1000 ? (m / 1000).toFixed(2) + " km" : metres(m);
  }

  /* The laps, one row each: the device's figures, ours beneath where they differ. A pool
     swim's laps are its own table (lengths, strokes). */
  function laps(a, units) {
    const list = a.laps || [];
    const section = root.querySelector("[data-laps-section]");
    if (!list.length || list.some((l) => l.swim)) { section.hidden = true; return; }
    section.hidden = false;
    const sports = list.map((l) => lapSport(a, l));
    const columns = [
      ["Time", (l) => fmt.duration(l.elapsed_s)],
      ["Distance", (l) => lapDistance(l.distance_m, units)],
      [sports.some((s) => fmt.paceBasis(s, units)) ? "Pace" : "Speed", (l, i) => lapPace(sports[i], l.avg_speed_mps, units)],
      // Units in the headings, not in every cell: a phone's 390 px holds five columns.
      ["Avg HR (bpm)", (l) => fmt.num(l.avg_heartrate, 0)],
      [["Max HR (bpm)", true], (l) => fmt.num(l.max_heartrate, 0)],
      [["Avg power (W)", true], (l) => fmt.num(l.avg_watts, 0)],
      [["Ascent (m)", true], (l) => fmt.num(l.elevation_gain_m, 0)],
    ].filter(([, figure]) => list.some((l, i) => figure(l, i) !== "–"));
    const rows = list.map((l, i) => [(a.legs || []).length ? el("span", {class: "two"}, String(i + 1), el("small", {text: sports[i]})) : String(i + 1),
      ...columns.map(([, figure]) => twoFigures(figure(l, i), l.computed ? figure(l.computed, i) : undefined))]);
    root.querySelector("[data-laps]").replaceChildren(table("Laps", ["Lap", ...columns.map((c) => c[0])], rows));
  }

  /* Time in zones: the activity's own analysis (its zones as they were on its day). */
  function zones(a, units) {
    const m = a.metrics || {};
    const basis = fmt.paceBasis(a.sport, units) || fmt.paceBasis("run", units);
    const kinds = [
      ["power", "Power", m.time_in_power_zones, m.power_zone_bounds, (v) => Math.round(v) + " W"],
      ["hr", "Heart rate", m.time_in_hr_zones, m.hr_zone_bounds, (v) => Math.round(v) + " bpm"],
      ["pace", "Pace", m.time_in_pace_zones, m.pace_zone_bounds, (v) => fmt.pace(fmt.secondsPer(v, basis.per), basis.unit)],
    ].filter((k) => Array.isArray(k[2]) && Array.isArray(k[3]) && k[2].some((t) => t > 0));
    const section = root.querySelector("[data-zones-section]");
    const box = root.querySelector("[data-zones]");
    if (!kinds.length) {
      // Samples that zones would sort, but no threshold to sort them by: say what to set.
      section.hidden = !(a.streams || []).some((k) => ["power", "heartrate", "speed"].includes(k));
      box.replaceChildren(el("p", {class: "muted"}, "No zones yet: set your FTP, threshold heart rate or threshold pace ",
        el("a", {href: "/#thresholds", text: "on the Home page"}), ", and this activity's time in zones follows."));
      return;
    }
    section.hidden = false;
    box.replaceChildren(...kinds.map(([key, label, times, bounds, value]) => {
      const total = times.reduce((sum, t) => sum + t, 0) || 1;
      const range = (i) => {
        const low = bounds[i] > 0 ? value(bounds[i]) : null;
        const high = i + 1 < bounds.length ? value(bounds[i + 1]) : null;
        if (key === "pace") { return low === null ? "slower than " + high : high === null ? "faster than " + low : low + " to " + high; }
        return low === null ? "below " + high : high === null ? low + " and up" : low + " to " + high;
      };
      return el("div", {class: "zone-table", "data-zone-kind": key}, el("h3", {text: label}),
        table(label + " zones", ["Zone", ["Range", true], "Time", "Share"], times.map((t, i) => ["Z" + (i + 1), range(i), fmt.duration(t),
          el("span", {class: "share"}, el("meter", {min: "0", max: "1", value: String(t / total), "aria-label": label + " zone " + (i + 1) + " share"}),
            " " + Math.round(t / total * 100) + "%")])));
    }));
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
      table("Legs of this multisport activity", ["Leg", "Time", "Distance", "Avg heart rate", ["Avg power", true]], rows));
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
    // At a phone's width: the pace's unit in its heading, not in every cell; the stroke
    // beneath the lap's number; lengths and strokes left out (the distance and SWOLF count them).
    const lap = (i, note) => el("span", {class: "two"}, String(i + 1), note ? el("small", {text: note}) : null);
    root.querySelector("[data-swim-laps]").replaceChildren(laps.length ? table("Laps",
      ["Lap", ["Lengths", true], "Distance", "Time", "Pace /100 m", ["Strokes", true], "SWOLF"],
      laps.map((l, i) => l.swim.rest
        ? [lap(i, "rest"), "–", "–", fmt.duration(l.elapsed_s), "–", "–", "–"]
        : [lap(i, l.swim.stroke), String(l.swim.lengths), metres(l.distance_m),
          fmt.duration(l.moving_s), fmt.mss(l.swim.pace_s_per_100m),
          l.swim.strokes === null ? "–" : String(l.swim.strokes), fmt.num(l.swim.swolf, 1)])) : "");
  }

  /* About this activity: the description and private notes, and the Edit form (name,
     sport, description, notes: PATCH /api/activities/{id}). A new sport reloads the page:
     its load, zones and pace are worked out again for that sport. */
  function about(a) {
    const view = root.querySelector("[data-about-view]");
    const form = root.querySelector("[data-edit-form]");
    const editButton = root.querySelector("[data-edit]");
    const status = root.querySelector("[data-edit-status]");
    // The person's gear, for the name shown and the Edit form's choice (retired kept
    // only when this activity used it).
    const gearList = Pk.api("/api/gear").then((g) => g.gear || [], () => []);
    gearList.then((gear) => {
      const select = form.elements.gear_id;
      for (const g of gear) {
        if (g.retired && g.id !== a.gear_id) { continue; }
        select.append(Pk.el("option", {value: g.id, text: g.name + (g.retired ? " (retired)" : "")}));
      }
    });
    function show(current) {
      gearList.then((gear) => {
        const used = gear.find((g) => g.id === current.gear_id);
        const line = root.querySelector("[data-gear]");
        line.replaceChildren(...(used ? ["Gear: ", Pk.el("a", {href: "/gear", text: used.name})] : []));
      });
      const description = root.querySelector("[data-description]");
      description.textContent = current.description || "No description yet.";
      description.classList.toggle("muted", !current.description);
      const notes = root.querySelector("[data-notes]");
      notes.textContent = current.notes || "No notes.";
      notes.classList.toggle("muted", !current.notes);
    }
    function open(editing) {
      form.hidden = !editing;
      view.hidden = editing;
      editButton.hidden = editing;
      root.classList.toggle("editing", editing);
      if (editing) {
        root.querySelector("[data-saved]").textContent = "";
        form.elements.name.value = a.name || "";
        form.elements.sport.value = a.sport;
        form.elements.description.value = a.description || "";
        form.elements.notes.value = a.notes || "";
        form.elements.gear_id.value = a.gear_id || "";
        status.textContent = "";
        form.elements.name.focus();
      } else { editButton.focus(); }
    }
    show(a);
    editButton.hidden = false;
    editButton.addEventListener("click", () => open(true));
    root.querySelector("[data-edit-cancel]").addEventListener("click", () => open(false));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const body = {name: form.elements.name.value, sport: form.elements.sport.value,
        description: form.elements.description.value, notes: form.elements.notes.value,
        gear_id: form.elements.gear_id.value || null};
      const button = form.querySelector("button[type=submit]");
      button.disabled = true;
      status.textContent = "Saving…";
      try {
        const saved = await Pk.api("/api/activities/" + encodeURIComponent(id), {method: "PATCH", body: body});
        if (saved.sport !== a.sport) { location.reload(); return; }
        Object.assign(a, saved);
        document.title = (a.name || a.sport) + " · Pacekeeper";
        root.querySelector("[data-name]").textContent = a.name || "Untitled " + a.sport;
        show(a);
        open(false);
        root.querySelector("[data-saved]").textContent = "Saved.";
      } catch (error) {
        status.textContent = error.message;
      } finally { button.disabled = false; }
    });
  }

  /* The streams' charts along time or distance, their cursors moving together; a drag
     across one selects a stretch, whose figures (time, distance, average power, heart
     rate, pace) come from the same samples the charts draw. */
  async function streamCharts(a, basis, units) {
    const box = root.querySelector("[data-streams]");
    const wanted = STREAMS.filter((s) => (a.streams || []).includes(s.key));
    if (!wanted.length) {
      box.replaceChildren(el("p", {class: "muted", text: "This activity has no sample streams (a summary only)."}));
      root.querySelector("[data-range-hint]").hidden = true;
    } else {
      const hasDistance = (a.streams || []).includes("distance");
      const keys = [...wanted.map((s) => s.key), ...(hasDistance ? ["distance"] : [])].join(",");
      const data = await Pk.api("/api/activities/" + encodeURIComponent(id) + "/streams?keys=" + keys + "&max_points=800");
      const toggle = root.querySelector("[data-x-axis]");
      toggle.hidden = !hasDistance;
      let along = "time";
      const draw = () => {
      box.replaceChildren();
      root.querySelector("[data-range]").replaceChildren();
      const perUnit = units === "imperial" ? 1609.344 : 1000, unitName = units === "imperial" ? "mi" : "km";
      const dist = (data.streams.distance || []).map((v) => (v === null ? null : v / perUnit));
      const byDistance = along === "distance";
      // Distance never steps back, but a missing sample would: carried forward.
      let last = 0;
      const xDist = dist.map((v) => (v === null ? last : (last = Math.max(last, v))));
      const xs = byDistance ? xDist : data.streams.time;
      const axis = byDistance ? {xLabel: "Distance", xFmt: (v) => v.toFixed(2) + " " + unitName} : {xLabel: "Elapsed", xKind: "elapsed"};
      const shared = {...axis, sync: "activity-" + id, onSelect: (from, to) => selected(data, xs, from, to, perUnit, unitName, basis)};
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
          Charts.line(box, {id: "pace", title: "Pace per lap (min/100 m)", x: x, xLabel: "Elapsed", xKind: "elapsed", pace: true, sync: "activity-" + id,
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
          Charts.line(box, {id: "pace", title: "Pace (" + basis.axis + ")", x: xs, ...shared, pace: true,
            series: [{label: "Pace", values: values, color: Charts.COLORS.speed, unit: basis.unit}],
            summary: "Pace over the activity: " + (present.length
              ? "average " + fmt.pace(fmt.secondsPer(a.average_speed_mps, basis.per), basis.unit) + ", fastest " + fmt.pace(Math.min(...present), basis.unit)
              : "no samples")});
          continue;
        }
        const values = raw.map((v) => (v === null ? null : v * (s.scale || 1)));
        Charts.line(box, {id: s.key, title: s.label + " (" + s.unit + ")", x: xs, ...shared,
          series: [{label: s.label, values: values, color: Charts.COLORS[s.key], unit: s.unit, digits: s.digits}],
          summary: s.label + " over the activity: " + summary(values) + " " + s.unit});
      }
          };
      draw();
      toggle.addEventListener("change", (event) => { along = event.target.value; draw(); });
    }
  }

  function selected(data, xs, from, to, perUnit, unitName, basis) {
    const box = root.querySelector("[data-range]");
    const idx = xs.map((x, i) => [x, i]).filter(([x]) => x >= from && x <= to).map(([, i]) => i);
    if (idx.length < 2) { box.replaceChildren(); return; }
    const first = idx[0], last = idx[idx.length - 1];
    const t = data.streams.time, d = data.streams.distance || [];
    box.dataset.fromS = String(t[first]);  // the stretch, for whoever checks its figures
    box.dataset.toS = String(t[last]);
    const mean = (key) => {
      const values = idx.map((i) => (data.streams[key] || [])[i]).filter((v) => v !== null && v !== undefined);
      return values.length ? values.reduce((p, q) => p + q, 0) / values.length : null;
    };
    const seconds = t[last] - t[first];
    const metresGone = d.length && d[last] !== null && d[first] !== null ? d[last] - d[first] : null;
    const facts = [["Time", fmt.duration(seconds)]];
    if (metresGone !== null) {
      facts.push(["Distance", (metresGone / perUnit).toFixed(2) + " " + unitName]);
      if (basis && metresGone > 0) { facts.push(["Pace", fmt.pace(fmt.secondsPer(metresGone / seconds, basis.per), basis.unit)]); }
    }
    const power = mean("power"), hr = mean("heartrate");
    if (power !== null) { facts.push(["Average power", Math.round(power) + " W"]); }
    if (hr !== null) { facts.push(["Average heart rate", Math.round(hr) + " bpm"]); }
    box.replaceChildren(el("strong", {text: "Selected: "}), ...facts.flatMap(([k, v], i) => [(i ? " · " : ""), k + " ", el("span", {"data-fact": k, text: v})]));
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
    about(a);
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
    laps(a, units);
    zones(a, units);
    routeMap(a).catch(Pk.showError);

    await streamCharts(a, basis, units);

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
