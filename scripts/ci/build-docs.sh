#!/usr/bin/env bash
# Builds the DocC reference of the plugin API (the PlatformCore module) into .build/docs/PlatformCore,
# failing on any DocC warning (a broken ``symbol`` link, a parameter without its documentation).
#
# PlatformCore is built as `swift build` and `swift test` build it (same flags, so the build is
# reused by them and nothing else of the package is built), then its symbol graph is extracted from
# the built module with the toolchain's swift-symbolgraph-extract, and the toolchain's docc turns
# it and Sources/PlatformCore/PlatformCore.docc into a documentation archive.
#
# Read it by serving the archive (its pages load their data: not from file://), e.g.
# `python3 -m http.server -d .build/docs/PlatformCore 8000` and http://localhost:8000/documentation/platformcore/,
# or preview it, rebuilt on every edit of the catalog: `docc preview Sources/PlatformCore/PlatformCore.docc
# --additional-symbol-graph-dir .build/docs/symbol-graphs --output-path .build/docs/preview`
# (Docs/plugins.md, "The DocC reference").
set -euo pipefail
cd "$(dirname "$0")/../.."

output=.build/docs/PlatformCore
graphs=.build/docs/symbol-graphs

# The toolchain's own tools, found beside swift when they are not on PATH.
toolchain_bin="$(dirname "$(command -v swift)")"
tool() {
    if command -v "$1" >/dev/null 2>&1; then command -v "$1"; else echo "$toolchain_bin/$1"; fi
}
docc="$(tool docc)"
extract="$(tool swift-symbolgraph-extract)"
for program in "$docc" "$extract"; do
    [ -x "$program" ] || { echo "error: $program is missing: this toolchain ships no DocC" >&2; exit 1; }
done

swift build --target PlatformCore
bin="$(swift build --show-bin-path)"
# Swift 6 keeps module files in Modules/ beside the products; older toolchains beside the products.
modules="$bin/Modules"
[ -d "$modules" ] || modules="$bin"
# The triple the module was built for: the host's, and on macOS the package's minimum (macOS 15).
if [ "$(uname)" = Darwin ]; then
    target=(-target "$(uname -m)-apple-macosx15.0" -sdk "$(xcrun --show-sdk-path)")
else
    target=(-target "$(swiftc -print-target-info | sed -n 's/^ *"triple": "\(.*\)",*$/\1/p' | head -n 1)")
fi

rm -rf "$graphs" "$output"
mkdir -p "$graphs"
"$extract" -module-name PlatformCore "${target[@]}" -I "$modules" -output-dir "$graphs" \
    -minimum-access-level public -emit-extension-block-symbols

"$docc" convert Sources/PlatformCore/PlatformCore.docc --additional-symbol-graph-dir "$graphs" --output-path "$output" \
    --fallback-display-name PlatformCore --fallback-bundle-identifier platformd.PlatformCore --warnings-as-errors

echo "PlatformCore's documentation: $output (python3 -m http.server -d $output 8000, then open http://localhost:8000/documentation/platformcore/)"
