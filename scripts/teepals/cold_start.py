#!/usr/bin/env python3
"""Cold start to the first TeePals city search, and the memory the server holds after it.

Starts `platformd serve --db :memory:` on stdio, sends `flow.start` for tenant teepals then
`flow.search` for the location field, and measures from the moment the process is started to
the moment the search reply is read. Right after that reply it reads the server's resident
memory (VmRSS, its anonymous and file-backed parts, and the part of it that is pages of the
mapped gazetteer.bin) and CPU time from /proc, then closes
stdin and waits for a clean exit. Repeats RUNS times and prints each run and the median.

    swift build -c release --product platformd
    python3 scripts/teepals/cold_start.py [--binary .build/release/platformd] [--runs 10] [--query Zurich]

The last run then times a few more searches in the warm process (`--warm`), round trips over
stdio, JSON included.

Linux only (reads /proc). The first run also pays for reading the binary and the index from
disk if they are not in the page cache; the figures in Docs/performance.md are warm-cache medians.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def status_kb(pid, key):
    with open(f"/proc/{pid}/status") as file:
        for line in file:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def mapping_rss_kb(pid, suffix):
    """The resident part of the mappings of a file whose path ends with `suffix`."""
    total = 0
    inside = False
    with open(f"/proc/{pid}/smaps") as file:
        for line in file:
            fields = line.split()
            if "-" in fields[0] and len(fields) >= 5:
                inside = len(fields) >= 6 and fields[-1].endswith(suffix)
            elif inside and fields[0] == "Rss:":
                total += int(fields[1])
    return total


def cpu_ms(pid):
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) * 1000 / ticks  # utime + stime


def run(binary, query, warm=()):
    started = time.monotonic()
    server = subprocess.Popen(
        [binary, "serve", "--db", ":memory:", "--log-level", "warning"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def call(number, method, params):
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params}) + "\n")
        server.stdin.flush()
        reply = json.loads(server.stdout.readline())
        if "result" not in reply:
            sys.exit(f"{method} failed: {reply}")
        return reply["result"]

    session = call(1, "flow.start", {"tenant": "teepals", "userId": "cold-start"})["sessionId"]
    after_start = time.monotonic()
    results = call(2, "flow.search", {
        "tenant": "teepals", "sessionId": session, "field": "location", "query": query, "limit": 10})["results"]
    answered = time.monotonic()
    figures = {
        "start_ms": (after_start - started) * 1000,
        "first_search_ms": (answered - started) * 1000,
        "search_ms": (answered - after_start) * 1000,
        "cpu_ms": cpu_ms(server.pid),
        "rss_mb": status_kb(server.pid, "VmRSS") / 1024,
        "peak_rss_mb": status_kb(server.pid, "VmHWM") / 1024,
        "rss_anon_mb": status_kb(server.pid, "RssAnon") / 1024,
        "rss_file_mb": status_kb(server.pid, "RssFile") / 1024,
        "index_rss_mb": mapping_rss_kb(server.pid, "gazetteer.bin") / 1024,
        "first_result": results[0]["label"] if results else None,
    }
    if warm:
        # Round trips of searches once the process is warm (stdio and JSON included), median of 20.
        figures["warm"] = {}
        for query in warm:
            times = []
            for repeat in range(20):
                before = time.monotonic()
                call(3 + repeat, "flow.search", {
                    "tenant": "teepals", "sessionId": session, "field": "location", "query": query, "limit": 10})
                times.append((time.monotonic() - before) * 1000)
            figures["warm"][query] = statistics.median(times)
    server.stdin.close()
    if server.wait(timeout=30) != 0:
        sys.exit(f"platformd exited with {server.returncode}")
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=".build/release/platformd")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--query", default="Zurich")
    parser.add_argument("--warm", nargs="*", default=["s", "san", "paris", "Portland, ME", "Москва", "東", "xyzzy"],
                        help="queries timed after the first, in the last run")
    args = parser.parse_args()
    runs = [run(args.binary, args.query, args.warm if number == args.runs - 1 else ()) for number in range(args.runs)]
    keys = ["start_ms", "first_search_ms", "search_ms", "cpu_ms", "rss_mb", "peak_rss_mb", "rss_anon_mb", "rss_file_mb", "index_rss_mb"]
    for number, figures in enumerate(runs, 1):
        print(f"run {number}: " + ", ".join(f"{key} {figures[key]:.1f}" for key in keys) + f", first: {figures['first_result']}")
    print("median: " + ", ".join(f"{key} {statistics.median(r[key] for r in runs):.1f}" for key in keys))
    for query, milliseconds in runs[-1].get("warm", {}).items():
        print(f"warm search {query!r}: {milliseconds:.2f} ms round trip (median of 20)")


if __name__ == "__main__":
    main()
