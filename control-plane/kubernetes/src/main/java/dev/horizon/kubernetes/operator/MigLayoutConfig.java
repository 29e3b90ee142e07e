package dev.horizon.kubernetes.operator;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The MIG layout of every GPU of one node (gpuCount of them), as a mig-parted config holds it: for each GPU index (NVML's)
 * with MIG on, the number of instances of each profile; MIG off on the others. mig-parted creates instances by count and
 * picks their placements itself; the agent reports where they landed. Named by its content, so one layout is one named
 * config however many nodes use it.
 */
public record MigLayoutConfig(int gpuCount, SortedMap<Integer, SortedMap<String, Integer>> gpus) {
    public static final String PREFIX = "horizon-";

    public MigLayoutConfig {
        SortedMap<Integer, SortedMap<String, Integer>> copy = new TreeMap<>();
        gpus.forEach((gpu, counts) -> {
            if (gpu < 0 || gpu >= gpuCount) throw new IllegalArgumentException("GPU " + gpu + " is not one of the node's " + gpuCount);
            copy.put(gpu, new TreeMap<>(counts));
        });
        gpus = copy;
    }

    /** Every GPU with MIG off. */
    public static MigLayoutConfig off(int gpuCount) {
        return new MigLayoutConfig(gpuCount, new TreeMap<>());
    }

    /** This layout with one GPU's instances replaced; an empty map keeps MIG on with no instances, null turns it off. */
    public MigLayoutConfig with(int gpu, Map<String, Integer> counts) {
        SortedMap<Integer, SortedMap<String, Integer>> next = new TreeMap<>(gpus);
        if (counts == null) next.remove(gpu);
        else next.put(gpu, new TreeMap<>(counts));
        return new MigLayoutConfig(gpuCount, next);
    }

    /** The config's name in the mig-parted ConfigMap and in the node's nvidia.com/mig.config label (at most 63 characters). */
    public String name() {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest((gpuCount + " GPUs " + gpus).getBytes(StandardCharsets.UTF_8));
            return PREFIX + HexFormat.of().formatHex(hash).substring(0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
