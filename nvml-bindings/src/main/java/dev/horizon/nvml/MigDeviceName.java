package dev.horizon.nvml;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A MIG device named the way R450-R465 drivers named it, {@code MIG-GPU-<GPU uuid>/<GPU instance>/<compute instance>}:
 * the name says where the device is. Since R470 a MIG device is {@code MIG-<uuid>}, which says nothing; CUDA and the
 * device plugins accept both, so the bindings do too.
 */
record MigDeviceName(String gpuUuid, int gpuInstanceId, int computeInstanceId) {
    private static final Pattern LEGACY = Pattern.compile("MIG-(GPU-[0-9a-fA-F-]+)/(\\d{1,2})/(\\d{1,2})");

    /** The legacy name's parts; empty for a MIG-<uuid> name or anything else. */
    static Optional<MigDeviceName> parseLegacy(String uuid) {
        Matcher m = LEGACY.matcher(uuid == null ? "" : uuid.strip());
        if (!m.matches()) return Optional.empty();
        return Optional.of(new MigDeviceName(m.group(1), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))));
    }
}
