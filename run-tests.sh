#!/usr/bin/env bash
# Runs every test of the project: the same checks, unit tests and end-to-end tests as `./mvnw verify`, in about half
# its time on 2 cores (docs/testing.md, "How the test command spends its time").
#
# 1. One build without tests: format and enforcer checks, compile, the two services' runnable jars.
# 2. Two lanes at once, each reading what step 1 built and writing only its own reports:
#    - units: every module's unit tests (surefire), the services' in-process Quarkus tests among them;
#    - end-to-end: deploy/local-stack's *IT classes (failsafe) against the packaged services.
#    Most of an end-to-end test is waiting (a stack's start, a decision window, a fault's length), which the unit lane
#    fills. Each lane's lines are prefixed with its name; the run fails if either lane fails, after both have ended.
#
# Every JVM of the run (Maven's, the tests', the services', Kafka's, Keycloak's) compiles with C1 only
# (-XX:TieredStopAtLevel=1): they live seconds to minutes, too short for C2's compile threads to pay back their CPU
# (measured: a third less CPU for the same tests). The benchmarks (deploy/bench) never run with it.
set -euo pipefail
cd "$(dirname "$0")"
export JDK_JAVA_OPTIONS="${JDK_JAVA_OPTIONS:+$JDK_JAVA_OPTIONS }-XX:TieredStopAtLevel=1"
mvn=(./mvnw -B -ntp)

"${mvn[@]}" package -DskipTests

lane() {
  local name=$1
  shift
  # The exit status is the lane's Maven's, not sed's.
  set -o pipefail
  "$@" 2>&1 | sed -u "s/^/[$name] /"
}

# Each lane runs Maven's lifecycle (a goal alone cannot resolve the other modules without an install); what step 1 made
# is up to date, so compiling and packaging find nothing to do, and the checks step 1 made are not repeated.
checked=(-Dformat.skip -Denforcer.skip)
lane units "${mvn[@]}" "${checked[@]}" test &
units=$!
lane end-to-end "${mvn[@]}" "${checked[@]}" -pl shared-contracts,deploy/dev-support,deploy/local-stack verify \
  -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false &
end_to_end=$!

status=0
wait "$units" || { status=1; echo "The unit tests failed (lines marked [units])." >&2; }
wait "$end_to_end" || { status=1; echo "The end-to-end tests failed (lines marked [end-to-end])." >&2; }
exit "$status"
