// Hand strings (GB notation) on the pages: shown so that a line breaks only between melds and suit groups, never
// inside one (a monospace "123m" cut after "12" reads as another hand), and read back as tile ids.
"use strict";

// One unbreakable group each: a meld in brackets, a run of one suit's digits with its letter, a run of honours,
// one `|` part (win context, flowers); anything else stands alone.
const HAND_GROUP = /\[[^\]]*\]|\d+[mps]|[ESWNCFP]+|\|[^|\s]*|\s+|./g;

/** A <span> showing `hand`: one nowrap .hand-group per group, a break opportunity (<wbr>) between groups. */
function handText(hand) {
  const holder = document.createElement("span");
  holder.className = "hand-text";
  for (const part of hand.match(HAND_GROUP) || []) {
    if (/^\s+$/.test(part)) {
      holder.append(" ");
      continue;
    }
    const group = document.createElement("span");
    group.className = "hand-group";
    group.textContent = part;
    holder.append(group, document.createElement("wbr"));
  }
  return holder;
}

/** The tile ids of a hand string in written order (melds first as written; the winning tile, if any, last). */
function handTiles(hand) {
  const ids = [];
  for (const part of hand.split("|")[0].match(/\d+[mps]|[ESWNCFP]/g) || []) {
    const suit = part.slice(-1);
    if (/[mps]/.test(suit)) ids.push(...[...part.slice(0, -1)].map((digit) => digit + suit));
    else ids.push(part);
  }
  return ids;
}
