package dev.horizon.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.nvml.error.NvmlError;
import dev.horizon.nvml.error.NvmlException;
import dev.horizon.nvml.error.NvmlGpuFaultException;
import dev.horizon.nvml.error.NvmlUnknownException;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every NVML return code maps to a typed exception that names it and says what to do. */
class NvmlErrorTest {

    @Test
    void theEnumHoldsEveryReturnCodeOfTheHeader() {
        Set<Integer> header = IntStream.rangeClosed(0, 30).boxed().collect(Collectors.toCollection(TreeSet::new));
        header.add(999);
        assertEquals(header, Arrays.stream(NvmlError.values()).map(NvmlError::code).collect(Collectors.toCollection(TreeSet::new)));
        assertEquals(header.size() - 1, ExpectedErrors.BY_CODE.size(), "the expectations cover every error code");
    }

    @ParameterizedTest
    @EnumSource(value = NvmlError.class, mode = EnumSource.Mode.EXCLUDE, names = "SUCCESS")
    void eachCodeBecomesItsTypedExceptionWithAHint(NvmlError error) {
        NvmlException e = NvmlException.of(error.code(), "nvmlDeviceGetSomething", "driver text");

        assertSame(ExpectedErrors.of(error), e.getClass(), error.constantName());
        assertSame(error, e.error());
        assertEquals(error.code(), e.code());
        assertEquals("nvmlDeviceGetSomething", e.function());
        assertTrue(e.hint().length() > 20, "a real hint for " + error);
        assertEquals(error.hint(), e.hint());
        String message = e.getMessage();
        assertTrue(message.startsWith("nvmlDeviceGetSomething: " + error.constantName() + " (driver text); hint: "), message);
        assertTrue(message.endsWith(e.hint()), message);
        assertFalse(message.contains("\n"), "one line");
    }

    @Test
    void constantNamesAreTheHeaders() {
        assertEquals("NVML_SUCCESS", NvmlError.SUCCESS.constantName());
        assertEquals("NVML_ERROR_GPU_IS_LOST", NvmlError.GPU_IS_LOST.constantName());
        assertEquals("NVML_ERROR_UNKNOWN", NvmlError.UNKNOWN.constantName());
        assertEquals(23, NvmlError.INSUFFICIENT_RESOURCES.code());
    }

    @Test
    void hintsSayWhatThePersonCanDo() {
        assertTrue(NvmlError.NO_PERMISSION.hint().contains("changing MIG needs root or CAP_SYS_ADMIN"));
        String libraryHint = NvmlError.LIBRARY_NOT_FOUND.hint();
        assertTrue(libraryHint.contains("libnvidia-ml.so.1") && libraryHint.contains("HORIZON_NVML_LIBRARY_PATH")
                && libraryHint.contains("jna.library.path") && libraryHint.contains("HORIZON_SIM_GPUS"), libraryHint);
        assertTrue(NvmlError.INSUFFICIENT_RESOURCES.hint().contains("horizon smi mig profiles"));
        assertTrue(NvmlError.GPU_IS_LOST.hint().contains("fell off the bus"));
    }

    @Test
    void gpuLostIsAGpuFault() {
        assertInstanceOf(NvmlGpuFaultException.class, NvmlException.of(15, "f", null));
    }

    @Test
    void codesNewerThanTheBindingsStayVisible() {
        NvmlException e = NvmlException.of(42, "nvmlDeviceGetFuture", null);
        assertInstanceOf(NvmlUnknownException.class, e);
        assertEquals(42, e.code());
        assertEquals("NVML return code 42", e.errorName());
        assertEquals(NvmlError.UNKNOWN.hint(), e.hint());
        assertEquals("nvmlDeviceGetFuture: NVML return code 42; hint: " + e.hint(), e.getMessage());
    }

    @Test
    void aHintCanBeReplacedAndDetailsAreKeptOnOneLine() {
        NvmlException e = NvmlException.of(2, "nvmlInit_v2", "first\nsecond", "fix the variable");
        assertEquals("first second", e.detail());
        assertEquals("fix the variable", e.hint());
        assertNotNull(e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
    }

    @Test
    void successIsNotAnError() {
        assertThrows(IllegalArgumentException.class, () -> NvmlException.of(0, "nvmlInit_v2", null));
    }
}
