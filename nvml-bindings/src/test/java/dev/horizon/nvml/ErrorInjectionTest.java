package dev.horizon.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.nvml.error.NvmlError;
import dev.horizon.nvml.error.NvmlException;
import dev.horizon.nvml.sim.SimulatedDriver;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every return code, sent by the driver through JNA, reaches the caller as its typed exception
 * with the driver's own text and the hint: the real code path, end to end.
 */
class ErrorInjectionTest extends SessionTest {
    private SimulatedDriver sim;

    @BeforeEach
    void simulated() {
        sim = TestDriver.freshSim();
    }

    @ParameterizedTest
    @EnumSource(value = NvmlError.class, mode = EnumSource.Mode.EXCLUDE, names = "SUCCESS")
    void eachCodeFromTheDriverBecomesItsTypedException(NvmlError error) {
        sim.command("fault gpu=2 fail=nvmlDeviceGetPowerUsage:" + error.code());

        NvmlException e = assertThrows(NvmlException.class, () -> nvml.powerDrawMilliwatts(TestDriver.A100_40GB));

        assertSame(ExpectedErrors.of(error), e.getClass());
        assertEquals(error, e.error());
        assertEquals("nvmlDeviceGetPowerUsage", e.function());
        assertFalse(e.detail().isBlank(), "nvmlErrorString's text");
        assertEquals(error.hint(), e.hint());
        assertTrue(e.getMessage().startsWith("nvmlDeviceGetPowerUsage: " + error.constantName() + " ("), e.getMessage());
        assertTrue(nvml.powerDrawMilliwatts(TestDriver.H100) > 0, "other GPUs are unaffected");
    }
}
