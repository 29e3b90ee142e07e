package dev.horizon.kubernetes.dra;

import dev.horizon.api.integration.PlannedDevice;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * CEL selectors that match exactly the planned devices among those NVIDIA's DRA driver publishes: whole GPUs and shared
 * GPUs by their {@code uuid}; a MIG instance by its own {@code uuid} where the driver publishes the instance, else (the
 * driver's dynamic MIG, or an instance not yet made) by {@code profile} and {@code parentUUID}. Every attribute is tested
 * with {@code has()} first: a missing one would abort the allocation instead of skipping the device.
 */
final class DeviceSelectors {
    private static final String ATTRIBUTES = "device.attributes[\"" + ResourceSlices.DRIVER + "\"]";

    private DeviceSelectors() {
    }

    /** The selector for the planned devices, or NotReleasable naming the first one the driver does not publish. */
    static String of(List<PlannedDevice> planned, Map<String, List<DraDevice>> published) {
        Set<String> uuids = new LinkedHashSet<>();
        Set<String> migTerms = new LinkedHashSet<>();
        for (PlannedDevice d : planned) {
            List<DraDevice> onNode = published.getOrDefault(d.node(), List.of());
            if (!d.mig()) {
                if (onNode.stream().noneMatch(p -> p.gpu() && d.gpuUuid().equals(p.uuid()))) throw missing(d, "GPU " + d.gpuUuid());
                uuids.add(d.gpuUuid());
            } else if (d.migUuid() != null && onNode.stream().anyMatch(p -> p.mig() && d.migUuid().equals(p.uuid()))) {
                uuids.add(d.migUuid());
            } else if (onNode.stream().anyMatch(p -> p.mig() && d.gpuUuid().equals(p.parentUuid()) && d.migProfile().equals(p.profile()))) {
                migTerms.add("(" + has("profile") + " && " + has("parentUUID") + " && " + ATTRIBUTES + ".profile == " + quote(d.migProfile())
                        + " && " + ATTRIBUTES + ".parentUUID == " + quote(d.gpuUuid()) + ")");
            } else {
                throw missing(d, d.migProfile() + " MIG device on GPU " + d.gpuUuid());
            }
        }
        List<String> terms = new ArrayList<>();
        if (!uuids.isEmpty()) {
            terms.add("(" + has("uuid") + " && " + ATTRIBUTES + ".uuid in [" + uuids.stream().map(DeviceSelectors::quote).collect(Collectors.joining(", "))
                    + "])");
        }
        terms.addAll(migTerms);
        return terms.size() == 1 ? unwrap(terms.get(0)) : String.join(" || ", terms);
    }

    private static NotReleasable missing(PlannedDevice d, String what) {
        return new NotReleasable("the DRA driver publishes no " + what + " on node " + d.node() + " (ResourceSlices of " + ResourceSlices.DRIVER
                + "); released once it does");
    }

    private static String has(String attribute) {
        return "has(" + ATTRIBUTES + "." + attribute + ")";
    }

    private static String unwrap(String term) {
        return term.substring(1, term.length() - 1);
    }

    /** A CEL string literal; UUIDs and profile names hold no quote or backslash, but a stray one must not end the literal. */
    private static String quote(String value) {
        return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
