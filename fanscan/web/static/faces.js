// Tile faces: one public-domain SVG sprite (tiles.svg, Wikimedia Commons / Shizhao), one symbol per tile id.
"use strict";
const FACE_SYMBOL = (() => {
  const map = {};
  for (let n = 1; n <= 9; n++) {
    map[n + "m"] = "t_ch" + n;
    map[n + "p"] = "t_do" + n;
    map[n + "s"] = "t_ba" + n;
  }
  Object.assign(map, {
    E: "t_wi_east", S: "t_wi_south", W: "t_wi_west", N: "t_wi_north",
    C: "t_dr_red", F: "t_dr_green", P: "t_dr_white",
    a: "t_fl_plum", b: "t_fl_orchid", c: "t_fl_bamboo", d: "t_fl_chrysanthemum",
    e: "t_se_spring", f: "t_se_summer", g: "t_se_fall", h: "t_se_winter",
  });
  return map;
})();

/** An <svg> element showing the face of tile `id` (a blank tile for `back`, `none` or an unknown id). */
function faceElement(id, title) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 75 96");
  svg.setAttribute("class", "face");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", title || id);
  const symbol = FACE_SYMBOL[id];
  if (symbol) {
    const use = document.createElementNS(ns, "use");
    use.setAttribute("href", "/static/tiles.svg#" + symbol);
    use.setAttribute("width", "75");
    use.setAttribute("height", "96");
    svg.appendChild(use);
  } else {
    const text = document.createElementNS(ns, "text");
    text.setAttribute("x", "37.5");
    text.setAttribute("y", "58");
    text.setAttribute("text-anchor", "middle");
    text.setAttribute("class", "face-text");
    text.textContent = id === "none" ? "✕" : id === "back" ? "▒" : id;
    svg.appendChild(text);
  }
  return svg;
}
