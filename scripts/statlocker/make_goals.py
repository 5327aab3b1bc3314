#!/usr/bin/env python3
"""Writes StatLocker's goals library, Sources/Plugins/StatLocker/Resources/goals.json.

The library is generated from the compact Varsity table below and the level rule, so that every
(gender, position, level) gets the same goals with targets scaled the same documented way.
Docs/plugins/statlocker.md explains both; StatLockerTests re-check the output against the rule.

    python3 scripts/statlocker/make_goals.py           # rewrite the JSON
    python3 scripts/statlocker/make_goals.py --check   # exit 1 if the JSON is out of date

Varsity is the anchor (the seed's six boys' Goalie/Varsity goals). JV and Freshman targets:

    count  (season total, at least): Varsity x 0.8 (JV), x 0.6 (Freshman); whole numbers,
           to the nearest 5 when the Varsity target is 50 or more; never below 1.
    rate   (per-game average, at least): Varsity x 0.8 / x 0.6, to the nearest 0.5; never below 0.5.
    max    (per-game average, at most): Varsity x 1.25 / x 1.5, to the nearest 0.5.
    percent (a ratio, at least): Varsity minus 5 points (JV), minus 10 points (Freshman).

Halves round up. Percent targets are stored as fractions (60% is 0.6), as in the seed.
"""

import json
import math
import sys
from pathlib import Path

OUTPUT = Path(__file__).resolve().parents[2] / "Sources/Plugins/StatLocker/Resources/goals.json"

SPORT = "lacrosse"
LEVELS = [("Freshman", "fr"), ("JV", "jv"), ("Varsity", "var")]
GENDER_PREFIX = {"boys": "", "girls": "g-"}  # boys keep the seed's `gk-var-savepct-60` ids

# One row per Varsity goal: (id slug, tracking key, metric type, Varsity target, noun, count unit).
# Targets of percent goals are in points (60 = 60%). The noun makes the title (see title());
# count goals name their unit, rate and max goals use "<noun> per game", percent goals "%".
TABLE = {
    "boys": {
        "Goalie": ("gk", [
            ("savepct", "save_pct", "percent", 60, "save percentage", None),
            ("saves", "saves", "count", 200, "saves", "saves"),
            ("savespg", "saves", "rate", 12.0, "saves", None),
            ("ga", "goals_against", "max", 8.0, "goals against", None),
            ("clearpct", "clears", "percent", 90, "clear success", None),
            ("assists", "assists", "count", 2, "goalie assists", "assists"),
        ]),
        "Attack": ("att", [
            ("goals", "goals", "count", 40, "goals", "goals"),
            ("assists", "assists", "count", 25, "assists", "assists"),
            ("shotpct", "shooting_pct", "percent", 40, "shooting percentage", None),
            ("shotspg", "shots", "rate", 6.0, "shots", None),
            ("gb", "ground_balls", "count", 30, "ground balls", "ground balls"),
            ("topg", "turnovers", "max", 2.0, "turnovers", None),
        ]),
        "Midfield": ("mid", [
            ("goals", "goals", "count", 25, "goals", "goals"),
            ("assists", "assists", "count", 15, "assists", "assists"),
            ("gb", "ground_balls", "count", 50, "ground balls", "ground balls"),
            ("clearpct", "clears", "percent", 85, "clear success", None),
            ("fopct", "faceoffs", "percent", 50, "faceoffs won", None),
            ("ct", "caused_turnovers", "count", 15, "caused turnovers", "caused turnovers"),
        ]),
        "Defense": ("def", [
            ("gb", "ground_balls", "count", 45, "ground balls", "ground balls"),
            ("gbpg", "ground_balls", "rate", 3.0, "ground balls", None),
            ("ct", "caused_turnovers", "count", 20, "caused turnovers", "caused turnovers"),
            ("ctpg", "caused_turnovers", "rate", 1.5, "caused turnovers", None),
            ("clearpct", "clears", "percent", 85, "clear success", None),
            ("pen", "penalties", "max", 0.5, "penalties", None),
        ]),
        "FOGO": ("fogo", [
            ("fopct", "faceoff_win_pct", "percent", 60, "faceoff win percentage", None),
            ("fow", "fo_wins", "count", 150, "faceoff wins", "faceoff wins"),
            ("fowpg", "fo_wins", "rate", 10.0, "faceoff wins", None),
            ("gb", "ground_balls", "count", 80, "ground balls", "ground balls"),
            ("viol", "violations", "max", 1.0, "violations", None),
            ("tp", "transition_points", "count", 10, "transition points", "transition points"),
        ]),
        "LSM": ("lsm", [
            ("gb", "ground_balls", "count", 60, "ground balls", "ground balls"),
            ("gbpg", "ground_balls", "rate", 4.0, "ground balls", None),
            ("ct", "caused_turnovers", "count", 25, "caused turnovers", "caused turnovers"),
            ("clearpct", "clears", "percent", 85, "clear success", None),
            ("pen", "penalties", "max", 0.5, "penalties", None),
            ("tp", "transition_points", "count", 8, "transition points", "transition points"),
        ]),
    },
    "girls": {
        "Goalie": ("gk", [
            ("savepct", "save_pct", "percent", 50, "save percentage", None),
            ("saves", "saves", "count", 150, "saves", "saves"),
            ("savespg", "saves", "rate", 10.0, "saves", None),
            ("ga", "goals_against", "max", 9.0, "goals against", None),
            ("clearpct", "clears", "percent", 85, "clear success", None),
            ("clears", "clears", "count", 80, "clears", "clears"),
        ]),
        "Attack": ("att", [
            ("goals", "goals", "count", 50, "goals", "goals"),
            ("assists", "assists", "count", 25, "assists", "assists"),
            ("shotpct", "shooting_pct", "percent", 45, "shooting percentage", None),
            ("shotspg", "shots", "rate", 6.0, "shots", None),
            ("gb", "ground_balls", "count", 20, "ground balls", "ground balls"),
            ("dc", "draw_controls", "count", 15, "draw controls", "draw controls"),
        ]),
        "Midfield": ("mid", [
            ("goals", "goals", "count", 35, "goals", "goals"),
            ("assists", "assists", "count", 15, "assists", "assists"),
            ("gb", "ground_balls", "count", 35, "ground balls", "ground balls"),
            ("dc", "draw_controls", "count", 60, "draw controls", "draw controls"),
            ("dcpg", "draw_controls", "rate", 4.0, "draw controls", None),
            ("ct", "caused_turnovers", "count", 20, "caused turnovers", "caused turnovers"),
        ]),
        "Defense": ("def", [
            ("gb", "ground_balls", "count", 35, "ground balls", "ground balls"),
            ("gbpg", "ground_balls", "rate", 2.5, "ground balls", None),
            ("ct", "caused_turnovers", "count", 25, "caused turnovers", "caused turnovers"),
            ("ctpg", "caused_turnovers", "rate", 1.5, "caused turnovers", None),
            ("clearpct", "clears", "percent", 85, "clear success", None),
            ("dc", "draw_controls", "count", 20, "draw controls", "draw controls"),
        ]),
    },
}

