/* The workout builder (issue 32): name, sport, date and steps (each a kind, an end by
   time, distance or lap press, and an optional target range), and repeat groups of steps.
   Saving POSTs (or PATCHes) the shape of docs/plans.md; the answer's derived duration and
   load are shown, and the API's error, which names the step (steps[1].steps[0].target:
   ...), is shown by the form and beside that step. Times are typed as m:ss (or minutes),
   pace targets as m:ss per km (per 100 m for swims). */
"use strict";
(() => {
  const {el, fmt} = Pk;
  const form = document.querySelector("[data-builder]");
  const list = form.querySelector("[data-steps]");
  const error = form.querySelector("[data-builder-error]");
  const status = form.querySelector("[data-builder-status]");
  let id = form.dataset.builder || null;
  let serial = 0;
  // namedItem: `form.name` would be read as the form's own name by some browsers.
  const field = (name) => form.elements.namedItem(name);
  const KINDS = [["warmup", "Warm-up"], ["active", "Active"], ["recovery", "Recovery"], ["cooldown", "Cool-down"], ["rest", "Rest"]];
  const ENDS = [["time", "Time (m:ss)"], ["distance", "Distance (m)"], ["lap", "Lap press"]];
  const TARGETS = [["", "No target"], ["ftp_pct", "% FTP"], ["watts", "Watts"], ["lthr_pct", "% LTHR"], ["bpm", "Heart rate (bpm)"],
    ["pace", "Pace (m:ss)"], ["pace_pct", "% threshold speed"], ["rpe", "RPE (1-10)"]];

  const options = (pairs, chosen) => pairs.map(([v, t]) => el("option", {value: v, selected: v === chosen, text: t}));
  const seconds = (text) => {
    const m = /^\s*(\d+)(?::([0-5]?\d))?\s*$/.exec(text || "");
    return m ? (m[2] === undefined ? Number(m[1]) * 60 : Number(m[1]) * 60 + Number(m[2])) : NaN;
  };

  function stepRow(step) {
    const s = step || {kind: "active", end: {time_s: 300}};
    const n = ++serial;
    const endKind = s.end.lap_press ? "lap" : s.end.distance_m ? "distance" : "time";
    const t = s.target || {};
    const pace = t.type === "pace";
    const endValue = el("input", {type: "text", name: "end_value", "aria-label": "Step " + n + " length", size: "6",
      value: endKind === "time" ? fmt.mss(s.end.time_s) : endKind === "distance" ? String(s.end.distance_m) : ""});
    const endSel = el("select", {name: "end", "aria-label": "Step " + n + " ends by"}, ...options(ENDS, endKind));
    const low = el("input", {type: "text", name: "low", "aria-label": "Step " + n + " target low", size: "5", value: t.low === undefined ? "" : pace ? fmt.mss(t.low) : String(t.low)});
    const high = el("input", {type: "text", name: "high", "aria-label": "Step " + n + " target high", size: "5", value: t.high === undefined ? "" : pace ? fmt.mss(t.high) : String(t.high)});
    const targetSel = el("select", {name: "target", "aria-label": "Step " + n + " target"}, ...options(TARGETS, t.type || ""));
    const sync = () => { endValue.hidden = endSel.value === "lap"; low.hidden = high.hidden = !targetSel.value; };
    endSel.addEventListener("change", sync);
    targetSel.addEventListener("change", sync);
    const row = el("li", {class: "b-step", "data-step": ""},
      el("select", {name: "kind", "aria-label": "Step " + n + " kind"}, ...options(KINDS, s.kind)),
      el("span", {class: "b-end"}, endSel, endValue),
      el("span", {class: "b-target"}, targetSel, low, high),
      el("input", {type: "text", name: "note", "aria-label": "Step " + n + " note", placeholder: "note", value: s.note || "", size: "10"}),
      el("button", {type: "button", class: "link", "aria-label": "Remove step " + n, text: "Remove", onclick: () => row.remove()}),
      el("p", {class: "error b-step-error", role: "status"}));
    sync();
    return row;
  }

  function repeatRow(group) {
    const g = group || {repeat: 2, steps: [{kind: "active", end: {time_s: 300}}]};
    const n = ++serial;
    const inner = el("ol", {class: "b-steps", "aria-label": "Repeated steps " + n}, ...g.steps.map(stepRow));
    const row = el("li", {class: "b-repeat", "data-repeat": ""},
      el("label", {class: "b-count-label"}, "Repeat ", el("input", {name: "repeat", type: "number", min: "1", max: "100", value: String(g.repeat), class: "b-count"}), " times"),
      inner,
      el("p", {}, el("button", {type: "button", class: "secondary", text: "Add step to repeat", onclick: () => inner.append(stepRow())}), " ",
        el("button", {type: "button", class: "link", "aria-label": "Remove repeat " + n, text: "Remove repeat", onclick: () => row.remove()})),
      el("p", {class: "error b-step-error", role: "status"}));
    return row;
  }

  function readStep(row) {
    const get = (name) => row.querySelector("[name=" + name + "]");  // a step row holds one of each
    const step = {kind: row.querySelector("select[name=kind]").value};
    const endKind = get("end").value, value = get("end_value").value;
    step.end = endKind === "lap" ? {lap_press: true} : endKind === "distance" ? {distance_m: Number(value)} : {time_s: seconds(value)};
    const type = get("target").value;
    if (type) {
      const read = (v) => (type === "pace" ? seconds(v) : Number(v));
      step.target = {type: type, low: read(get("low").value), high: read(get("high").value)};
    }
    const note = get("note").value.trim();
    if (note) { step.note = note; }
    return step;
  }

  function body() {
    const steps = [...list.children].map((row) => row.hasAttribute("data-repeat")
      ? {repeat: Number(row.querySelector("[name=repeat]").value),
        steps: [...row.querySelector("ol").children].map((r) => readStep(r))}
      : readStep(row));
    const out = {name: field("name").value.trim(), sport: field("sport").value, steps: steps, date: field("date").value || null};
    const description = field("description").value.trim();
    if (description || id) { out.description = description || null; }
    return out;
  }

  /* "steps[1].steps[0].target: ..." -> the row of that step, to show the message by it. */
  function rowOf(message) {
    const m = /^steps\[(\d+)\](?:\.steps\[(\d+)\])?/.exec(message || "");
    if (!m) { return null; }
    const outer = list.children[Number(m[1])];
    if (!outer || m[2] === undefined) { return outer || null; }
    return outer.querySelector("ol").children[Number(m[2])] || outer;
  }

  form.querySelector("[data-add-step]").addEventListener("click", () => list.append(stepRow()));
  form.querySelector("[data-add-repeat]").addEventListener("click", () => list.append(repeatRow()));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = status.textContent = "";
    form.querySelectorAll(".b-step-error").forEach((p) => { p.textContent = ""; });
    form.querySelectorAll("[aria-invalid]").forEach((n) => n.removeAttribute("aria-invalid"));
    const data = body();
    if (!id && data.date === null) { delete data.date; }
    try {
      const w = await Pk.api(id ? "/api/workouts/" + encodeURIComponent(id) : "/api/workouts", {method: id ? "PATCH" : "POST", body: data});
      id = w.id;
      history.replaceState(null, "", "/workouts/" + w.id + "/edit");
      status.replaceChildren("Saved: " + (w.duration_s ? fmt.duration(w.duration_s) : "duration unknown (a lap press or a distance without pace)") +
        ", load " + (w.load === null || w.load === undefined ? "unknown" : Math.round(w.load) + " " + (w.load_method || "").toUpperCase()) +
        (w.load_complete === false ? " (some steps add none)" : "") + ". ",
        el("a", {href: "/workouts/" + w.id, text: "Open the workout"}),
        w.date ? el("span", {}, " · ", el("a", {href: "/calendar?view=week&date=" + w.date, text: "See it on the calendar"})) : "");
    } catch (e) {
      error.textContent = e.message;
      const row = rowOf(e.message);
      if (row) {
        row.setAttribute("aria-invalid", "true");
        row.querySelector(":scope > .b-step-error").textContent = e.message;
      }
    }
  });

  async function start() {
    if (!id) {
      list.append(stepRow({kind: "warmup", end: {time_s: 600}}));
      return;
    }
    try {
      const w = await Pk.api("/api/workouts/" + encodeURIComponent(id));
      field("name").value = w.name;
      field("sport").value = w.sport;
      field("date").value = w.date || "";
      field("description").value = w.description || "";
      list.append(...w.steps.map((s) => (s.repeat ? repeatRow(s) : stepRow(s))));
    } catch (e) {
      form.replaceChildren(el("p", {text: e.status === 404 ? "Workout not found: there is no such workout in your account." : e.message}));
    }
  }
  start();
})();
