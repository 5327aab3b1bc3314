#!/usr/bin/env bash
# Runs the README's test command N times in a row (default 30) from the current checkout, each
# watched as .ci/run watches it: after 240 s without a line of output the test process's threads
# (gdb) and open descriptors are saved beside its log, and it is killed. For hunting a rare stall:
# run it from a copy of the tree (a build in the tree meanwhile would change the binary), niced,
# with PLATFORMD_TEST_POSTGRES_URL set if the PostgreSQL tests should run too.
#
# Usage: scripts/ci/test-loop.sh [RUNS] [OUTPUT_DIR]
# Writes OUTPUT_DIR/run-N.log, OUTPUT_DIR/stall-N-PID.gdb on a stall (and one per child process of
# the test process), and one line per run in
# OUTPUT_DIR/summary.txt: status, whether it stalled, seconds, the test run's last line.
set -uo pipefail
runs="${1:-30}"
out="${2:-/tmp/platformd-test-loop}"
mkdir -p "$out"
swift build --build-tests >/dev/null || exit 1
for i in $(seq 1 "$runs"); do
    log="$out/run-$i.log"
    start=$(date +%s)
    stdbuf -oL -eL swift test --skip-build > "$log" 2>&1 &
    pid=$!
    quiet=0
    stalled=0
    while kill -0 "$pid" 2>/dev/null; do
        sleep 5
        if [ -n "$(find "$log" -newermt '-5 seconds' 2>/dev/null)" ]; then quiet=0; else quiet=$((quiet + 5)); fi
        if [ "$quiet" -ge 240 ]; then
            stalled=1
            for test_pid in $(pgrep -f 'PackageTests.xctest'); do
                gdb -p "$test_pid" -batch -ex 'thread apply all bt' > "$out/stall-$i-$test_pid.gdb" 2>&1
                ls -l "/proc/$test_pid/fd" > "$out/stall-$i-$test_pid.fd" 2>&1
                # The test process may be waiting for a child of its own (a platformd it started).
                for child in $(pgrep -P "$test_pid"); do
                    tr '\0' ' ' < "/proc/$child/cmdline" > "$out/stall-$i-$test_pid-child-$child.gdb" 2>&1
                    echo >> "$out/stall-$i-$test_pid-child-$child.gdb"
                    gdb -p "$child" -batch -ex 'thread apply all bt' >> "$out/stall-$i-$test_pid-child-$child.gdb" 2>&1
                    ls -l "/proc/$child/fd" > "$out/stall-$i-$test_pid-child-$child.fd" 2>&1
                done
                kill -9 "$test_pid"
            done
            kill "$pid" 2>/dev/null
        fi
    done
    wait "$pid"
    status=$?
    echo "run $i status $status stalled $stalled $(( $(date +%s) - start ))s $(grep -E 'Test run with' "$log" | tail -1)" | tee -a "$out/summary.txt"
done
