#!/usr/bin/env bash
# Formats every Swift file of the package as .swift-format says (CI lints the same paths), then
# lints: what remains is a rule the formatter cannot fix by itself (a name, say).
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Sources Tests Package.swift Examples Benchmarks/Benchmarks Benchmarks/Package.swift)
swift format --in-place --recursive --parallel "${paths[@]}"
swift format lint --strict --recursive --parallel "${paths[@]}"
