#!/usr/bin/env bash
# Product target "propose to staged": p99 under 50 ms at 500 proposals/s through Kafka, from the send of ActionProposed
# (one producer with acks=all, like the agent) to the receipt of its ActionStaged on countersign.actions.outcomes.
# Starts its own stack on free ports; builds the services first (tests skipped). Prints the result block with a
# breakdown of where the time goes, also kept in deploy/local-stack/target/bench/ProposeToStagedBenchmark.txt. About 2.5
# minutes on 2 cores (40 s of warm-up and its drain, 20 s measured; up to 4 if the executor falls far behind).
# Usage: deploy/bench/propose-to-staged.sh [maven flags], e.g. -o, -Dbench.rate=500, -Dbench.seconds=20,
# -Dbench.warmupSeconds=40, -Dbench.drainSeconds=60, -Dbench.statements=true (PostgreSQL's statements by time, from
# pg_stat_statements), -Dbench.tenants=1 (tenants the proposals are spread over, round robin). Numbers depend on what
# else runs: the block reports the load.
set -euo pipefail
cd "$(dirname "$0")/../.."
echo "load average before building: $(cut -d' ' -f1-3 /proc/loadavg)"
./mvnw -q -B -Dformat.skip=true -DskipTests "$@" package -pl executor-service,agent-service -am
./mvnw -B -Dformat.skip=true "$@" verify -pl deploy/local-stack -am -Dtest=none \
  -Dit.test=ProposeToStagedBenchmark -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false
