/* The MCP Apps view side (SEP-1865): JSON-RPC 2.0 over postMessage with the host.
   ui/initialize, then ui/notifications/initialized; the host sends the tool's input and
   result (ui/notifications/tool-input, ui/notifications/tool-result, whose params are
   the CallToolResult); the view tells the host its height (size-changed). Plus a small
   SVG line chart. No network: the view draws only what the host hands it. */
"use strict";
const PkView = (() => {
  const pending = new Map();
  let nextId = 1;
  let onResult = null;
  function post(message) { window.parent.postMessage(message, "*"); }
  function request(method, params) {
    const id = nextId++;
    post({jsonrpc: "2.0", id: id, method: method, params: params});
    return new Promise((resolve, reject) => pending.set(id, {resolve: resolve, reject: reject}));
  }
  function resized() {
    post({jsonrpc: "2.0", method: "ui/notifications/size-changed",
      params: {width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight}});
  }
  function data(result) {
    if (result && result.structuredContent) { return result.structuredContent; }
    const text = result && result.content && result.content.find((c) => c.type === "text");
    try { return text ? JSON.parse(text.text) : null; } catch (e) { return null; }
  }
  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) { return; }
    const m = event.data;
    if (!m || m.jsonrpc !== "2.0") { return; }
    if (m.id !== undefined && pending.has(m.id) && !m.method) {
      const waiter = pending.get(m.id);
      pending.delete(m.id);
      if (m.error) { waiter.reject(new Error(m.error.message)); } else { waiter.resolve(m.result); }
    } else if (m.method === "ui/notifications/tool-result" && onResult) {
      const found = data(m.params);
      document.body.dataset.state = found ? "rendered" : "empty";
      if (found) { onResult(found, m.params); } else { say("The tool returned no data to draw."); }
      resized();
    } else if (m.method === "ui/resource-teardown" && m.id !== undefined) {
      post({jsonrpc: "2.0", id: m.id, result: {}});
    }
  });
  function say(text) {
    const main = document.querySelector("main");
    main.replaceChildren(el("p", {class: "empty", text: text}));
  }
  function start(name, render) {
    onResult = render;
    request("ui/initialize", {protocolVersion: "2026-01-26", appInfo: {name: name, version: "1"}, appCapabilities: {}})
      .then(() => post({jsonrpc: "2.0", method: "ui/notifications/initialized", params: {}}))
      .catch(() => say("This view needs a host that supports MCP Apps."));
  }

  const SVG = "http://www.w3.org/2000/svg";
  function el(tag, attrs, ...children) {
    const svg = ["svg", "g", "path", "line", "text", "rect", "title"].includes(tag);
    const node = svg ? document.createElementNS(SVG, tag) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined) { continue; }
      if (k === "text") { node.textContent = v; } else { node.setAttribute(k, String(v)); }
    }
    for (const c of children) { if (c !== null && c !== undefined) { node.append(c); } }
    return node;
  }

  /* A line chart: x values (numbers), series [{values, color, label}], a label function
     for x ticks; `logX` for duration curves. Accessible by its <title> and a summary. */
  function lineChart(xs, series, opts) {
    const W = 640, H = 240, L = 44, R = 24, T = 10, B = 26;
    const fx = opts.logX ? (v) => Math.log(Math.max(v, 1)) : (v) => v;
    const xmin = fx(xs[0]), xmax = fx(xs[xs.length - 1]) || xmin + 1;
    const all = series.flatMap((s) => s.values.filter((v) => v !== null && v !== undefined));
    let ymin = Math.min(0, ...all), ymax = Math.max(...all, 1);
    if (ymax === ymin) { ymax = ymin + 1; }
    const px = (v) => L + (fx(v) - xmin) / ((xmax - xmin) || 1) * (W - L - R);
    const py = (v) => T + (ymax - v) / (ymax - ymin) * (H - T - B);
    const grid = el("g", {class: "grid"});
    const digits = ymax - ymin < 8 ? 1 : 0;
    for (let i = 0; i <= 4; i++) {
      const v = ymin + (ymax - ymin) * i / 4;
      grid.append(el("line", {x1: L, x2: W - R, y1: py(v), y2: py(v)}),
        el("text", {x: L - 6, y: py(v) + 4, "text-anchor": "end", text: v.toFixed(digits)}));
    }
    const ticks = opts.ticks(xs);
    for (const t of ticks) {
      grid.append(el("text", {x: px(t.x), y: H - 8, "text-anchor": "middle", text: t.label}));
    }
    const paths = series.map((s) => {
      let d = "", pen = false;
      xs.forEach((x, i) => {
        const v = s.values[i];
        if (v === null || v === undefined) { pen = false; return; }
        d += (pen ? "L" : "M") + px(x).toFixed(1) + " " + py(v).toFixed(1);
        pen = true;
      });
      return el("path", {d: d, fill: "none", stroke: s.color, "stroke-width": s.width || 2, "data-series": s.label});
    });
    return el("svg", {viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": opts.title},
      el("title", {text: opts.title}), grid, ...paths);
  }

  function duration(s) {
    if (s < 60) { return s + " s"; }
    if (s < 3600) { return Math.round(s / 60) + " min"; }
    return (s / 3600).toFixed(s % 3600 ? 1 : 0) + " h";
  }

  return {start: start, el: el, lineChart: lineChart, duration: duration};
})();
