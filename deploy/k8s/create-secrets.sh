#!/usr/bin/env bash
# Creates what the manifests reference but must never be committed, in namespace $1 (default: countersign):
#   Secrets countersign-db-owner, countersign-db-executor, countersign-db-agent, countersign-db-plan (random passwords,
#   basic-auth, read by CloudNativePG's managed roles and by the pod that uses each role), countersign-model (OPENAI_API_KEY from the
#   environment, read by agent-service only), and the ConfigMap countersign-jwt-public-key (the identity provider's
#   public key, a PEM file named by JWT_PUBLIC_KEY_PEM). Existing objects are left as they are: this never rotates.
# Secret values go to kubectl on standard input, never on a command line.
set -euo pipefail
ns="${1:-countersign}"

exists() { kubectl -n "$ns" get "$1" "$2" >/dev/null 2>&1; }

db_secret() {
  local name="$1" role="$2"
  if exists secret "$name"; then echo "secret/$name exists, kept"; return; fi
  local password
  password="$(openssl rand -base64 33 | tr -d '\n/+=')"
  kubectl -n "$ns" apply -f - <<YAML
apiVersion: v1
kind: Secret
metadata:
  name: $name
  labels:
    cnpg.io/reload: "true"
type: kubernetes.io/basic-auth
stringData:
  username: $role
  password: $password
YAML
}

db_secret countersign-db-owner countersign_owner
db_secret countersign-db-executor countersign_executor
db_secret countersign-db-agent countersign_agent
db_secret countersign-db-plan countersign_plan

if exists secret countersign-model; then
  echo "secret/countersign-model exists, kept"
elif [ -n "${OPENAI_API_KEY:-}" ]; then
  kubectl -n "$ns" apply -f - <<YAML
apiVersion: v1
kind: Secret
metadata:
  name: countersign-model
type: Opaque
stringData:
  api-key: ${OPENAI_API_KEY}
YAML
else
  echo "OPENAI_API_KEY is not set: secret/countersign-model not created (agent-service will not start without it)" >&2
fi

if exists configmap countersign-jwt-public-key; then
  echo "configmap/countersign-jwt-public-key exists, kept"
elif [ -n "${JWT_PUBLIC_KEY_PEM:-}" ]; then
  kubectl -n "$ns" create configmap countersign-jwt-public-key --from-file=publicKey.pem="$JWT_PUBLIC_KEY_PEM"
else
  echo "JWT_PUBLIC_KEY_PEM is not set: configmap/countersign-jwt-public-key not created" >&2
fi
