#!/usr/bin/env python3
"""Checks the package's layers from `swift package dump-package` (run from the package root).

- The plugin API (PlatformCore) and every plugin reach none of the server's libraries: no
  database (GRDB, postgres-nio), no NIO, no Hummingbird, no metrics, no tracing.
- The store, the server and the transports sit where docs/architecture.md draws them: the server
  needs no NIO and no database driver; no store depends on the server or a transport.
- A plugin depends on PlatformCore (and its own helpers), never on another plugin.
- The load generator (PlatformBench, `platformd-bench`) links neither the commands nor a plugin.
- No Swift file in Sources/ is over 700 lines.

Exit 1 naming each broken rule; 0 with one line per checked rule.
"""
import json
import pathlib
import re
import subprocess
import sys

FORBIDDEN_FOR_PLUGINS = {
    "GRDB.swift", "postgres-nio", "swift-nio", "swift-nio-ssl", "hummingbird", "hummingbird-websocket",
    "swift-metrics", "swift-prometheus", "swift-distributed-tracing", "swift-otel", "async-http-client",
    "swift-service-lifecycle",
}
SERVER_FORBIDDEN = {"GRDB.swift", "postgres-nio", "swift-nio", "swift-nio-ssl", "hummingbird", "hummingbird-websocket", "async-http-client"}
INNER = ["PlatformProtocol", "PlatformCore", "PlatformStorage", "SQLiteStore", "PostgresStore", "PlatformServer", "PlatformTransports"]

# A scratch path of its own: the manifest is read without waiting for (or holding) .build's lock.
manifest = json.loads(subprocess.check_output(["swift", "package", "--scratch-path", "/tmp/platformd-check-layers", "dump-package"]))
targets = {t["name"]: t for t in manifest["targets"]}


def direct(name):
    """(targets, {package: products}) a target names."""
    names, packages = [], {}
    for dependency in targets[name].get("dependencies", []):
        kind, value = next(iter(dependency.items()))
        if kind in ("byName", "target"):
            names.append(value[0])
        elif kind == "product":
            product, package = value[0], value[1]
            packages.setdefault(package, set()).add(product)
    return [n for n in names if n in targets], packages


def closure(name):
    seen, packages, stack = set(), {}, [name]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        names, products = direct(current)
        stack.extend(names)
        for package, found in products.items():
            packages.setdefault(package, set()).update(found)
    return seen - {name}, packages


problems, passed = [], []


def check(ok, rule):
    (passed if ok else problems).append(rule)


core_targets, core_packages = closure("PlatformCore")
check(not (set(core_packages) & FORBIDDEN_FOR_PLUGINS),
      f"PlatformCore's closure holds no server library (it has: {', '.join(sorted(core_packages)) or 'none'})")
check(core_targets <= {"PlatformProtocol"}, f"PlatformCore depends only on PlatformProtocol among the package's modules (it has: {', '.join(sorted(core_targets))})")

plugins = [n for n, t in targets.items() if t.get("path", "").startswith("Sources/Plugins/")]
for plugin in sorted(plugins):
    reached, packages = closure(plugin)
    check(not (set(packages) & FORBIDDEN_FOR_PLUGINS), f"plugin {plugin} reaches no server library")
    check(not (reached & set(INNER[2:])), f"plugin {plugin} reaches no store, server or transport module")
    check(not (reached & set(plugins)), f"plugin {plugin} depends on no other plugin")

for store in ["PlatformStorage", "SQLiteStore", "PostgresStore"]:
    reached, _ = closure(store)
    check(not (reached & {"PlatformServer", "PlatformTransports"}), f"{store} depends on neither the server nor a transport")

server_targets, server_packages = closure("PlatformServer")
check(not (set(server_packages) & SERVER_FORBIDDEN), f"PlatformServer needs no NIO, HTTP stack or database driver (it has: {', '.join(sorted(server_packages))})")
check(not (server_targets & {"SQLiteStore", "PostgresStore", "PlatformTransports"}), "PlatformServer depends on no store implementation and no transport")

bench_targets, _ = closure("PlatformBench")
check("platformd" not in bench_targets and not (bench_targets & set(plugins)),
      "the load generator links neither the server binary's commands nor a plugin (it drives a child platformd)")
too_long = sorted(f"{p} ({n} lines)" for p in pathlib.Path("Sources").rglob("*.swift")
                  if (n := len(p.read_text().splitlines())) > 700)
check(not too_long, f"no Swift file in Sources/ is over 700 lines{' (over: ' + ', '.join(too_long) + ')' if too_long else ''}")

for line in passed:
    print(f"ok: {line}")
for line in problems:
    print(f"broken: {line}", file=sys.stderr)
sys.exit(1 if problems else 0)
