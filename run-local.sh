#!/usr/bin/env bash
# Builds what is needed and starts the whole Countersign system on this machine (see README.md, "Run it").
# Ctrl-C stops everything; data is kept in $COUNTERSIGN_DATA_DIR (default: ./.countersign).
set -euo pipefail
cd "$(dirname "$0")"
echo "countersign: building (first run downloads dependencies and takes a few minutes) ..."
./mvnw -q -B -DskipTests -Dformat.skip=true package
classpath="deploy/local-stack/target/classes:$(cat deploy/local-stack/target/launcher.classpath)"
exec java -Dcountersign.repo.root="$PWD" -cp "$classpath" dev.countersign.localstack.LocalStack
