/* The route on a map: Leaflet (vendored in static/vendor/leaflet, BSD-2-Clause) with tiles
   from the configured tile server (PACEKEEPER_MAP_TILE_URL, the only image host the
   page's CSP lets in). The track is Leaflet's SVG polyline over the tiles; where the
   tiles cannot be reached (offline, a blocked host) it stays, drawn on a plain ground,
   and the page says why the map is empty. */
"use strict";
const RouteMap = (() => {
  // A run of points without a fix (a tunnel, the watch's first seconds) breaks the line.
  function segments(lat, lng) {
    const out = [];
    let current = [];
    lat.forEach((la, i) => {
      const lo = lng[i];
      if (la === null || lo === null || la === undefined || lo === undefined) {
        if (current.length) { out.push(current); current = []; }
        return;
      }
      current.push([la, lo]);
    });
    if (current.length) { out.push(current); }
    return out.filter((s) => s.length > 1);
  }

  /* box: the map's element, with data-tile-url and data-tile-attribution;
     note: an element to say the tiles could not be loaded. */
  function draw(box, lat, lng, note) {
    const parts = segments(lat, lng);
    if (!parts.length) { return null; }
    const map = L.map(box, {scrollWheelZoom: false, attributionControl: true});
    const tiles = L.tileLayer(box.dataset.tileUrl, {
      maxZoom: 18, attribution: box.dataset.tileAttribution, crossOrigin: false,
    });
    let loaded = 0;
    tiles.on("tileload", () => {
      loaded += 1;
      box.dataset.tiles = "loaded";
      note.hidden = true;
    });
    tiles.on("tileerror", () => {
      if (loaded) { return; }
      box.dataset.tiles = "unavailable";
      note.textContent = "Map tiles could not be loaded from " + new URL(box.dataset.tileUrl.replace("{s}", "a")).host
        + ": the route is drawn on its own.";
      note.hidden = false;
    });
    tiles.addTo(map);
    const line = L.polyline(parts, {color: "#0f766e", weight: 4, opacity: 0.9, className: "route-line"}).addTo(map);
    const first = parts[0][0], last = parts[parts.length - 1].slice(-1)[0];
    L.circleMarker(first, {radius: 6, color: "#fff", weight: 2, fillColor: "#15803d", fillOpacity: 1, className: "route-start"})
      .bindTooltip("Start").addTo(map);
    L.circleMarker(last, {radius: 6, color: "#fff", weight: 2, fillColor: "#b91c1c", fillOpacity: 1, className: "route-end"})
      .bindTooltip("Finish").addTo(map);
    map.fitBounds(line.getBounds(), {padding: [16, 16]});
    // The box may change width (a phone turned, the window resized): keep the tiles whole.
    new ResizeObserver(() => map.invalidateSize()).observe(box);
    return map;
  }

  return {draw: draw, segments: segments};
})();
