#!/usr/bin/env bash
# Runs every test of the project: the same checks, unit tests and end-to-end tests as `./mvnw verify`, in about two
# thirds of its time on 2 cores (docs/testing.md, "The test command").
#
# 1. One build without tests: format and enforcer checks, compile, the two services' runnable jars.
# 2. Three lanes at once, each reading what step 1 built and writing only its own modules' reports:
#    - executor: executor-service's tests (one Quarkus application, PostgreSQL, Kafka);
#    - units: every other module's unit tests (agent-service's among them);
#    - end-to-end: deploy/local-stack's *IT classes (failsafe) against the packaged services.
#    Much of a test is waiting (a stack's start, a decision window, a fault's length, a broker's answer), which the
#    other lanes fill. Each lane's lines are prefixed with its name; the run fails if any lane fails, after all ended.
set -euo pipefail
cd "$(dirname "$0")"
mvn=(./mvnw -B -ntp)

"${mvn[@]}" package -DskipTests

lane() {
  local name=$1
  shift
  # The lane's status is its Maven's, not sed's (pipefail, set above).
  "$@" 2>&1 | sed -u "s/^/[$name] /"
}

# Each lane runs Maven's lifecycle (a goal alone cannot resolve the other modules without an install); what step 1 made
# is up to date, so compiling and packaging find nothing to do, and the checks step 1 made are not repeated.
checked=(-Dformat.skip -Denforcer.skip)
lane executor "${mvn[@]}" "${checked[@]}" -pl shared-contracts,shared-web,deploy/dev-support,executor-service test \
  -Dtest='dev.countersign.executor.**' -Dsurefire.failIfNoSpecifiedTests=false &
executor=$!
lane units "${mvn[@]}" "${checked[@]}" -pl '!executor-service' test &
units=$!
# The end-to-end lane's JVMs (the tests', and the services and Keycloak it starts and stops some thirty times) compile
# with C1 only: they live seconds to minutes, too short for C2's compile threads to pay back their CPU (measured: a third
# less CPU for the same tests). The unit lanes keep C2 for their long CPU-bound fuzzers; the benchmarks never use it.
(
  export JDK_JAVA_OPTIONS="${JDK_JAVA_OPTIONS:+$JDK_JAVA_OPTIONS }-XX:TieredStopAtLevel=1"
  lane end-to-end "${mvn[@]}" "${checked[@]}" -pl shared-contracts,deploy/dev-support,deploy/local-stack verify \
    -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false
) &
end_to_end=$!

status=0
for lane_pid in "executor:$executor" "units:$units" "end-to-end:$end_to_end"; do
  if ! wait "${lane_pid#*:}"; then
    status=1
    echo "The ${lane_pid%%:*} lane failed (its lines are marked [${lane_pid%%:*}])." >&2
  fi
done
exit "$status"
