#!/usr/bin/env bash
# Product target "confirm to executed": the executor's HTTP confirmations per second at 32 clients against the same
# work done by PostgreSQL in one round trip (a PL/pgSQL call) on the same machine, target ratio >= 0.5; the same work
# statement by statement over JDBC for comparison; and the service's p99 under open-loop load at a quarter of the
# one-round-trip rate (target < 50 ms). Both baselines are deploy/bench/confirm-baseline.sql, the executor's own SQL
# when issue 41 started, frozen (ConfirmBaselineSqlTest holds its hash). Starts its own stack (PostgreSQL, Kafka, the
# services as JVMs) on free ports, so nothing else need run; builds the services first (tests skipped). Prints the
# result block, also kept in deploy/local-stack/target/bench/ConfirmThroughputBenchmark.txt. Last, the service's rate
# just before and just after the database grows by a million past actions (copies of the run's own, with every row
# the service writes for one; target: at least 0.8 of the rate before); before the growth, the same load on two executor
# instances against one. About 8 to 11 minutes on 2 cores: staging the proposals the runs confirm and growing the
# database take most of it.
# Usage: deploy/bench/confirm-throughput.sh [maven flags], e.g. -o, -Dbench.actions=4000, -Dbench.clients=32,
# -Dbench.warmupActions=1000, -Dbench.warmRunWarmupActions=8000 ((g)'s first run, the ratio's), -Dbench.openLoopSeconds=15, -Dbench.grownActions=1000000, -Dbench.secondExecutorWarmupActions=3000, -Dbench.statements=true (PostgreSQL's statements by time per
# run, from pg_stat_statements). Numbers depend on what else runs: the block reports the load
# average; compare ratios within one run.
set -euo pipefail
cd "$(dirname "$0")/../.."
echo "load average before building: $(cut -d' ' -f1-3 /proc/loadavg)"
./mvnw -q -B -Dformat.skip=true -DskipTests "$@" package -pl executor-service,agent-service -am
./mvnw -B -Dformat.skip=true "$@" verify -pl deploy/local-stack -am -Dtest=none \
  -Dit.test=ConfirmThroughputBenchmark -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false
