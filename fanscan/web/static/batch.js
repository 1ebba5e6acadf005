// The batch page: each photo is one `POST /api/batch/row` (a row of `fanscan batch`), one after another so the
// progress is real; the table is made by `POST /api/batch/table` from the rows.
"use strict";

const $ = (id) => document.getElementById(id);
let rows = [];

async function postRow(file, context) {
  const form = new FormData();
  form.append("photo", file, file.name);
  form.append("rules", $("rules").value);
  form.append("context", JSON.stringify(context));
  const response = await fetch("/api/batch/row", {method: "POST", body: form});
  const body = await response.json().catch(() => ({}));
  // A refused upload (too large, ...) is an error row too: every photo gets a row.
  return response.ok ? body : {file: file.name, ok: false, error: body.error || `error ${response.status}`};
}

// An error row's words are `fanscan batch`'s (so are the downloaded tables'); the terminal flag they advise is no
// option here: the one-hand page is where a reading gets checked.
function pageError(text) {
  return text.replace(/check it, or pass --accept-overrides/g, "check it on the One hand page")
    .replace(/,? or pass --[\w-]+/g, "");
}

function addRow(row) {
  const tr = $("rows").insertRow();
  tr.insertCell().textContent = row.file;
  tr.insertCell().textContent = row.ok ? row.total : "—";
  const what = tr.insertCell();
  if (row.ok) {
    what.appendChild(handText(row.hand)); // hand_text.js: breaks between tile groups only
  } else {
    what.textContent = pageError(row.error);
    what.className = "error";
  }
}

async function run(event) {
  event.preventDefault();
  const files = [...$("photos").files];
  const form = $("batch-form");
  const context = {
    self_drawn: form.self_drawn.checked, seat_wind: form.seat_wind.value, prevalent_wind: form.prevalent_wind.value,
  };
  rows = [];
  $("rows").replaceChildren();
  $("progress").hidden = false;
  $("progress").max = files.length;
  $("start").disabled = true;
  for (const [n, file] of files.entries()) {
    $("batch-status").textContent = `${n} of ${files.length} done; reading ${file.name}…`;
    const row = await postRow(file, context);
    rows.push(row);
    addRow(row);
    $("progress").value = n + 1;
  }
  const errors = rows.filter((r) => !r.ok).length;
  $("batch-status").textContent = `${files.length} photos: ${files.length - errors} scored, ${errors} errors`;
  $("download-csv").hidden = $("download-jsonl").hidden = false;
  $("start").disabled = false;
  document.body.dataset.done = "yes";
}

async function download(format) {
  const response = await fetch("/api/batch/table", {
    method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify({rows, format}),
  });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(await response.blob());
  link.download = format === "csv" ? "scores.csv" : "scores.jsonl";
  document.body.appendChild(link);
  link.click();
  link.remove();
}

fetch("/api/config").then((r) => r.json()).then((config) => {
  $("rules").value = config.rules;
});
$("photos").addEventListener("change", () => {
  $("start").disabled = !$("photos").files.length;
  $("batch-status").textContent = `${$("photos").files.length} photos chosen`;
});
$("batch-form").addEventListener("submit", run);
$("download-csv").addEventListener("click", () => download("csv"));
$("download-jsonl").addEventListener("click", () => download("jsonl"));
