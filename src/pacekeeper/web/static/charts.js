/* Charts on uPlot (vendored in static/vendor/uplot, MIT): line charts that follow their
   container's width, with a text summary for screen readers (the canvas is an image). */
"use strict";
const Charts = (() => {
  const COLORS = {power: "#7c3aed", heartrate: "#dc2626", speed: "#0f766e", altitude: "#a16207",
    cadence: "#2563eb", ctl: "#0f766e", atl: "#7c3aed", tsb: "#ea580c", best: "#94a3b8", curve: "#7c3aed"};

  function sized(container, make) {
    let plot = make(Math.max(280, container.clientWidth));
    new ResizeObserver(() => {
      const width = Math.max(280, container.clientWidth);
      if (plot && Math.abs(plot.width - width) > 4) { plot.setSize({width: width, height: plot.height}); }
    }).observe(container);
    return plot;
  }

  // Tick steps for a pace axis in seconds: whole 5/10/15/30 s and minutes read as m:ss.
  const PACE_STEPS = [1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1800, 3600];

  /* opts: {title, summary, x: [...], xLabel, xKind: "elapsed"|"date"|"duration", log,
            series: [{label, values, color, unit, dash}], height,
            pace: true for a y axis in seconds (m:ss ticks and legend, faster up)} */
  function line(container, opts) {
    const figure = Pk.el("figure", {class: "chart", "data-chart": opts.id || opts.title, role: "group", "aria-label": opts.title});
    figure.append(Pk.el("h3", {text: opts.title}));
    const area = Pk.el("div", {role: "img", "aria-label": opts.summary || opts.title});
    figure.append(area);
    container.append(figure);
    const xFmt = opts.xFmt || (opts.xKind === "date" ? null
      : (opts.xKind === "duration" ? (v) => durationLabel(v) : (v) => Pk.fmt.duration(v)));
    const axes = [
      // A log scale leaves the ticks it does not label as null.
      {stroke: "#475569", grid: {stroke: "#e2e8f0"},
        values: xFmt ? (u, vals) => vals.map((v) => (v === null ? "" : xFmt(v))) : undefined},
      {stroke: "#475569", grid: {stroke: "#e2e8f0"}, size: 56},
    ];
    if (opts.pace) {
      // The labels the canvas draws are kept on the figure too (data-y-ticks): a canvas
      // has no text to read back.
      axes[1].incrs = PACE_STEPS;
      axes[1].values = (u, vals) => {
        const labels = vals.map((v) => (v === null ? "" : Pk.fmt.mss(v)));
        figure.dataset.yTicks = labels.filter(Boolean).join(" ");
        return labels;
      };
    }
    const series = [{label: opts.xLabel || "Time", value: xFmt ? (u, v) => (v === null ? "–" : xFmt(v)) : undefined}];
    opts.series.forEach((s) => series.push({
      label: s.label, stroke: s.color || "#0f766e", width: 1.5, dash: s.dash, spanGaps: false,
      value: (u, v) => (v === null || v === undefined ? "–"
        : (opts.pace ? Pk.fmt.mss(v) : Number(v).toFixed(s.digits || 0)) + (s.unit ? " " + s.unit : "")),
    }));
    const data = [opts.x, ...opts.series.map((s) => s.values)];
    return sized(area, (width) => new uPlot({
      width: width, height: opts.height || 200, series: series, axes: axes,
      // A pace axis is inverted, faster (fewer seconds) up, as Strava and Garmin draw it.
      scales: {x: opts.log ? {time: false, distr: 3} : {time: opts.xKind === "date"}, ...(opts.pace ? {y: {dir: -1, range: paceRange(opts.series)}} : {})},
      // opts.sync: charts of one key share their cursor; opts.onSelect(from, to): a drag
      // across the chart selects a range of x (not a zoom).
      cursor: {drag: {x: Boolean(opts.onSelect), y: false, setScale: false},
        ...(opts.sync ? {sync: {key: opts.sync}} : {})},
      hooks: opts.onSelect ? {setSelect: [(u) => {
        if (u.select.width > 0) { opts.onSelect(u.posToVal(u.select.left, "x"), u.posToVal(u.select.left + u.select.width, "x")); }
      }]} : {},
    }, data, area));
  }

  /* A pace axis spans the 1st to 99th percentile of its samples: a GPS jump or the slow
     seconds of stopping (a 17:00 /km sample among 5:00s) would squash the run into a
     line at the top. Those few samples run off the plot. */
  function paceRange(series) {
    const all = series.flatMap((s) => s.values).filter((v) => v !== null && v !== undefined).sort((a, b) => a - b);
    return (u, min, max) => {
      if (!all.length) { return [min, max]; }
      const lo = all[Math.floor((all.length - 1) * 0.01)], hi = all[Math.ceil((all.length - 1) * 0.99)];
      const pad = Math.max(5, (hi - lo) * 0.08);
      return [Math.max(0, lo - pad), hi + pad];
    };
  }

  function durationLabel(s) {
    if (s < 60) { return s + "s"; }
    if (s < 3600) { return Math.round(s / 60) + "m"; }
    return (s / 3600).toFixed(s % 3600 ? 1 : 0) + "h";
  }

  /* The PMC's three lines of a fitness chart answer's days (Home and the Fitness page). */
  function pmcSeries(days) {
    return [
      {label: "Fitness (CTL)", values: days.map((d) => d.ctl), color: COLORS.ctl, digits: 1},
      {label: "Fatigue (ATL)", values: days.map((d) => d.atl), color: COLORS.atl, digits: 1},
      {label: "Form (TSB)", values: days.map((d) => d.tsb), color: COLORS.tsb, digits: 1, dash: [6, 4]},
    ];
  }

  return {line: line, COLORS: COLORS, durationLabel: durationLabel, pmcSeries: pmcSeries};
})();
