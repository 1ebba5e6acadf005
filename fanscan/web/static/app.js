// The phone page: photo -> tiles (fix with a tap) -> win context -> score. Every step is one call of the JSON API.
"use strict";

const $ = (id) => document.getElementById(id);
const LOW_CONFIDENCE = 0.8; // as the terminal's `?` mark (fanscan/confirm.py)
const state = {
  config: null, proposal: null, fixes: {}, winning: null, hand: null, handHasContext: false,
  photoFlowers: [], paletteTile: null,
  // for `fanscan serve --save-labels`: the photo as sent ({blob, name}; sent again with the confirmed reading),
  // whether the hand being scored is that reading (not a typed one), and whether this photo was kept already
  // (once per photo)
  file: null, handFromPhoto: false, photoKept: false, photoLearned: false,
  // The photo being read: each choice gets the next number, and only the answer for the latest one is drawn (an
  // earlier upload still in flight is cancelled, and its answer dropped should it come anyway).
  photoNumber: 0, photoUpload: null,
  // tiles the reading can still take (the server's waits_to_add), and the one added to the hand, not in the photo
  waits: [], addedTile: null,
};
// Timings of what the user waits for (read by benchmarks/web_speed.py): {what, ms, server_ms, server_cpu_ms,
// server_upload_ms (photo only)}.
window.fanscanTimings = [];

async function api(path, options) {
  const response = await fetch(path, options);
  const timing = response.headers.get("server-timing") || "";
  const serverTiming = /app;dur=([\d.]+)/.exec(timing);
  const serverCpu = /cpu;dur=([\d.]+)/.exec(timing);
  const serverUpload = /upload;dur=([\d.]+)/.exec(timing);
  let body;
  try {
    body = await response.json();
  } catch {
    body = {ok: false, error: `the server answered ${response.status} without JSON`};
  }
  if (!response.ok) {
    throw new Error(body.error || body.detail || `error ${response.status}`);
  }
  return {
    body, serverMs: serverTiming ? Number(serverTiming[1]) : null, serverCpuMs: serverCpu ? Number(serverCpu[1]) : null,
    serverUploadMs: serverUpload ? Number(serverUpload[1]) : null,
  };
}

function postJSON(path, data) {
  return api(path, {method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify(data)});
}

function show(screen) {
  for (const id of ["screen-photo", "screen-context", "screen-score"]) {
    $(id).hidden = id !== screen;
  }
  const heading = $(screen).querySelector("h2");
  heading.tabIndex = -1;
  heading.focus();
}

function rules() {
  return $("rules").value;
}

function tileName(id) {
  const tile = state.config && state.config.tiles.find((t) => t.id === id);
  return tile ? `${tile.en} ${tile.zh}` : id === "none" ? "not a tile" : id;
}

const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));

// ---- 1. photo and tiles ------------------------------------------------------------------------------------------

// The reading uses no more than this many pixels on a photo's long side (the server scales larger photos down to
// it: WORKING_MAX_SIDE in vision/load.py). JPEG files larger than SCALE_FROM_BYTES are scaled down here first.
const UPLOAD_MAX_SIDE = 2048;
const SCALE_FROM_BYTES = 1_000_000;

// The photo as it is sent: a big JPEG decoded straight at a reduced size by WebCodecs' ImageDecoder (libjpeg's
// scaled decoding: a 12-MP photo at 2000 px in a third of the time of a full decode), drawn upright as the browser
// shows it (EXIF orientation) and sent as a JPEG a fraction of the size: faster over the LAN, less for the server
// to decode. Other files, and every browser without ImageDecoder (Safari), send the photo as chosen.
async function uploadable(file) {
  const original = {blob: file, name: file.name || "photo.jpg"};
  if (!("ImageDecoder" in window) || file.type !== "image/jpeg" || file.size < SCALE_FROM_BYTES) return original;
  try {
    const decoder = new ImageDecoder({data: await file.arrayBuffer(), type: file.type,
                                      desiredWidth: UPLOAD_MAX_SIDE, desiredHeight: UPLOAD_MAX_SIDE});
    const {image} = await decoder.decode();
    const canvas = new OffscreenCanvas(image.displayWidth, image.displayHeight);
    canvas.getContext("2d").drawImage(image, 0, 0); // drawn turned as the EXIF orientation says
    image.close();
    decoder.close();
    const blob = await canvas.convertToBlob({type: "image/jpeg", quality: 0.92});
    return {blob, name: original.name.replace(/\.[^.]*$/, "") + ".jpg"};
  } catch {
    return original; // the server reads it, or says what is wrong with it
  }
}

