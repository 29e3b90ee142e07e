#!/usr/bin/env bash
# `./horizon smi ...` runs this as `horizon-smi.sh "$@"`: the nvml-bindings smi command
# (nvidia-smi-like view of the GPUs through the NVML bindings; see nvml-bindings/README.md).
#
# Driver: the simulated libnvidia-ml from nvml-bindings/target/sim-nvml when HORIZON_SIM_GPUS or
# HORIZON_SIM_STATE is set; otherwise the real NVIDIA driver, from HORIZON_NVML_LIBRARY_PATH if
# set, else from the system library path.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
module="$root/nvml-bindings"
sim_dir="$module/target/sim-nvml"

if [[ ! -d "$module/target/classes/dev/horizon/nvml" || ! -e "$sim_dir/libnvidia-ml.so" || ! -d "$module/target/lib" ]]; then
  echo "horizon smi: building nvml-bindings (first run, about a minute)..." >&2
  if ! (cd "$root" && ./mvnw -q -B -DskipTests -pl nvml-bindings -am package) >&2; then
    echo "horizon smi: building nvml-bindings failed; run ./mvnw -B -pl nvml-bindings -am package to see why" >&2
    exit 1
  fi
fi

java_opts=(--enable-native-access=ALL-UNNAMED)
if [[ -n "${HORIZON_SIM_GPUS:-}" || -n "${HORIZON_SIM_STATE:-}" ]]; then
  java_opts+=("-Djna.library.path=$sim_dir")
elif [[ -n "${HORIZON_NVML_LIBRARY_PATH:-}" ]]; then
  java_opts+=("-Djna.library.path=$HORIZON_NVML_LIBRARY_PATH")
fi

java_bin="java"
if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
  java_bin="$JAVA_HOME/bin/java"
fi

exec "$java_bin" "${java_opts[@]}" -cp "$module/target/classes:$module/target/lib/*" \
  dev.horizon.nvml.smi.SmiCommand "$@"
