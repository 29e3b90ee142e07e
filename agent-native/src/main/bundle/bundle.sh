#!/usr/bin/env bash
# Builds Horizon's self-contained bundles (the Maven build runs it in pre-integration-test; ./horizon agent-bundle and
# ./horizon device-check-bundle copy what it wrote):
#
#   bundle.sh agent        --work DIR --app DIR --sim DIR --out DIR [--if-possible]
#       DIR/horizon-agent.tar.gz (unpacks to horizon-agent/bin/horizon-agent: a jlinked Java runtime, the agent's
#       Quarkus app, an AOT cache made by a training run on the simulated driver, JNA's native part, the simulated
#       driver) and DIR/Dockerfile for the DaemonSet image.
#   bundle.sh device-check --work DIR --jars DIR --out DIR [--if-possible]
#       DIR/run.sh, DIR/runtime (the same runtime), DIR/lib (the NVML bindings and JNA): the real-driver check.
#
# The runtime is linked once into WORK/bundle-runtime by the first JDK whose jlink can link (JAVA_HOME, Temurin 25,
# the others in /usr/lib/jvm). With --if-possible a machine without one gets OUT/SKIPPED saying what to install, and
# exit status 0, so that the build goes on and the tests that need the bundle skip with that message.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
# What the agent needs of the JDK (jdeps over its jars, less what only build-time code generators use).
MODULES=java.base,java.logging,java.naming,java.management,jdk.management,java.sql,jdk.unsupported,jdk.naming.dns,jdk.zipfs
INSTALL_HINT="install a JDK 17+ whose jlink can link: Temurin 25 (https://adoptium.net; on Debian/Ubuntu apt-get install \
temurin-25-jdk from packages.adoptium.net), or any JDK with a jmods/ folder, and point JAVA_HOME at it (Debian's own \
openjdk packages ship no jmods and cannot link)"

say() { echo "horizon bundle: $*" >&2; }
die() { say "$*"; exit 2; }

what="${1:-}"; [[ $# -gt 0 ]] && shift
work="" app="" sim="" jars="" out="" if_possible=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --work) work="$2"; shift 2 ;;
    --app) app="$2"; shift 2 ;;
    --sim) sim="$2"; shift 2 ;;
    --jars) jars="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --if-possible) if_possible=1; shift ;;
    *) die "unknown option '$1'" ;;
  esac
done
[[ -n "$work" && -n "$out" ]] || die "usage: bundle.sh agent|device-check --work DIR --out DIR ..."
mkdir -p "$work" "$out"
work="$(cd "$work" && pwd)" out="$(cd "$out" && pwd)"
rm -f "$out/SKIPPED"
RUNTIME="$work/bundle-runtime"

# The JDKs to try, JAVA_HOME first.
candidates() {
  local seen=" " j
  for j in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*; do
    [[ -n "$j" && -x "$j/bin/jlink" ]] || continue
    j="$(cd "$j" && pwd -P)"
    [[ "$seen" == *" $j "* ]] || { seen+="$j "; echo "$j"; }
  done
}

java_feature() { "$1/bin/java" -version 2>&1 | sed -n 's/.* version "\([0-9]*\).*/\1/p' | head -1; }

# Links RUNTIME with the first JDK that can, unless it is there from the same JDK and modules already.
link_runtime() {
  local jdk modules stamp tried=""
  for jdk in $(candidates); do
    modules="$MODULES"
    # before JDK 22 the elliptic-curve ciphers TLS uses live in their own module
    "$jdk/bin/java" --list-modules 2>/dev/null | grep -q '^jdk.crypto.ec@' && modules+=",jdk.crypto.ec"
    local cds=()
    (( $(java_feature "$jdk") >= 25 )) || cds=(--generate-cds-archive) # AppCDS's dynamic archive needs the base one
    stamp="$jdk $(java_feature "$jdk") $modules ${cds[*]:-}"
    if [[ -f "$RUNTIME/.stamp" && "$(cat "$RUNTIME/.stamp")" == "$stamp" ]]; then JDK="$jdk"; return 0; fi
    say "linking the agent's Java runtime with $jdk/bin/jlink ($modules) ..."
    rm -rf "$RUNTIME"
    if "$jdk/bin/jlink" --add-modules "$modules" --compress zip-9 --strip-debug --no-header-files --no-man-pages \
        "${cds[@]}" --output "$RUNTIME" > "$work/jlink.log" 2>&1; then
      echo "$stamp" > "$RUNTIME/.stamp"
      JDK="$jdk"
      return 0
    fi
    tried+=" $jdk ($(tail -1 "$work/jlink.log"))"
  done
  rm -rf "$RUNTIME"
  local why="no JDK here can link the agent's runtime (tried:${tried:- none with a jlink}); $INSTALL_HINT"
  if (( if_possible )); then
    echo "$why" > "$out/SKIPPED"
    say "skipped: $why"
    exit 0
  fi
  die "$why"
}