async function photoChosen(file) {
  const started = performance.now();
  const number = ++state.photoNumber;
  const latest = () => number === state.photoNumber;
  if (state.photoUpload) state.photoUpload.abort();
  const upload = new AbortController();
  state.photoUpload = upload;
  clearProposal();
  resetContext(); // a new hand: nothing of the last one's context carries over
  $("photo-status").textContent = "Reading the tiles…";
  $("photo-status").classList.remove("error");
  const img = $("photo-img");
  let reply, sent;
  try {
    sent = await uploadable(file);
    if (!latest()) return;
    const form = new FormData();
    form.append("photo", sent.blob, sent.name);
    form.append("rules", rules());
    reply = await api("/api/photo", {method: "POST", body: form, signal: upload.signal});
    if (!latest()) return;
    // Decoded for display only once the server has answered: where the browser and the server share a machine
    // (a laptop at the table, or a small box), decoding meanwhile would take CPU from the reading.
    if (img.src) URL.revokeObjectURL(img.src);
    img.src = URL.createObjectURL(sent.blob);
    await img.decode().catch(() => null);
  } catch (error) {
    if (!latest()) return; // cancelled, or superseded: the later photo's reading says what is what
    $("photo-view").hidden = true;
    $("photo-status").textContent = error.message;
    $("photo-status").classList.add("error");
    return;
  }
  if (!latest()) return;
  state.file = sent; // what the proposal's pixels refer to, so also what --save-labels keeps
  state.proposal = reply.body.proposal;
  state.waits = reply.body.waits_to_add || [];
  state.photoFlowers = state.proposal.flowers.slice();
  drawProposal();
  await nextFrame();
  window.fanscanTimings.push({what: "photo", ms: performance.now() - started, server_ms: reply.serverMs,
    server_cpu_ms: reply.serverCpuMs, server_upload_ms: reply.serverUploadMs, pipeline_ms: state.proposal.timings_ms});
}

// What the page shows of the last photo goes as soon as another is chosen: nothing of it can be tapped meanwhile.
function clearProposal() {
  state.proposal = null;
  state.file = null;
  state.fixes = {};
  state.winning = null;
  state.photoKept = false;
  state.photoLearned = false;
  state.waits = [];
  state.addedTile = null;
  for (const id of ["photo-view", "legend", "to-context", "take-suggestion", "waits"]) $(id).hidden = true;
  for (const id of ["tile-strip", "reading", "warnings", "wait-tiles"]) $(id).replaceChildren();
}

// The proposal's warnings are the terminal's too, and some name a terminal command ('fix 8 none'): on the page
// each becomes the tap that does the same.
const PAGE_ACTIONS = [
  [/check it \('fix [^']*'\)/g, "check it (the button “Use the rules' suggestion” below takes it)"],
  [/'fix N hand' takes one back/g, "tap one and choose “Back in the hand” to take it back"],
  [/'fix N table' sets one aside/g, "tap one and choose “Not in the hand” to set it aside"],
  [/'fix (\d+) [^']*'/g, "tap tile $1 to fix it"],
  [/'fix [^']*'/g, "tap a tile to fix it"],
];

function pageWarning(text) {
  return PAGE_ACTIONS.reduce((words, [command, tap]) => words.replace(command, tap), text);
}

function roleClass(tile) {
  const doubtful = tile.confidence < LOW_CONFIDENCE && !["dropped", "unused"].includes(tile.role);
  return `tile-outline ${tile.role}${doubtful ? " doubtful" : ""}${tile.number in state.fixes ? " fixed" : ""}`;
}

