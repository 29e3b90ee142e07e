package dev.horizon.service.jobs;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.GpuShare;
import dev.horizon.allocator.model.Placement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Placements are stored by node name ("node-1[0-3]+node-2[0-7]", the allocator's own form), not by
 * node index, because the index changes when nodes join or leave. A slice of one GPU adds its share:
 * "node-1[2-2:3g.40gb@4]" (a MIG instance) or "node-1[2-2:500m/20000MiB]" (a time-slicing share).
 */
public final class Placements {
    private static final Pattern SLICE = Pattern.compile("(.+)\\[(\\d+)-(\\d+)(?::([^\\]]+))?\\]");

    private Placements() {
    }

    /** One part of a stored placement: GPUs first to last (NVML's indexes) of node, with the share of a slice (null for whole GPUs). */
    public record Part(String node, int first, int last, GpuShare share) {
    }

    /** The parts of a stored placement in its order; a part that does not parse is left out. */
    public static List<Part> parts(String placement) {
        List<Part> parts = new ArrayList<>();
        for (String part : placement.split("\\+")) {
            Matcher m = SLICE.matcher(part);
            if (m.matches()) {
                parts.add(new Part(m.group(1), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)), m.group(4) == null ? null : GpuShare.parse(m.group(4))));
            }
        }
        return parts;
    }

    /** Whether a stored placement holds GPU gpuIndex (NVML's index, the order the node lists its GPUs in) of node. */
    public static boolean holds(String placement, String node, int gpuIndex) {
        return parts(placement).stream().anyMatch(p -> p.node().equals(node) && p.first() <= gpuIndex && gpuIndex <= p.last());
    }

    /** GPUs a stored placement holds, a slice of one GPU counted as one (as {@link Placement#gpus()} counts it). */
    public static int gpuCount(String placement) {
        int n = 0;
        for (String part : placement.split("\\+")) {
            Matcher m = SLICE.matcher(part);
            if (m.matches()) n += Integer.parseInt(m.group(3)) - Integer.parseInt(m.group(2)) + 1;
        }
        return n;
    }

    /** Whether a stored placement puts any of the job on node. */
    public static boolean usesNode(String placement, String node) {
        for (String part : placement.split("\\+")) {
            Matcher m = SLICE.matcher(part);
            if (m.matches() && m.group(1).equals(node)) return true;
        }
        return false;
    }

    /** The placement on the current cluster, or null when a node it used is gone or smaller now. */
    public static Placement parse(String text, Cluster cluster, Map<String, Integer> nodeIndex) {
        List<Placement.Slice> slices = new ArrayList<>();
        for (String part : text.split("\\+")) {
            Matcher m = SLICE.matcher(part);
            if (!m.matches()) return null;
            Integer node = nodeIndex.get(m.group(1));
            int first = Integer.parseInt(m.group(2));
            int count = Integer.parseInt(m.group(3)) - first + 1;
            if (node == null || first + count > cluster.nodes().get(node).gpus()) return null;
            GpuShare share = m.group(4) == null ? null : GpuShare.parse(m.group(4));
            if (m.group(4) != null && (share == null || count != 1)) return null;
            slices.add(new Placement.Slice(node, first, count, share));
        }
        return new Placement(slices);
    }
}
