package dev.horizon.nvml;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A test with an open NVML session; the simulated driver (if that is the one) starts from its initial state. */
abstract class SessionTest {
    protected NvmlSession nvml;

    @BeforeEach
    void openSession() {
        TestDriver.resetIfSimulated();
        nvml = NvmlSession.open();
    }

    @AfterEach
    void closeSession() {
        if (nvml != null) nvml.close();
    }
}