function drawProposal() {
  const proposal = state.proposal;
  const [width, height] = proposal.image_size;
  const overlay = $("overlay");
  overlay.setAttribute("viewBox", `0 0 ${width} ${height}`);
  overlay.replaceChildren();
  const ns = "http://www.w3.org/2000/svg";
  const heights = proposal.tiles.map((t) => t.box[3] - t.box[1]).sort((a, b) => a - b);
  const label = Math.max(12, (heights[Math.floor(heights.length / 2)] || height / 10) * 0.32);
  for (const tile of proposal.tiles) {
    // numbers alternate above and below the tiles: neighbours in a row are too close for two digits side by side
    const below = tile.number % 2 === 0;
    const group = document.createElementNS(ns, "g");
    group.setAttribute("class", roleClass(tile));
    group.dataset.number = tile.number;
    const polygon = document.createElementNS(ns, "polygon");
    polygon.setAttribute("points", tile.quad.map((p) => p.join(",")).join(" "));
    polygon.setAttribute("stroke-width", String(label / 6));
    const text = document.createElementNS(ns, "text");
    text.setAttribute("x", String((tile.box[0] + tile.box[2]) / 2));
    text.setAttribute("y", String(below ? tile.box[3] + label * 0.95 : tile.box[1] - label * 0.2));
    text.setAttribute("font-size", String(label));
    text.setAttribute("text-anchor", "middle");
    text.textContent = tile.number;
    group.append(polygon, text);
    group.addEventListener("click", () => openPalette(tile.number));
    overlay.appendChild(group);
  }
  $("photo-view").hidden = false;
  $("legend").hidden = false;

  const strip = $("tile-strip");
  strip.replaceChildren();
  for (const tile of proposal.tiles) {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = roleClass(tile).replace("tile-outline", "strip-tile");
    button.dataset.number = tile.number;
    const what = tile.role === "dropped" ? "not a tile" : tileName(tile.tile);
    const sure = Math.round(tile.confidence * 100);
    const fixed = tile.number in state.fixes ? ", fixed by you" : "";
    button.setAttribute("aria-label", `tile ${tile.number}: ${what}, ${tile.role}, ${sure}% sure${fixed}`);
    button.title = `${what} (${sure}%)`;
    const number = document.createElement("span");
    number.className = "number";
    number.textContent = tile.number;
    button.append(number, faceElement(tile.role === "dropped" ? "none" : tile.tile, what));
    button.addEventListener("click", () => openPalette(tile.number));
    item.appendChild(button);
    strip.appendChild(item);
  }
  const complete = proposal.status === "complete";
  const statusWords = {
    complete: "a complete hand", ready: "13 tiles: no winning tile yet", incomplete: "not a complete hand",
    invalid: "not a valid hand", empty: "no tiles found",
  };
  $("reading").replaceChildren(`${proposal.tiles.length} tiles: `, handText(proposal.hand.trim() || "—"),
    ` (${statusWords[proposal.status] || proposal.status})`);
  $("warnings").replaceChildren(...proposal.warnings.map((w) => {
    const li = document.createElement("li");
    li.textContent = pageWarning(w);
    return li;
  }));
  const waiting = proposal.status === "ready" && state.waits.length > 0;
  $("photo-status").textContent = complete
    ? "Check the tiles; tap one to fix it or to make it the winning tile."
    : waiting ? "A ready hand, one tile short: the tile that completed it is not in the photo. "
        + "Tap it below to add it. (Tapping a tile in the photo still changes its reading.)"
      : "Not a complete hand yet: tap a wrong tile to fix it, or type the hand.";
  drawWaits(waiting);
  $("to-context").hidden = !complete;
  $("hand-input").value = proposal.hand;
  const suggestion = proposal.rules_suggestion;
  $("take-suggestion").hidden = !suggestion;
  if (suggestion) {
    const changes = suggestion.changes.map(([number, , tile]) => `tile ${number} as ${tileName(tile)}`).join(", ");
    $("take-suggestion").textContent = `Use the rules' suggestion: ${changes}`;
  }
}

