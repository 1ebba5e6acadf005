"""`fanscan rules`: list a rule set's items - the rule document's number, the code id, names, value, and the items
each one replaces - so that the mapping from the seed's numbering to the code is visible."""

from __future__ import annotations

import argparse
import json
import textwrap
from typing import Any

from fanscan import scoring
from fanscan.columns import pad, width
from fanscan.commands.score import add_variant_argument
from fanscan.scoring.engine import Fan, RuleSet
from fanscan.usage_errors import one_line_errors

# The table fits this many columns: a long name or a long list of the items replaced goes on to the next lines.
RULES_COLUMNS = 100
NAME_COLUMN_MAX = 32


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "rules", help="list the items (fans) of a rule set with their numbers and values",
        description="List each rule set's items: the rule document's number, the id used in the JSON output, "
                    "English and Chinese names, value, and the items it replaces (not counted when it scores).")
    p.add_argument("--rules", choices=rule_set_names(), action="append", type=str.lower,
                   help="rule set to list (repeatable; default: all, MCR first)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    add_variant_argument(p)
    p.add_argument("-v", "--verbose", action="store_true", help="print each item's definition under it")
    one_line_errors(p)
    p.set_defaults(run=run)


def rule_set_names() -> list[str]:
    """The rule sets, MCR (the default everywhere) first, then the others by name."""
    return sorted(scoring.RULE_SETS, key=lambda name: (name != "mcr", name))


def _number_key(fan: Fan, position: int) -> tuple:
    """Sort by the rule document's number read as dotted integers (1.1.10 after 1.1.9), then table position."""
    parts = fan.number.split(".") if fan.number else []
    if parts and all(p.isdigit() for p in parts):
        return (0, tuple(int(p) for p in parts), position)
    return (1, (), position)


def ordered_fans(rules: RuleSet) -> list[Fan]:
    return [f for _, f in sorted(((_number_key(f, k), f) for k, f in enumerate(rules.fans)), key=lambda x: x[0])]


def _value_text(rules: RuleSet, fan: Fan) -> str:
    if rules.cap is not None and fan.value >= rules.cap:
        return f"Limit ({fan.value})"
    return str(fan.value)


def rules_dict(rules: RuleSet) -> dict[str, Any]:
    return {
        "rules": rules.name,
        "variant": rules.variant,
        "title": rules.title,
        "minimum": rules.minimum,
        "cap": rules.cap,
        "items": [
            {"number": f.number, "id": f.id, "name": f.name, "name_zh": f.name_zh, "value": f.value,
             "limit": rules.cap is not None and f.value >= rules.cap, "replaces": list(f.implies),
             "description": f.description}
            for f in ordered_fans(rules)
        ],
    }


def render(rules: RuleSet, verbose: bool = False) -> str:
    fans = ordered_fans(rules)
    head = f"{rules.name}{f' (variant {rules.variant})' if rules.variant else ''}: {rules.title}"
    notes = []
    if rules.minimum is not None:
        notes.append(f"minimum {rules.minimum} fan")
    if rules.cap is not None:
        notes.append(f"total capped at {rules.cap} (Limit)")
    lines = [head + (f" - {', '.join(notes)}" if notes else ""), ""]
    num_w = max(len(f.number) for f in fans)
    id_w = max(len(f.id) for f in fans)
    name_w = min(NAME_COLUMN_MAX, max(len(f.name) for f in fans))
    val_w = max(len(_value_text(rules, f)) for f in fans)
    zh_w = max(width(f.name_zh) for f in fans)
    name_at = " " * (2 + num_w + 2 + id_w + 2)  # continuation lines start under the name
    for f in fans:
        names = textwrap.wrap(f.name, name_w) or [""]
        row = (f"  {f.number.ljust(num_w)}  {f.id.ljust(id_w)}  {names[0].ljust(name_w)}  "
               f"{_value_text(rules, f).rjust(val_w)}  {pad(f.name_zh, zh_w)}").rstrip()
        replaces = f"{rules.drops} {', '.join(f.implies)}" if f.implies else ""
        if replaces and width(row) + 2 + len(replaces) <= RULES_COLUMNS:
            row, replaces = f"{row}  {replaces}", ""
        lines.append(row)
        lines.extend(name_at + n for n in names[1:])
        if replaces:
            lines.extend(textwrap.wrap(replaces, RULES_COLUMNS, initial_indent=name_at + "  ",
                                       subsequent_indent=name_at + "    ", break_on_hyphens=False))
        if verbose and f.description:
            lines.extend(textwrap.wrap(f.description, RULES_COLUMNS, initial_indent=f"  {' ' * num_w}  ",
                                       subsequent_indent=f"  {' ' * num_w}  "))
    lines.append(f"  ({len(fans)} items)")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    names = args.rules or rule_set_names()
    # --variant applies to the rule sets that have variants (MCR); the others are listed as they are
    sets = [scoring.get_rule_set(n, args.variant if scoring.get_rule_set(n).variants else None) for n in names]
    if args.json:
        print(json.dumps([rules_dict(r) for r in sets], ensure_ascii=False, indent=2))
    else:
        print("\n\n".join(render(r, args.verbose) for r in sets))
    return 0