FACTORS = {"count": {"JV": 0.8, "Freshman": 0.6}, "rate": {"JV": 0.8, "Freshman": 0.6},
           "max": {"JV": 1.25, "Freshman": 1.5}}
PERCENT_POINTS_BELOW_VARSITY = {"JV": 5, "Freshman": 10}


def nearest(value, step):
    """Rounds to the nearest multiple of `step`, halves up (the epsilon absorbs float noise)."""
    return math.floor(value / step + 0.5 + 1e-9) * step


def scaled(metric, varsity, level):
    if level == "Varsity":
        return varsity
    if metric == "percent":
        return varsity - PERCENT_POINTS_BELOW_VARSITY[level]
    value = varsity * FACTORS[metric][level]
    if metric == "count":
        return max(1, int(nearest(value, 5 if varsity >= 50 else 1)))
    if metric == "rate":
        return max(0.5, nearest(value, 0.5))
    return nearest(value, 0.5)  # max


def number_slug(target):
    """`60`, `200`, `12`, `9p5`: the target as it appears in an id."""
    text = f"{target:g}"
    return text.replace(".", "p")


def title(metric, target, noun):
    if metric == "percent":
        return f"{target}%+ {noun}"
    if metric == "count":
        return f"{target}+ {noun} (season)"
    if metric == "rate":
        return f"{target:.1f}+ {noun} per game"
    return f"\u2264{target:.1f} {noun} per game"  # max: at most


def goals():
    for gender, positions in TABLE.items():
        for position, (abbr, rows) in positions.items():
            for level, level_slug in LEVELS:
                for slug, key, metric, varsity, noun, count_unit in rows:
                    target = scaled(metric, varsity, level)
                    yield {
                        "id": f"{GENDER_PREFIX[gender]}{abbr}-{level_slug}-{slug}-{number_slug(target)}",
                        "sport": SPORT,
                        "gender": gender,
                        "position": position,
                        "level": level,
                        "title": title(metric, target, noun),
                        "metricType": metric,
                        "target": round(target / 100, 4) if metric == "percent" else target,
                        "unit": "%" if metric == "percent" else (count_unit if metric == "count" else f"{noun} per game"),
                        "trackingKey": key,
                    }


def render():
    library = list(goals())
    ids = [goal["id"] for goal in library]
    assert len(ids) == len(set(ids)), "goal ids must be unique"
    lines = ",\n".join("    " + json.dumps(goal, ensure_ascii=False, sort_keys=True) for goal in library)
    header = json.dumps({
        "about": "StatLocker goals library, generated by scripts/statlocker/make_goals.py; do not edit by hand.",
        "version": 1,
    }, ensure_ascii=False, sort_keys=True)
    return header[:-1] + ', "goals": [\n' + lines + "\n  ]\n}\n"


def main():
    text = render()
    if "--check" in sys.argv[1:]:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT} is out of date; run {sys.argv[0]}", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {sum(1 for _ in goals())} goals to {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