// A 13-tile reading's waits, each a button that adds that tile as the winning tile.
function drawWaits(waiting) {
  $("waits").hidden = !waiting;
  const holder = $("wait-tiles");
  holder.replaceChildren();
  if (!waiting) return;
  const names = state.waits.map((w) => tileName(w.tile));
  $("waits-title").textContent = `Waiting on ${names.join(" or ")}: tap the tile that completed the hand.`;
  for (const wait of state.waits) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "wait-tile";
    button.dataset.tile = wait.tile;
    button.setAttribute("aria-label", `add ${tileName(wait.tile)} as the winning tile`);
    const label = document.createElement("span");
    label.textContent = wait.tile;
    button.append(faceElement(wait.tile, tileName(wait.tile)), label);
    button.addEventListener("click", () => toContext(wait.hand, true, wait.tile));
    holder.appendChild(button);
  }
}

function takeSuggestion() {
  revise({fixes: state.proposal.rules_suggestion_fixes});  // the server's own fixes (HandProposal.suggestion_fixes)
}

function openPalette(number) {
  const tile = state.proposal.tiles[number - 1];
  state.paletteTile = number;
  const reading = tile.role === "dropped" ? "none" : tile.tile;
  const [runnerUp, runnerUpP] = tile.alternatives[0] || [null, 0];
  const sure = number in state.fixes ? "fixed by you" : `${Math.round(tile.confidence * 100)}%`;
  const second = runnerUp ? `; runner-up ${tileName(runnerUp)} (${Math.round(runnerUpP * 100)}%)` : "";
  $("palette-title").textContent = `Tile ${number} — read as ${tileName(reading)} (${sure})${second}. What is it?`;
  for (const button of $("palette").querySelectorAll("button[data-tile]")) {
    const id = button.dataset.tile;
    button.classList.toggle("current", id === reading);
    button.classList.toggle("runner-up", id === runnerUp && id !== reading);
    const label = button.dataset.label || button.getAttribute("aria-label") || button.textContent;
    button.dataset.label = label;
    button.setAttribute("aria-label", label + (id === reading ? ", the current reading"
      : id === runnerUp ? ", the runner-up" : ""));
  }
  $("set-aside").hidden = tile.role === "table";
  $("take-back").hidden = tile.role !== "table";
  $("make-winning").hidden = !["standing", "winning"].includes(tile.role) || state.proposal.status !== "complete";
  $("palette").showModal();
  const current = $("palette-faces").querySelector(`[data-tile="${CSS.escape(tile.tile)}"]`);
  (current || $("palette-faces").querySelector("button")).focus();
}

async function revise(change) {
  const started = performance.now();
  const photo = state.photoNumber;
  const fixes = {...state.fixes, ...(change.fixes || {})};
  const winning = "winning" in change ? change.winning : state.winning;
  try {
    const reply = await postJSON("/api/revise", {proposal: state.proposal, fixes, winning});
    if (photo !== state.photoNumber) return; // another photo was chosen meanwhile
    state.proposal = reply.body.proposal;
    state.waits = reply.body.waits_to_add || [];
    state.fixes = fixes;
    state.winning = winning;
    drawProposal();
    await nextFrame();
    window.fanscanTimings.push({what: "fix", ms: performance.now() - started, server_ms: reply.serverMs,
      server_cpu_ms: reply.serverCpuMs});
  } catch (error) {
    if (photo !== state.photoNumber) return;
    $("photo-status").textContent = error.message;
    $("photo-status").classList.add("error");
  }
}

function buildPalette() {
  const faces = $("palette-faces");
  for (const tile of state.config.tiles) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.tile = tile.id;
    button.setAttribute("aria-label", `${tile.id}: ${tile.en} ${tile.zh}`);
    button.title = `${tile.en} ${tile.zh}`;
    button.appendChild(faceElement(tile.id, tile.en));
    faces.appendChild(button);
  }
  $("palette").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-tile]");
    if (!button) return;
    const number = state.paletteTile;
    $("palette").close();
    // A tile fixed to something else can no longer be the chosen winning tile; the reading chooses again.
    const change = {fixes: {[number]: button.dataset.tile}};
    if (state.winning === number) change.winning = null;
    revise(change);
  });
  $("make-winning").addEventListener("click", () => {
    $("palette").close();
    revise({winning: state.paletteTile});
  });
  $("palette-cancel").addEventListener("click", () => $("palette").close());
}

