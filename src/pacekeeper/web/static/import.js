/* Import your history (issue 31): a whole-account export sent to POST /api/imports (the
   upload's own progress), then its job followed at the status URL it answers, once a
   second, until done or failed: what was imported, merged, already there, refused. The
   import runs as a job: leaving the page does not stop it (?id= comes back to it). */
"use strict";
(() => {
  const {el} = Pk;
  const $ = (selector) => document.querySelector(selector);
  const status = $("[data-import-status]");
  const bar = $("[data-upload-progress]");
  const KINDS = {strava: "Strava archive", garmin: "Garmin Connect export", google: "Google Takeout (Fitbit)",
    apple: "Apple Health export", files: "archive of activity files"};

  function show(job) {
    const p = job.progress || {};
    const r = job.report || {};
    const parts = [el("p", {"data-state": job.status, text: {
      queued: "Waiting for its turn…", running: "Importing your " + (KINDS[job.kind] || "archive") + "…",
      done: "Done: your " + (KINDS[job.kind] || "archive") + " is in.", failed: "The import failed" + (job.error ? ": " + job.error : "."),
    }[job.status] || job.status})];
    if (p.total) {
      parts.push(el("progress", {max: String(p.total), value: String(p.done || 0), "aria-label": "Import"}),
        el("p", {class: "muted", text: (p.done || 0) + " of " + p.total + " files"}));
    }
    if (job.status === "done" || job.status === "failed" || r.imported) {
      parts.push(el("dl", {class: "facts", "data-report": ""},
        el("dt", {text: "Imported"}), el("dd", {text: String(r.imported || 0)}),
        el("dt", {text: "Merged with what you had"}), el("dd", {text: String(r.merged || 0)}),
        el("dt", {text: "Already there"}), el("dd", {text: String(r.duplicates || 0)}),
        el("dt", {text: "Refused"}), el("dd", {text: String(job.rejected_total || (r.rejected || []).length)})));
      const refused = (r.rejected || []).slice(0, 20);
      if (refused.length) {
        parts.push(el("ul", {"aria-label": "Refused files"}, ...refused.map((x) => el("li", {}, el("code", {text: x.name}), " " + x.error))));
      }
    }
    if (job.status === "done") { parts.push(el("p", {}, el("a", {href: "/activities", text: "See your activities"}))); }
    status.replaceChildren(...parts);
  }

  async function follow(url) {
    for (;;) {
      const job = await Pk.api(url);
      show(job);
      if (job.status === "done" || job.status === "failed") { return; }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  $("[data-export-form]").addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = event.target.elements.file.files[0];
    if (!file) { return; }
    const body = new FormData();
    body.append("file", file);
    bar.hidden = false;
    bar.value = 0;
    status.replaceChildren(el("p", {text: "Sending " + file.name + "…"}));
    try {
      const sent = await Pk.upload("/api/imports", body, (part) => { bar.value = part; });
      bar.hidden = true;
      if (sent.status !== 202) {
        status.replaceChildren(el("p", {class: "notice", text: (sent.data && sent.data.message) || "The archive was not accepted."}));
        return;
      }
      history.replaceState(null, "", "?id=" + encodeURIComponent(sent.data.id));
      await follow(sent.data.status_url);
    } catch (error) { bar.hidden = true; Pk.showError(error); }
  });

  const again = new URLSearchParams(location.search).get("id");
  if (again) { follow("/api/imports/" + encodeURIComponent(again)).catch(Pk.showError); }
})();
