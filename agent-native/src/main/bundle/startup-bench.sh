#!/usr/bin/env bash
# Start-up of the agent bundle beside today's fast-jar (./horizon agent), against a real control plane, on 8 simulated
# H100s: launch to "registered" (the node listed by GET /api/v1/nodes) and the agent's resident memory then and 10 s
# later; and the bundle with its AOT cache switched off (no-cache). A benchmark for the note, not a test.
#   agent-native/src/main/bundle/startup-bench.sh BUNDLE_DIR [RUNS]   (BUNDLE_DIR holds horizon-agent.tar.gz)
# Needs the control plane built (./mvnw -B -DskipTests -pl control-plane/service -am package), curl and python3.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)"
bundle="$(cd "${1:?usage: startup-bench.sh BUNDLE_DIR [RUNS]}" && pwd)" runs="${2:-3}"
tmp="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; wait; rm -rf "$tmp"' EXIT
tar -xzf "$bundle/horizon-agent.tar.gz" -C "$tmp"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cp_port="$(free_port)" admin=bench-admin agent_token=bench-agent
HORIZON_BOOTSTRAP_ADMIN_TOKEN=$admin HORIZON_BOOTSTRAP_AGENT_TOKEN=$agent_token \
  java -Dquarkus.http.port="$cp_port" -Dhorizon.data-dir="$tmp/data" -jar "$ROOT/control-plane/service/target/quarkus-app/quarkus-run.jar" \
  > "$tmp/control-plane.log" 2>&1 &
for _ in $(seq 240); do curl -sf "http://127.0.0.1:$cp_port/q/health/ready" > /dev/null && break; sleep 0.5; done

registered() {
  curl -sf -H "Authorization: Bearer $admin" "http://127.0.0.1:$cp_port/api/v1/nodes" \
    | python3 -c 'import json,sys; sys.exit(0 if any(n["name"]==sys.argv[1] for n in json.load(sys.stdin)) else 1)' "$1"
}
rss() { awk '/VmRSS/ {print int($2/1024)}' "/proc/$1/status"; }

one() { # one KIND NODE COMMAND...: prints "KIND seconds rss rss10"
  local kind="$1" node="$2"; shift 2
  local port start pid t
  port="$(free_port)"
  start="$(date +%s.%N)"
  HORIZON_SIM_GPUS=8xH100-80GB HORIZON_SIM_STATE="$tmp/$node.state" HORIZON_SIM_NODE="$node" HORIZON_AGENT_NODE_NAME="$node" \
    HORIZON_AGENT_STATE_DIR="$tmp/$node" HORIZON_AGENT_SHARING_BACKEND=DEVICE_PLUGIN HORIZON_AGENT_SHARING_CONFIG="$tmp/$node.yaml" \
    "$@" --port "$port" --control-plane "http://127.0.0.1:$cp_port" --token "$agent_token" > "$tmp/$node.log" 2>&1 &
  pid=$!
  until registered "$node"; do kill -0 "$pid" 2>/dev/null || { cat "$tmp/$node.log" >&2; exit 1; }; sleep 0.1; done
  t="$(echo "$(date +%s.%N) - $start" | bc)"
  local at; at="$(rss "$pid")"
  sleep 10
  printf '%-9s registered after %5.2f s   RSS %4s MiB at registration, %4s MiB 10 s later\n' "$kind" "$t" "$at" "$(rss "$pid")"
  kill "$pid"; wait "$pid" 2>/dev/null || true
}

one warm-up bench-warm-fast "$ROOT/horizon" agent > /dev/null # builds the fast-jar if a source is newer; not counted
for i in $(seq "$runs"); do
  one fast-jar "bench-fast-$i" "$ROOT/horizon" agent
  one bundle "bench-bundle-$i" "$tmp/horizon-agent/bin/horizon-agent"
  HORIZON_AGENT_JAVA_OPTS=-XX:AOTMode=off one no-cache "bench-nocache-$i" "$tmp/horizon-agent/bin/horizon-agent" # what the AOT cache is worth
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); bundle: $(du -m "$bundle/horizon-agent.tar.gz" | cut -f1) MiB packed, $(du -sm "$tmp/horizon-agent" | cut -f1) MiB unpacked"