function buildKeyboard() {
  const keyboard = $("keyboard");
  const input = $("hand-input");
  const keys = state.config.tiles.filter((t) => !"abcdefgh".includes(t.id)).map((t) => t.id);
  const add = (text) => {
    input.value += text;
    input.dispatchEvent(new Event("input"));
  };
  for (const id of keys) {
    const button = document.createElement("button");
    button.type = "button";
    button.setAttribute("aria-label", `add ${id}`);
    button.appendChild(faceElement(id, id));
    button.addEventListener("click", () => add(id));
    keyboard.appendChild(button);
  }
  for (const [text, label] of [["[", "["], ["]", "]"], [",1", ",1"], [",2", ",2"], [",3", ",3"]]) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "key-text";
    button.textContent = label;
    button.addEventListener("click", () => add(text));
    keyboard.appendChild(button);
  }
  const back = document.createElement("button");
  back.type = "button";
  back.className = "key-text";
  back.textContent = "⌫";
  back.setAttribute("aria-label", "delete the last character");
  back.addEventListener("click", () => {
    input.value = input.value.slice(0, -1);
  });
  keyboard.appendChild(back);
}

// ---- 2. win context ---------------------------------------------------------------------------------------------

// `added`: the winning tile when the user added it from the waits (it is not in the photo).
function toContext(hand, fromPhoto, added = null) {
  state.hand = hand;
  state.handFromPhoto = fromPhoto;
  state.handHasContext = hand.includes("|");
  state.addedTile = added;
  const row = $("context-hand");
  row.replaceChildren();
  const tiles = handTiles(hand); // the winning tile is written last
  tiles.forEach((id, index) => {
    const tile = document.createElement("span");
    tile.className = "context-tile";
    tile.dataset.tile = id;
    tile.appendChild(faceElement(id, tileName(id)));
    if (index === tiles.length - 1 && tiles.length >= 14) {
      tile.classList.add("winning");
      tile.setAttribute("aria-label", `winning tile: ${tileName(id)}`);
      const caption = document.createElement("span");
      caption.className = "caption";
      caption.textContent = "winning";
      tile.appendChild(caption);
    }
    row.appendChild(tile);
  });
  $("context-note").textContent = added
    ? `${tileName(added)} added as the winning tile: it is not in the photo.` : "";
  for (const box of document.querySelectorAll("#flower-choices input")) {
    box.checked = state.photoFlowers.includes(box.value);
  }
  $("context-error").textContent = state.handHasContext
    ? "The typed hand gives its own win context (after |): Score uses it." : "";
  show("screen-context");
}

// Every context choice back to its default (discard, seat and round wind East, nothing else): a new photo is a new
// hand, and a context carried over unseen would score it wrong.
function resetContext() {
  for (const input of $("screen-context").querySelectorAll("input")) input.checked = input.defaultChecked;
  $("context-error").textContent = "";
}

function buildFlowerChoices() {
  const holder = $("flower-choices");
  for (const tile of state.config.tiles.filter((t) => "abcdefgh".includes(t.id))) {
    const label = document.createElement("label");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.name = "flowers";
    box.value = tile.id;
    const face = document.createElement("span");
    face.appendChild(faceElement(tile.id, `${tile.en} ${tile.zh}`));
    label.append(box, face);
    holder.appendChild(label);
  }
}

function contextFields() {
  const form = $("screen-context");
  const checked = (name) => form.querySelector(`input[name="${name}"]`).checked;
  const value = (name) => form.querySelector(`input[name="${name}"]:checked`).value;
  const fields = {
    self_drawn: value("how") === "self_drawn", discard: value("how") === "discard",
    seat_wind: value("seat_wind"), prevalent_wind: value("prevalent_wind"),
    last_of_kind: checked("last_of_kind"), last_tile: checked("last_tile"),
    kong_replacement: checked("kong_replacement"), robbing_kong: checked("robbing_kong"),
    flowers: [...form.querySelectorAll('input[name="flowers"]:checked')].map((b) => b.value).join("") || "0",
  };
  if (rules() === "hk") {
    Object.assign(fields, {flower_replacement: checked("flower_replacement"), kong_on_kong: checked("kong_on_kong"),
      first_tile: checked("first_tile")});
  }
  return fields;
}