# A training run of the bundle on the simulated driver, so that the JVM caches what start-up loads and links:
# Leyden's AOT cache (-XX:AOTCacheOutput, JDK 25) or, on older runtimes, an AppCDS archive.
train() {
  local bundle="$1" tmp log pid port share="$1/share" feature
  tmp="$(mktemp -d)"
  log="$tmp/training.log"
  feature="$(java_feature "$bundle/runtime")"
  local record="-XX:AOTCacheOutput=$share/agent.aot"
  (( feature >= 25 )) || record="-XX:ArchiveClassesAtExit=$share/agent.jsa"
  say "training run for the JVM's start-up cache ($record) on 2 simulated H100s ..."
  HORIZON_SIM_GPUS=2xH100-80GB HORIZON_SIM_STATE="$tmp/gpus.state" HORIZON_AGENT_TOKEN=training \
  HORIZON_AGENT_JAVA_OPTS="$record -Dquarkus.http.port=0 -Dhorizon.agent.node-name=aot-training -Dhorizon.agent.state-dir=$tmp/state \
-Dhorizon.agent.telemetry-interval=200ms -Dhorizon.agent.sharing-backend=DEVICE_PLUGIN -Dhorizon.agent.sharing-config=$tmp/sharing.yaml" \
    "$bundle/bin/horizon-agent" --control-plane http://127.0.0.1:9 > "$log" 2>&1 &
  pid=$!
  for _ in $(seq 240); do grep -q "started in" "$log" && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  grep -q "started in" "$log" || { kill "$pid" 2>/dev/null || true; cat "$log" >&2; die "the training run did not start (log above)"; }
  port="$(sed -n 's|.*Listening on: http://[^:]*:\([0-9]*\).*|\1|p' "$log" | head -1)"
  sleep 3 # a dozen telemetry ticks: NVML reads, the gRPC client's connection attempts
  if [[ -n "$port" ]] && command -v curl > /dev/null; then
    curl -sf "http://127.0.0.1:$port/q/metrics" > /dev/null || true
    curl -sf "http://127.0.0.1:$port/q/health" > /dev/null || true
  fi
  kill -TERM "$pid"
  for _ in $(seq 240); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done # the JVM writes the cache as it exits
  kill -0 "$pid" 2>/dev/null && { kill -KILL "$pid"; die "the training run did not stop"; }
  [[ -s "$share/agent.aot" || -s "$share/agent.jsa" ]] || { cat "$log" >&2; die "the training run wrote no cache (log above)"; }
  rm -rf "$tmp"
}

# JNA's native half, unpacked here at build time: the bundles then run on read-only file systems (-Djna.nounpack=true).
jnidispatch() {
  local jar="$1" dest="$2" tmp
  tmp="$(mktemp -d)"
  (cd "$tmp" && "$JDK/bin/jar" xf "$jar" com/sun/jna/linux-x86-64/libjnidispatch.so)
  mkdir -p "$dest" && mv "$tmp/com/sun/jna/linux-x86-64/libjnidispatch.so" "$dest/"
  rm -rf "$tmp"
}

agent() {
  [[ -f "$app/quarkus-run.jar" ]] || die "no agent app at $app (build it: ./mvnw -B -pl agent-native -am pre-integration-test -DskipTests)"
  [[ -f "$sim/libnvidia-ml.so" ]] || die "no simulated driver at $sim"
  link_runtime
  local stage="$work/agent-bundle-stage" b
  b="$stage/horizon-agent"
  rm -rf "$stage"
  mkdir -p "$b/bin" "$b/lib/native" "$b/lib/sim-nvml" "$b/share"
  cp -a "$RUNTIME" "$b/runtime" && rm -f "$b/runtime/.stamp"
  cp -a "$app" "$b/app"
  cp "$sim/libnvidia-ml.so" "$b/lib/sim-nvml/" && ln -s libnvidia-ml.so "$b/lib/sim-nvml/libnvidia-ml.so.1"
  jnidispatch "$(ls "$b"/app/lib/main/net.java.dev.jna.jna-*.jar | head -1)" "$b/lib/native"
  cp "$HERE/horizon-agent" "$b/bin/horizon-agent" && chmod +x "$b/bin/horizon-agent"
  cp "$HERE/Dockerfile" "$b/Dockerfile"
  train "$b"
  say "packing $out/horizon-agent.tar.gz ..."
  (cd "$stage" && tar -czf "$out/horizon-agent.tar.gz" horizon-agent)
  cp "$HERE/Dockerfile" "$out/Dockerfile"
  say "wrote $out/horizon-agent.tar.gz ($(du -m "$out/horizon-agent.tar.gz" | cut -f1) MiB; unpacked $(du -sm "$b" | cut -f1) MiB) and $out/Dockerfile"
}

device_check() {
  [[ -d "$jars" ]] || die "--jars must name the folder with the NVML bindings and JNA jars"
  link_runtime
  rm -rf "$out/runtime" "$out/lib" "$out/run.sh" "$out/README.md" "$out/report.json"
  cp -a "$RUNTIME" "$out/runtime" && rm -f "$out/runtime/.stamp" "$out"/runtime/lib/server/*.jsa
  mkdir -p "$out/lib"
  cp "$jars"/*.jar "$out/lib/"
  jnidispatch "$(ls "$out"/lib/jna-*.jar | head -1)" "$out/lib/native"
  cp "$ROOT/tests/device/run.sh" "$out/run.sh" && chmod +x "$out/run.sh"
  cp "$ROOT/tests/device/README.md" "$out/README.md"
  say "wrote $out/run.sh with its runtime and jars ($(du -sm "$out" | cut -f1) MiB)"
}

case "$what" in
  agent) agent ;;
  device-check) device_check ;;
  *) die "usage: bundle.sh agent|device-check ..." ;;
esac
