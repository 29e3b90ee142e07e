package dev.horizon.nvml.sim;

import com.sun.jna.Function;
import dev.horizon.nvml.error.NvmlException;
import dev.horizon.nvml.error.NvmlError;
import dev.horizon.nvml.jna.NvmlNative;
import java.util.Optional;

/**
 * Controls Horizon's simulated libnvidia-ml through the few functions only it exports: state
 * commands (processes, faults, reset; the same lines as its state file, see the README), its
 * last error and its C struct sizes. Everything else goes through NVML as with the real driver.
 */
public final class SimulatedDriver {
    private final NvmlNative nvml;

    private SimulatedDriver(NvmlNative nvml) {
        this.nvml = nvml;
    }

    /** The simulated driver, if that is the libnvidia-ml this JVM loads. */
    public static Optional<SimulatedDriver> find() {
        NvmlNative nvml = NvmlNative.load();
        return nvml.simulated() ? Optional.of(new SimulatedDriver(nvml)) : Optional.empty();
    }

    /** As {@link #find()}, failing with a clear message when the real driver is loaded. */
    public static SimulatedDriver require() {
        return find().orElseThrow(() -> new IllegalStateException(
                "the loaded libnvidia-ml is the real NVIDIA driver, not Horizon's simulated one;"
                        + " set HORIZON_SIM_GPUS (and jna.library.path to nvml-bindings/target/sim-nvml)"));
    }

    /**
     * Applies one command, e.g. {@code fault gpu=1 lost}, {@code process gpu=0 pid=42 mem=2048},
     * {@code reset}. With HORIZON_SIM_STATE it is written to the state file for every process.
     */
    public void command(String line) {
        int rc = function("horizonSimCommand").invokeInt(new Object[] {line});
        if (rc != NvmlError.SUCCESS.code()) {
            throw NvmlException.of(rc, "horizonSimCommand(\"" + line + "\")", lastError(),
                    "see the simulated driver's commands in nvml-bindings/README.md");
        }
    }

    /** The simulator's sentence about this thread's last failure, e.g. why an instance did not fit. */
    public String lastError() {
        return function("horizonSimLastError").invokeString(new Object[0], false);
    }

    /** What it simulates, e.g. "2xH100-80GB state=/tmp/gpus.state"; empty before the first nvmlInit. */
    public String describe() {
        return function("horizonSimDescribe").invokeString(new Object[0], false);
    }

    /** sizeof of an NVML struct as gcc laid it out for the simulator, -1 for a name it does not know. */
    public int cSizeOf(String structName) {
        return function("horizonSimSizeof").invokeInt(new Object[] {structName});
    }

    /** The loaded library file. */
    public String libraryFile() {
        return nvml.file();
    }

    private Function function(String name) {
        return nvml.simulatorFunction(name)
                .orElseThrow(() -> new IllegalStateException(name + " is missing from " + nvml.file()));
    }
}
