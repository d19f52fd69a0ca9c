#!/usr/bin/env bash
# Product target "confirm to executed": the executor's HTTP confirmations per second at 32 clients against raw
# PostgreSQL running the same SQL (the executor's confirm transaction over JDBC) on the same machine; target ratio
# >= 0.5. Starts its own stack (PostgreSQL, Kafka, the services as JVMs) on free ports, so nothing else need run; builds
# the services first (tests skipped). Prints the result block, also kept in
# deploy/local-stack/target/bench/ConfirmThroughputBenchmark.txt. About 2 to 3 minutes on 2 cores.
# Usage: deploy/bench/confirm-throughput.sh [maven flags], e.g. -o, -Dbench.actions=4000, -Dbench.clients=32,
# -Dbench.warmupActions=1000. Numbers depend on what else runs: the block reports the load average.
set -euo pipefail
cd "$(dirname "$0")/../.."
echo "load average before building: $(cut -d' ' -f1-3 /proc/loadavg)"
./mvnw -q -B -Dformat.skip=true -DskipTests "$@" package -pl executor-service,agent-service -am
./mvnw -B -Dformat.skip=true "$@" verify -pl deploy/local-stack -am -Dtest=none \
  -Dit.test=ConfirmThroughputBenchmark -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false
