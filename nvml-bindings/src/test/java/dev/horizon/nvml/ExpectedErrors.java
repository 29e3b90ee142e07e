package dev.horizon.nvml;

import dev.horizon.nvml.error.NvmlDriverUnavailableException;
import dev.horizon.nvml.error.NvmlError;
import dev.horizon.nvml.error.NvmlException;
import dev.horizon.nvml.error.NvmlGpuFaultException;
import dev.horizon.nvml.error.NvmlGpuLostException;
import dev.horizon.nvml.error.NvmlInsufficientResourcesException;
import dev.horizon.nvml.error.NvmlInvalidArgumentException;
import dev.horizon.nvml.error.NvmlLibraryNotFoundException;
import dev.horizon.nvml.error.NvmlNotFoundException;
import dev.horizon.nvml.error.NvmlNotSupportedException;
import dev.horizon.nvml.error.NvmlPermissionException;
import dev.horizon.nvml.error.NvmlStateException;
import dev.horizon.nvml.error.NvmlTransientException;
import dev.horizon.nvml.error.NvmlUnknownException;
import java.util.Map;

/** The typed exception each NVML return code must become, written out by hand (not derived from the code under test). */
final class ExpectedErrors {
    static final Map<Integer, Class<? extends NvmlException>> BY_CODE = Map.ofEntries(
            Map.entry(1, NvmlStateException.class),
            Map.entry(2, NvmlInvalidArgumentException.class),
            Map.entry(3, NvmlNotSupportedException.class),
            Map.entry(4, NvmlPermissionException.class),
            Map.entry(5, NvmlStateException.class),
            Map.entry(6, NvmlNotFoundException.class),
            Map.entry(7, NvmlInvalidArgumentException.class),
            Map.entry(8, NvmlGpuFaultException.class),
            Map.entry(9, NvmlDriverUnavailableException.class),
            Map.entry(10, NvmlTransientException.class),
            Map.entry(11, NvmlGpuFaultException.class),
            Map.entry(12, NvmlLibraryNotFoundException.class),
            Map.entry(13, NvmlNotSupportedException.class),
            Map.entry(14, NvmlGpuFaultException.class),
            Map.entry(15, NvmlGpuLostException.class),
            Map.entry(16, NvmlGpuFaultException.class),
            Map.entry(17, NvmlPermissionException.class),
            Map.entry(18, NvmlDriverUnavailableException.class),
            Map.entry(19, NvmlStateException.class),
            Map.entry(20, NvmlInsufficientResourcesException.class),
            Map.entry(21, NvmlTransientException.class),
            Map.entry(22, NvmlNotSupportedException.class),
            Map.entry(23, NvmlInsufficientResourcesException.class),
            Map.entry(24, NvmlNotSupportedException.class),
            Map.entry(25, NvmlInvalidArgumentException.class),
            Map.entry(26, NvmlNotSupportedException.class),
            Map.entry(27, NvmlTransientException.class),
            Map.entry(28, NvmlNotFoundException.class),
            Map.entry(29, NvmlStateException.class),
            Map.entry(30, NvmlNotSupportedException.class),
            Map.entry(999, NvmlUnknownException.class));

    private ExpectedErrors() {}

    static Class<? extends NvmlException> of(NvmlError error) {
        return BY_CODE.get(error.code());
    }
}
