#!/usr/bin/env bash
# The agent's own cost per turn, against a running local stack (./run-local.sh): N chat turns that read the ledger
# (the demo model answers "list my wallets" with one tool call, so 2 model calls per turn), and for each turn the
# agent's own metrics (/q/metrics): turn time - model-call time - ledger-recording time. Prints p50/p90/max in ms, with
# the parts, so the numbers say where the time goes (p50/p90/p99/max in ms; 200 turns after 10 of warm-up by default).
# Needs curl, jq, awk. Usage: deploy/bench/turn-cost.sh [turns]. One person chats faster than the per-person turn
# limit allows (20 a minute): run the stack with TURNS_PER_PERSON=100000 ./run-local.sh, or every turn past the 20th
# is refused (429) and the script stops there.
set -euo pipefail
turns=${1:-210}
warmup=10
agent=${AGENT_URL:-http://localhost:8080}
# /q/metrics is on the management port, not the API port.
agent_management=${AGENT_MANAGEMENT_URL:-http://localhost:9000}
token=$(curl -sf -X POST "${DEV_TOKEN_URL:-http://localhost:8079/dev/token}" -d '{"tenant":"acme","user":"alice"}' \
  | jq -r .agentToken)
sum() { curl -sf "$agent_management/q/metrics" | awk -v m="$1" '$1 ~ "^"m {s+=$2} END {printf "%.6f", s}'; }
parts=$(mktemp)
for i in $(seq "$turns"); do
  t0=$(sum countersign_agent_turn_seconds_sum); m0=$(sum countersign_agent_model_call_seconds_sum)
  r0=$(sum countersign_agent_turn_recording_seconds_sum)
  curl -sf -o /dev/null -X POST "$agent/api/conversations/bench-$$-$i/messages" -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' -d '{"text":"list my wallets"}'
  t1=$(sum countersign_agent_turn_seconds_sum); m1=$(sum countersign_agent_model_call_seconds_sum)
  r1=$(sum countersign_agent_turn_recording_seconds_sum)
  if [ "$i" -gt "$warmup" ]; then
    echo "$t0 $t1 $m0 $m1 $r0 $r1" | awk '{t=($2-$1)*1000; m=($4-$3)*1000; r=($6-$5)*1000;
      printf "%.3f %.3f %.3f %.3f\n", t-m-r, t, m, r}' >> "$parts"
  fi
done
report() {
  sort -n -k"$1" "$parts" | awk -v c="$1" -v name="$2" '{a[NR]=$c} END {
    printf "%-34s p50 %7.2f ms   p90 %7.2f ms   p99 %7.2f ms   max %7.2f ms   (%d turns)\n", name, a[int(NR/2)+1],
      a[int(NR*0.9)], a[int(NR*0.99)], a[NR], NR}'
}
report 1 "agent's own cost (turn-model-ledger)"
report 2 "whole turn"
report 3 "model calls (2 per turn)"
report 4 "ledger recording (Kafka+executor)"
# Memory after the turns and start-up time, of the local stack's service processes (target: RSS under 300 MB each).
logs=${COUNTERSIGN_DATA_DIR:-$(dirname "$0")/../../.countersign}/logs
for module in executor-service agent-service; do
  pid=$(pgrep -f "/$module/target/quarkus-app/" | head -1 || true)
  rss=$( [ -n "$pid" ] && awk '/^VmRSS:/ {printf "%d MiB", $2 / 1024}' "/proc/$pid/status" || echo "unknown (no process)")
  started=$(grep -o "started in [0-9.]*s" "$logs/$module.log" 2>/dev/null | tail -1 || true)
  printf "%-34s RSS %s after the turns; %s\n" "$module" "$rss" "${started:-start-up time unknown (no log in $logs)}"
done
rm -f "$parts"
