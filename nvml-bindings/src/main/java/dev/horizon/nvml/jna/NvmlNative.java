package dev.horizon.nvml.jna;

import com.sun.jna.Function;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import dev.horizon.nvml.error.NvmlLibraryNotFoundException;
import java.util.List;
import java.util.Optional;

/**
 * The loaded libnvidia-ml: the real driver's, or Horizon's simulated one, found the same way.
 *
 * <p>The library is {@code nvidia-ml} as JNA looks it up: first in {@code jna.library.path} (where
 * horizon-smi.sh and the tests put the simulated driver, or HORIZON_NVML_LIBRARY_PATH), then on
 * the system library path; the driver's soname {@code libnvidia-ml.so.1} is tried next, since
 * driver packages do not always install the unversioned link. The system property
 * {@value #LIBRARY_PROPERTY} names another library (a file path or a name) instead.
 */
public final class NvmlNative {
    public static final String LIBRARY_PROPERTY = "horizon.nvml.library";
    private static final List<String> DEFAULT_NAMES = List.of("nvidia-ml", "libnvidia-ml.so.1");

    private static NvmlNative loaded;

    private final String name;
    private final NativeLibrary library;
    private final NvmlLibrary api;

    private NvmlNative(String name, NativeLibrary library, NvmlLibrary api) {
        this.name = name;
        this.library = library;
        this.api = api;
    }

    /** Loads the library once per JVM; a failure is not remembered, so a later call tries again. */
    public static synchronized NvmlNative load() {
        String configured = System.getProperty(LIBRARY_PROPERTY);
        List<String> names = configured == null || configured.isBlank() ? DEFAULT_NAMES : List.of(configured);
        if (loaded != null && names.contains(loaded.name)) return loaded;
        UnsatisfiedLinkError last = null;
        for (String candidate : names) {
            try {
                NativeLibrary library = NativeLibrary.getInstance(candidate);
                loaded = new NvmlNative(candidate, library, Native.load(candidate, NvmlLibrary.class));
                return loaded;
            } catch (UnsatisfiedLinkError e) {
                last = e;
            }
        }
        throw new NvmlLibraryNotFoundException("load libnvidia-ml",
                "looked for " + String.join(" and ", names) + " in " + searchPath(), null, last);
    }

    private static String searchPath() {
        String jnaPath = System.getProperty("jna.library.path");
        String ldPath = System.getenv("LD_LIBRARY_PATH");
        return "jna.library.path=" + (jnaPath == null || jnaPath.isBlank() ? "(unset)" : jnaPath)
                + ", LD_LIBRARY_PATH=" + (ldPath == null || ldPath.isBlank() ? "(unset)" : ldPath)
                + " and the ldconfig directories";
    }

    public NvmlLibrary api() {
        return api;
    }

    /** Where the library was loaded from. */
    public String file() {
        return library.getFile() != null ? library.getFile().getPath() : library.getName();
    }

    /**
     * A function only the simulated driver exports (horizonSimCommand, ...); empty for the real
     * driver, which is how the bindings tell the two apart.
     */
    public Optional<Function> simulatorFunction(String functionName) {
        try {
            return Optional.of(library.getFunction(functionName));
        } catch (UnsatisfiedLinkError e) {
            return Optional.empty();
        }
    }

    public boolean simulated() {
        return simulatorFunction("horizonSimCommand").isPresent();
    }
}
