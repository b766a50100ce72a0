/* Activities: import (file picker or drag and drop; one request per file, with progress
   and a result line each) and the list (filters, cursor paging). */
"use strict";
(() => {
  const {el, fmt} = Pk;
  const table = document.querySelector("[data-activities] tbody");
  const more = document.querySelector("[data-more]");
  const empty = document.querySelector("[data-empty]");
  const filters = document.querySelector("[data-filters]");
  let cursor = null;

  function row(a) {
    return el("tr", {},
      el("td", {class: "date", text: fmt.localDate(a.start_time)}),
      // A phone has no room for the Sport column: the sport goes under the name.
      el("td", {}, el("a", {href: "/activities/" + a.id, text: a.name || "Untitled " + a.sport}),
        el("small", {class: "show-phone", text: a.sport})),
      el("td", {class: "hide-phone", text: a.sport}),
      el("td", {class: "num", text: fmt.km(a.distance_m)}),
      el("td", {class: "num", text: fmt.duration(a.moving_time_s || a.elapsed_time_s)}),
      el("td", {class: "num", text: a.load === null || a.load === undefined ? "–" : fmt.num(a.load)}));
  }

  function query() {
    const params = new URLSearchParams({limit: "25"});
    const form = new FormData(filters);
    for (const [name, value] of form.entries()) { if (value) { params.set(name, value); } }
    if (cursor) { params.set("cursor", cursor); }
    return params;
  }

  async function load(reset) {
    if (reset) { cursor = null; table.replaceChildren(); }
    try {
      const page = await Pk.api("/api/activities?" + query().toString());
      page.activities.forEach((a) => table.append(row(a)));
      cursor = page.next_cursor || null;
      more.hidden = !cursor;
      empty.hidden = table.children.length > 0;
    } catch (error) { Pk.showError(error); }
  }

  filters.addEventListener("submit", (event) => { event.preventDefault(); load(true); });
  more.addEventListener("click", () => load(false));

  /* Import */
  const input = document.querySelector("[data-import]");
  const zone = document.querySelector("[data-dropzone]");
  const progress = document.querySelector("[data-import-progress]");
  const results = document.querySelector("[data-import-results]");

  function resultLine(file, status, detail, activity) {
    const labels = {imported: "Imported", duplicate: "Duplicate", merged: "Merged", rejected: "Rejected"};
    const item = el("li", {class: status, "data-status": status},
      el("span", {class: "tag", text: labels[status] || status}), file + (detail ? ": " + detail : ""));
    if (activity) { item.append(" ", el("a", {href: "/activities/" + activity.id, text: "open"})); }
    return item;
  }

  function describe(file, response) {
    const data = response.data || {};
    if (data.results) {
      return data.results.map((r) => resultLine(r.file, r.status, r.status === "rejected" ? r.message : (r.activity && r.activity.name), r.activity));
    }
    if (response.status >= 400) { return [resultLine(file, "rejected", data.message || "the server refused the file")]; }
    const detail = data.status === "duplicate" ? "already imported" : data.status === "merged" ? "added to an activity from another source" : (data.activity && data.activity.name);
    return [resultLine(file, data.status || "imported", detail, data.activity)];
  }

  async function importFiles(files) {
    if (!files.length) { return; }
    results.replaceChildren();
    progress.hidden = false;
    progress.max = files.length;
    progress.value = 0;
    let changed = false;
    for (let i = 0; i < files.length; i++) {
      const body = new FormData();
      body.append("file", files[i], files[i].name);
      try {
        const response = await Pk.upload("/api/activities/import", body, (part) => { progress.value = i + part; });
        describe(files[i].name, response).forEach((line) => results.append(line));
        changed = changed || response.status < 400;
      } catch (error) {
        results.append(resultLine(files[i].name, "rejected", error.message));
      }
      progress.value = i + 1;
    }
    results.append(el("li", {class: "summary", text: "Done: " + files.length + " file" + (files.length === 1 ? "" : "s") + "."}));
    if (changed) { load(true); }
    input.value = "";
  }

  input.addEventListener("change", () => importFiles(Array.from(input.files)));
  zone.addEventListener("dragover", (event) => { event.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("over");
    importFiles(Array.from(event.dataTransfer.files));
  });

  load(true);
})();