async function scoreHand() {
  const request = state.handHasContext ? {hand: state.hand, rules: rules()}
    : {hand: state.hand, rules: rules(), ...contextFields()};
  try {
    const reply = await postJSON("/api/score", request);
    $("context-error").textContent = "";
    drawScore(reply.body);
    show("screen-score");
    if (state.config.save_labels && state.handFromPhoto && !state.photoKept) await keepPhoto();
    if (state.config.learn && state.handFromPhoto && !state.photoLearned) await learnPhoto();
  } catch (error) {
    $("context-error").textContent = error.message; // impossible combinations: the engine's own words
  }
}

// The photo and its confirmed reading (after every fix) as training data: only a server started with --save-labels
// keeps them, and it keeps nothing between requests, so the photo goes again with the reading.
async function keepPhoto() {
  const note = $("kept-note");
  note.classList.remove("error");
  const form = new FormData();
  form.append("photo", state.file.blob, state.file.name);
  form.append("proposal", JSON.stringify(state.proposal));
  try {
    const reply = await api("/api/save-labels", {method: "POST", body: form});
    state.photoKept = true;
    note.textContent = `Photo and ${reply.body.labels} tile labels kept for training: ${reply.body.image}`;
  } catch (error) {
    note.textContent = `The photo was not kept: ${error.message}`;
    note.classList.add("error");
  }
}

// Learning as you play (a server started with --learn): the confirmed reading, fixes and all, teaches the profile.
async function learnPhoto() {
  const note = $("learned-note");
  note.classList.remove("error");
  const form = new FormData();
  form.append("photo", state.file.blob, state.file.name);
  form.append("proposal", JSON.stringify(state.proposal));
  try {
    const reply = await api("/api/learn", {method: "POST", body: form});
    state.photoLearned = true;
    const fixed = reply.body.fixed ? `, ${reply.body.fixed} of them fixed` : "";
    note.textContent = `Learned ${reply.body.tiles} tiles from this photo${fixed}; your set profile is being updated`;
  } catch (error) {
    note.textContent = `Not learned: ${error.message}`;
    note.classList.add("error");
  }
}

// ---- 3. score -----------------------------------------------------------------------------------------------------

function drawScore(result) {
  const flowers = result.total_uncapped - result.total_without_flowers;
  let total = `${result.total} fan`;
  if (flowers) total += ` (${result.total_without_flowers} + ${flowers} for flowers)`;
  if (result.cap !== null && result.total_uncapped !== result.total) {
    total += `, capped at ${result.cap} (uncapped ${result.total_uncapped})`;
  }
  $("score-total").textContent = total;
  $("score-won").textContent = wonBy(result);
  const minimum = $("score-minimum");
  minimum.className = "minimum" + (result.meets_minimum ? "" : " error");
  minimum.textContent = result.minimum === null ? "" : result.meets_minimum
    ? `meets the ${result.minimum}-fan minimum`
    : `BELOW the ${result.minimum}-fan minimum (flowers do not count): not a valid win`;
  const body = $("fans").tBodies[0];
  body.replaceChildren();
  for (const fan of [...result.fans].sort((a, b) => b.points - a.points)) {
    const row = body.insertRow();
    row.insertCell().textContent = fan.points;
    const name = row.insertCell();
    const en = document.createElement("span");
    en.className = "fan-en";
    en.textContent = fan.name + (fan.count > 1 ? ` ×${fan.count}` : "") + (fan.count > 1 ? ` (${fan.value} each)` : "");
    const zh = document.createElement("span");
    zh.className = "fan-zh";
    zh.lang = "zh";
    zh.textContent = fan.name_zh;
    name.append(en, zh);
    const tiles = row.insertCell();
    tiles.className = "fan-tiles";
    for (const group of fan.tiles) {
      const span = document.createElement("span");
      span.className = "face-group";
      for (const id of group) span.appendChild(faceElement(id, tileName(id)));
      tiles.appendChild(span);
    }
  }
  const excluded = $("excluded");
  excluded.replaceChildren();
  if (result.excluded.length) {
    const words = state.config.rule_sets[result.rules] || {dropped_heading: "not counted", dropped_by: "implied by"};
    const heading = document.createElement("h3");
    heading.textContent = words.dropped_heading;
    const list = document.createElement("ul");
    for (const e of result.excluded) {
      const li = document.createElement("li");
      li.textContent = `${e.name} ${e.name_zh} (${e.value * e.count}) — ${words.dropped_by} ${e.implied_by_name}`;
      list.appendChild(li);
    }
    excluded.append(heading, list);
  }
  const s = result.settlement;
  $("settlement").textContent = !s ? "" : s.self_drawn
    ? `Settlement, self-drawn: each opponent pays 8 + ${result.total} = ${s.payments.each_opponent}; `
      + `the winner receives ${s.winner_receives}.`
    : `Settlement: the discarder pays 8 + ${result.total} = ${s.payments.discarder}, the other two pay 8 each; `
      + `the winner receives ${s.winner_receives}.`;
  $("score-hand").replaceChildren(handText(result.hand), ` (rules: ${result.rules})`);
}

