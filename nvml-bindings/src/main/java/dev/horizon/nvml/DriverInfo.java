package dev.horizon.nvml;

/**
 * The driver behind the session.
 *
 * @param cudaDriverVersion the CUDA version the driver supports, e.g. "12.4"
 * @param simulated true for Horizon's simulated libnvidia-ml
 * @param simulation what the simulated driver simulates ("2xH100-80GB state=..."), null for a real driver
 * @param libraryFile the libnvidia-ml file loaded
 */
public record DriverInfo(String driverVersion, String nvmlVersion, String cudaDriverVersion, boolean simulated,
                         String simulation, String libraryFile) {}
