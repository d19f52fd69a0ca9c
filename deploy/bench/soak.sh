#!/usr/bin/env bash
# Issue 19 "Load held": SoakIT for 10 minutes instead of the CI version's one. A mixed load (chat turns that propose,
# proposals on Kafka, confirms, cancels, a confirm racing a cancel, undos, reads on both services) at a steady rate on
# two executor instances and one agent; then every answer must have been a 2xx or a documented 409, nothing lost or
# doubled (checked in PostgreSQL as the owner), and each service's RSS flat after the 2-minute warm-up (its peak printed against the 300 MiB target, not asserted).
# Starts its own stack on free ports; builds the services first (tests skipped). Prints the result block, also kept in
# deploy/local-stack/target/bench/SoakIT.txt. About 13 to 15 minutes on 2 cores.
# Usage: deploy/bench/soak.sh [maven flags], e.g. -o, -Dsoak.rate=20, -Dsoak.duration=PT30M, -Dsoak.warmup=PT3M.
# Numbers depend on what else runs: the block reports the load average.
set -euo pipefail
cd "$(dirname "$0")/../.."
echo "load average before building: $(cut -d' ' -f1-3 /proc/loadavg)"
./mvnw -q -B -Dformat.skip=true -DskipTests "$@" package -pl executor-service,agent-service -am
./mvnw -B -Dformat.skip=true -Dsoak.duration=PT10M -Dsoak.warmup=PT2M "$@" verify -pl deploy/local-stack -am \
  -Dtest=none -Dit.test=SoakIT -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false