const WIND_NAMES = {E: "East", S: "South", W: "West", N: "North"};
// The context items the line names after the winds, as the context screen words them.
const WON_ON = [
  ["last_tile", "the last tile of the wall"], ["last_of_kind", "the last of its kind"],
  ["kong_replacement", "the replacement tile after a kong"], ["flower_replacement", "the replacement after a flower"],
  ["kong_on_kong", "kong on kong"], ["first_tile", "the first tile (Heaven / Earth)"],
];

/** "Won by self-draw on 5p (5 Dots 五筒), seat East, round wind East": what the score was computed for. */
function wonBy(result) {
  const context = result.context;
  const tile = handTiles(result.hand).at(-1);
  const how = context.robbing_kong ? "robbing a kong" : context.self_drawn ? "self-draw" : "a discard";
  const also = WON_ON.filter(([field]) => context[field]).map(([, words]) => words);
  return `Won by ${how} on ${tile} (${tileName(tile)}), seat ${WIND_NAMES[context.seat_wind]}, round wind ${
    WIND_NAMES[context.prevalent_wind]}${also.length ? `; ${also.join(", ")}` : ""}${
    state.addedTile && state.handFromPhoto && tile === state.addedTile ? " (added: not in the photo)" : ""}`;
}

// ---- wiring ---------------------------------------------------------------------------------------------------------

function showRuleItems() {
  for (const item of document.querySelectorAll(".hk-only")) {
    item.hidden = rules() !== "hk";
    if (item.hidden) item.querySelector("input").checked = false;
  }
}

async function start() {
  state.config = (await api("/api/config")).body;
  $("rules").value = state.config.rules;
  if (state.config.profile) {
    $("profile-note").textContent = `Calibrated to your tile set “${state.config.profile}”`;
    $("profile-note").hidden = false;
  }
  buildPalette();
  buildKeyboard();
  buildFlowerChoices();
  showRuleItems();
  $("rules").addEventListener("change", showRuleItems);
  $("photo-input").addEventListener("change", (event) => {
    const file = event.target.files[0];
    if (file) photoChosen(file);
  });
  $("take-suggestion").addEventListener("click", takeSuggestion);
  $("to-context").addEventListener("click", () => toContext(state.proposal.hand, true));
  $("use-typed").addEventListener("click", () => {
    const hand = $("hand-input").value.trim();
    if (hand) toContext(hand, false);
  });
  $("score-button").addEventListener("click", scoreHand);
  $("back-to-photo").addEventListener("click", () => show("screen-photo"));
  $("back-to-context").addEventListener("click", () => show("screen-context"));
  $("new-photo").addEventListener("click", () => {
    show("screen-photo");
    $("photo-input").value = "";
    $("photo-input").click();
  });
  document.body.dataset.ready = "yes";
}

start().catch((error) => {
  $("photo-status").textContent = `The page could not start: ${error.message}`;
});
