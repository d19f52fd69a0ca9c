#!/usr/bin/env bash
# Builds what is needed and starts the whole Countersign system on this machine (see README.md, "Run it").
# Ctrl-C stops everything; data is kept in $COUNTERSIGN_DATA_DIR (default: ./.countersign).
#   ./run-local.sh           everything: PostgreSQL, Kafka, Keycloak, SMTP, the demo model and both services
#   ./run-local.sh --infra   everything but the two services, whose settings go to executor-service/.env and
#                            agent-service/.env for ./mvnw -pl <service> quarkus:dev (docs/development.md)
set -euo pipefail
cd "$(dirname "$0")"
case "${1:-}" in
  "") modules=() ;;
  --infra) export COUNTERSIGN_INFRA_ONLY=true; modules=(-pl deploy/local-stack -am) ;;
  *) echo "usage: $0 [--infra]" >&2; exit 2 ;;
esac
echo "countersign: building (first run downloads dependencies and takes a few minutes) ..."
./mvnw -q -B -DskipTests -Dformat.skip=true package "${modules[@]}"
classpath="deploy/local-stack/target/classes:$(cat deploy/local-stack/target/launcher.classpath)"
exec java -Dcountersign.repo.root="$PWD" -cp "$classpath" dev.countersign.localstack.LocalStack
