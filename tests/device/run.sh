#!/bin/bash
# Horizon's real-driver check: every NVML call the agent makes, read-only, on every GPU of this host; then, only as root
# on a MIG-capable GPU with HORIZON_ALLOW_MIG_CHANGES=1, one MIG enable/create/destroy cycle that leaves the GPU as it
# found it. Prints one JSON report and writes it to report.json beside this script (or --report FILE). Needs nothing
# but the NVIDIA driver: the Java runtime is in runtime/, and it uses bash builtins only (no network, no PATH).
# HORIZON_NVML_LIBRARY_PATH=DIR loads libnvidia-ml from DIR; with HORIZON_SIM_GPUS too, DIR may be Horizon's simulated
# driver (nvml-bindings/target/sim-nvml). Exit status: 0 every step ran, 3 some failed (see the report), 1 no NVML.
set -euo pipefail
here="${BASH_SOURCE[0]}"
[[ "$here" == */* ]] || here="./$here"
dir="$(cd "${here%/*}" && pwd)"
opts=(-XX:+UseSerialGC -XX:TieredStopAtLevel=1 --enable-native-access=ALL-UNNAMED "-Djna.boot.library.path=$dir/lib/native" -Djna.nounpack=true)
if [[ -n "${HORIZON_NVML_LIBRARY_PATH:-}" ]]; then
  opts+=("-Djna.library.path=$HORIZON_NVML_LIBRARY_PATH")
elif [[ -n "${HORIZON_SIM_GPUS:-}" ]]; then
  echo "run.sh: HORIZON_SIM_GPUS is set but HORIZON_NVML_LIBRARY_PATH is not, so this checks the real driver;" \
       "point HORIZON_NVML_LIBRARY_PATH at nvml-bindings/target/sim-nvml to check the simulated one" >&2
fi
report=("--report" "$dir/report.json")
[[ " $* " == *" --report "* ]] && report=()
exec "$dir/runtime/bin/java" "${opts[@]}" -cp "$dir/lib/*" dev.horizon.nvml.check.DeviceCheck "${report[@]}" "$@"
