/* One workout (issue 32): its figures, its steps as a chart of targets (each step's low
   and high over the workout's time) and as a list, its files (FIT, ZWO, ERG, MRC) and,
   when Garmin is connected (GET /oauth/status), Send to Garmin. */
"use strict";
(() => {
  const {el, fmt} = Pk;
  const root = document.querySelector("[data-workout]");
  const id = root.dataset.workout;
  const $ = (s) => root.querySelector(s);
  const KINDS = {warmup: "Warm-up", active: "Active", recovery: "Recovery", cooldown: "Cool-down", rest: "Rest"};
  const UNITS = {ftp_pct: "% FTP", watts: "W", lthr_pct: "% LTHR", bpm: "bpm", pace_pct: "% threshold speed", rpe: "RPE"};
  // A step of unknown time (a lap press, a distance without a pace) is drawn this long.
  const UNKNOWN_S = 300;

  function target(t, sport) {
    if (!t) { return "no target"; }
    if (t.type === "pace") { return fmt.mss(t.low) + "–" + fmt.mss(t.high) + (sport === "swimming" ? " /100 m" : " /km"); }
    return t.low + "–" + t.high + " " + UNITS[t.type];
  }

  function end(e) {
    if (e.time_s) { return fmt.duration(e.time_s); }
    if (e.distance_m) { return e.distance_m + " m"; }
    return "until lap press";
  }

  function flat(steps) {
    const out = [];
    for (const s of steps) {
      if (s.repeat) { for (let i = 0; i < s.repeat; i++) { out.push(...s.steps); } } else { out.push(s); }
    }
    return out;
  }

  function stepItem(s, sport) {
    return el("li", {}, (KINDS[s.kind] || s.kind) + " " + end(s.end) + ", " + target(s.target, sport) + (s.note ? " (" + s.note + ")" : ""));
  }

  function chart(w) {
    const steps = flat(w.steps);
    const typed = steps.find((s) => s.target);
    if (!typed) { return; }
    const type = typed.target.type;
    const x = [], low = [], high = [];
    let t = 0;
    for (const s of steps) {
      const length = s.end.time_s || UNKNOWN_S;
      const same = s.target && s.target.type === type;
      for (const at of [t, t + length]) {
        x.push(at); low.push(same ? s.target.low : null); high.push(same ? s.target.high : null);
      }
      t += length;
    }
    const unit = type === "pace" ? "" : UNITS[type];
    Charts.line($("[data-w-chart]"), {
      id: "targets", title: "Targets (" + (type === "pace" ? "pace" : UNITS[type]) + ")", xLabel: "Time", height: 180,
      summary: steps.length + " steps over " + fmt.duration(t) + ", targets from " + Math.min(...low.filter((v) => v !== null)) +
        " to " + Math.max(...high.filter((v) => v !== null)) + " " + (unit || "s per km"),
      x: x, pace: type === "pace",
      series: [{label: "Low", values: low, color: "#0f766e", unit: unit}, {label: "High", values: high, color: "#7c3aed", unit: unit}],
    });
  }

  async function garmin(w) {
    try {
      const status = await Pk.api("/oauth/status");
      if (!status.garmin || !status.garmin.connected) { return; }
    } catch (error) { return; }
    $("[data-w-send]").hidden = false;
    const line = $("[data-w-send-status]");
    $("[data-w-send-button]").addEventListener("click", async (event) => {
      event.target.disabled = true;
      line.textContent = "Sending…";
      try {
        await Pk.api("/api/workouts/" + encodeURIComponent(w.id) + "/send", {method: "POST", body: {provider: "garmin"}});
        line.textContent = "Sent to Garmin Connect" + (w.date ? ", on " + fmt.localDate(w.date) : "") + ": your device gets it on its next sync.";
      } catch (error) { line.textContent = error.message; }
      event.target.disabled = false;
    });
  }

  async function load() {
    let w;
    try {
      w = await Pk.api("/api/workouts/" + encodeURIComponent(id));
    } catch (error) {
      $("[data-w-name]").textContent = error.status === 404 || error.status === 400 ? "Workout not found" : "Workout";
      $("[data-w-facts]").textContent = error.status === 404 || error.status === 400
        ? "There is no such workout in your account." : error.message;
      return;
    }
    document.title = w.name + " · Pacekeeper";
    $("[data-w-name]").textContent = w.name;
    $("[data-w-facts]").textContent = [w.sport, w.date ? fmt.localDate(w.date) : "not on the calendar",
      w.duration_s ? fmt.duration(w.duration_s) : "duration unknown",
      w.distance_m ? fmt.km(w.distance_m) : null,
      w.load === null || w.load === undefined ? null : Math.round(w.load) + " " + (w.load_method || "load").toUpperCase() + (w.load_complete === false ? " (partial)" : "")].filter(Boolean).join(" · ");
    $("[data-w-steps]").replaceChildren(...w.steps.map((s) => s.repeat
      ? el("li", {}, s.repeat + " times:", el("ol", {}, ...s.steps.map((x) => stepItem(x, w.sport))))
      : stepItem(s, w.sport)));
    $("[data-w-body]").hidden = false;
    chart(w);
    $("[data-w-exports]").replaceChildren("Download: ", ...["fit", "zwo", "erg", "mrc"].flatMap((f, i) => [i ? " " : "",
      el("a", {class: "button secondary", href: "/api/workouts/" + encodeURIComponent(w.id) + "/export?format=" + f, download: "", text: f.toUpperCase()})]));
    $("[data-w-edit]").href = "/workouts/" + encodeURIComponent(w.id) + "/edit";
    if (w.date) { $("[data-w-calendar]").href = "/calendar?view=week&date=" + w.date; }
    $("[data-w-files]").hidden = false;
    garmin(w);
  }
  load();
})();
