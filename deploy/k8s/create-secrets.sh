#!/usr/bin/env bash
# Creates what the manifests reference but must never be committed, in namespace $1 (default: countersign):
#   Secrets countersign-db-owner, countersign-db-executor, countersign-db-agent, countersign-db-plan (random passwords,
#   basic-auth, read by CloudNativePG's managed roles and by the pod that uses each role), countersign-model (OPENAI_API_KEY from the
#   environment, read by agent-service only), countersign-executor-oidc (the decision page's client secret at the
#   identity provider, EXECUTOR_OIDC_CLIENT_SECRET from the environment) and countersign-executor-session (two random
#   keys: the session cookie's and the CSRF tokens'), both read by executor-service only, and the chat's own pair,
#   countersign-agent-oidc (AGENT_OIDC_CLIENT_SECRET) and countersign-agent-session, read by agent-service only.
#   Existing objects are left as they are: this never rotates (to rotate a page's session keys, which signs everyone
#   out of it, delete countersign-<service>-session, run this again and restart that service).
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

# A page's client secret at the identity provider: countersign-<service>-oidc from the variable named.
oidc_secret() {
  local service="$1" variable="$2" name="countersign-$1-oidc"
  if exists secret "$name"; then
    echo "secret/$name exists, kept"
  elif [ -n "${!variable:-}" ]; then
    # Through standard input as a file, so that no character of the secret can change the YAML.
    printf '%s' "${!variable}" | kubectl -n "$ns" create secret generic "$name" --from-file=client-secret=/dev/stdin
  else
    echo "$variable is not set: secret/$name not created ($service-service will not start without it)" >&2
  fi
}

# A page's session and CSRF keys: countersign-<service>-session, 64 hex characters each (32 random bytes), above the 32
# characters the services require, the same for every replica.
session_secret() {
  local name="countersign-$1-session"
  if exists secret "$name"; then
    echo "secret/$name exists, kept"
    return
  fi
  local session_key csrf_key
  session_key="$(openssl rand -hex 32)"
  csrf_key="$(openssl rand -hex 32)"
  kubectl -n "$ns" apply -f - <<YAML
apiVersion: v1
kind: Secret
metadata:
  name: $name
type: Opaque
stringData:
  session-secret: $session_key
  csrf-secret: $csrf_key
YAML
}

oidc_secret executor EXECUTOR_OIDC_CLIENT_SECRET
session_secret executor
oidc_secret agent AGENT_OIDC_CLIENT_SECRET
session_secret agent
