package dev.horizon.allocator.model;

import java.util.regex.Pattern;

/**
 * A stored placement ({@link Placement#describe}) as people read it, Slurm's nodelist: "node-1[4]" for one GPU where the
 * store keeps the one-GPU range "node-1[4-4]", which reads as a typo; ranges ("node-1[0-3]"), shares
 * ("node-1[2:3g.40gb@4]") and the "+" between nodes as stored, so the CLI and the web view read the same text. The
 * stored form itself stays: the store, the planner and the agents parse it.
 */
public final class Nodelist {
    private static final Pattern ONE_GPU_RANGE = Pattern.compile("\\[(\\d+)-\\1([:\\]])");

    private Nodelist() {
    }

    /** The placement as people read it; "no GPUs" for none (a job that waits, or whose run ended). */
    public static String of(String placement) {
        if (placement == null) return "no GPUs";
        return ONE_GPU_RANGE.matcher(placement).replaceAll("[$1$2");
    }
}
