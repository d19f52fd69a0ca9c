#!/usr/bin/env bash
# Runs every test of the project: the same checks, unit tests and end-to-end tests as `./mvnw verify`, in less time on
# 2 cores (docs/testing.md, "The test command").
#
# 1. One build without tests: format and enforcer checks, compile, the two services' runnable jars.
# 2. Two lanes at once, each reading what step 1 built and writing only its own reports:
#    - units: the unit tests (surefire) of the project's code, the services' in-process Quarkus tests among them;
#    - end-to-end: the unit tests of the test tooling (deploy/dev-support: local Keycloak, PostgreSQL, the demo model)
#      and of the Kubernetes manifests (deploy/k8s-tests), then deploy/local-stack's *IT classes (failsafe) against the
#      packaged services.
#    Much of an end-to-end test is waiting (a stack's start, a decision window, a fault's length), which the unit lane
#    fills. The tooling and manifest tests sit in the end-to-end lane so that both lanes take about as long. Each lane's
#    lines are prefixed with its name; the run fails if either lane fails, after both have ended.
#    (Three lanes, the executor's tests on their own, was measured slower: 14 min for the executor's tests alone.)
#
# Every JVM of the run (Maven's, the tests', the services'; Keycloak's through its own options) compiles with C1 only
# and collects with the serial collector: they live seconds to minutes on 2 busy cores, where C2's compile threads and
# G1's concurrent threads cost more CPU than they pay back (measured: a third less CPU for the same end-to-end tests).
# Speed is not what these tests check; the benchmarks (deploy/bench) never run with these options. C1 alone gets a code
# cache of 48 MB by default (not tiered's 240), which Maven's build of every module filled once ("Out of space in
# CodeCache for method handle intrinsic", the build failed); a full code cache also stops a long test JVM compiling.
# Hence its size here.
# A Quarkus JVM loads over 100 MB of class metadata while it starts, and the metaspace's first threshold (about 20 MB)
# made the serial collector run five or six full collections on the way (1.3 to 2.2 s of one core per JVM, measured on
# the executor's test JVM with -Xlog:gc); a first threshold of 256 MB skips them. It reserves nothing. Keycloak does not
# read these options (LocalKeycloak passes its own).
set -euo pipefail
cd "$(dirname "$0")"
export JDK_JAVA_OPTIONS="${JDK_JAVA_OPTIONS:+$JDK_JAVA_OPTIONS }-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m -XX:+UseSerialGC -XX:MetaspaceSize=256m"
mvn=(./mvnw -B -ntp)

"${mvn[@]}" package -DskipTests

# Each lane's lines also go to target/<lane>.log, each with the time it was written (where a lane's minutes go), from
# which a failed lane's failures are printed again at the end (the lanes' lines interleave, and a CI record often keeps
# only the tail of the output).
mkdir -p target
lane() {
  local name=$1
  shift
  # The lane's status is its Maven's, not the loop's (pipefail, set above). A shell loop, not awk: Debian's awk (mawk)
  # reads a pipe in 4 KB blocks, which stamped a quiet stretch's lines with the time the block filled.
  "$@" 2>&1 | {
    while IFS= read -r line || [ -n "$line" ]; do
      printf '[%s] %s\n' "$name" "$line"
      printf '%(%H:%M:%S)T [%s] %s\n' -1 "$name" "$line" >&3
    done
  } 3> "target/$name.log"
}
# Each lane runs Maven's lifecycle (a goal alone cannot resolve the other modules without an install); the checks step 1
# made are not repeated, and neither lane compiles the main classes (-Dmaven.main.skip): step 1 did, and both lanes
# build shared-contracts. The compiler's own up-to-date check is not enough: once, the end-to-end lane judged
# shared-contracts' sources "added or removed" while the unit lane was reading its incremental state, recompiled it, and
# the unit lane's tests of that module failed with NoClassDefFoundError (a class deleted under them). Test classes are
# then up to date too (their dependencies unchanged), and compile to nothing.
checked=(-Dformat.skip -Denforcer.skip -Dmaven.main.skip)
# The tooling's and the manifests' unit tests (build-config/tooling-tests.txt) run in the end-to-end lane, not the unit
# lane.
tooling_tests="$PWD/build-config/tooling-tests.txt"
lane units "${mvn[@]}" "${checked[@]}" -pl '!deploy/k8s-tests' test -Dsurefire.excludesFile="$tooling_tests" &
units=$!
# The end-to-end lane runs at a slightly lower priority (nice 2: about 40 % of a contended core against the unit lane's
# 60 %): its classes spend much of their time waiting (a stack's start, a decision window, a fault), and the unit lane
# is the longer one.
lane end-to-end nice -n 2 "${mvn[@]}" "${checked[@]}" \
  -pl shared-contracts,deploy/k8s-tests,deploy/keycloak-extension,deploy/dev-support,deploy/local-stack verify \
  -Dsurefire.includesFile="$tooling_tests" &
end_to_end=$!

status=0
for lane_pid in "units:$units" "end-to-end:$end_to_end"; do
  if ! wait "${lane_pid#*:}"; then
    status=1
    name=${lane_pid%%:*}
    echo "The $name lane failed (its lines are marked [$name]). Its failures, again:" >&2
    grep -aE 'Tests run:.*(Failures: [1-9]|Errors: [1-9])|<<< (FAIL|ERROR)|^[0-9:]+ \[[a-z-]+\] \[ERROR\]' "target/$name.log" \
      | grep -av 'Tests run:.*Failures: 0, Errors: 0' | head -60 >&2 || true
  fi
done
exit "$status"
