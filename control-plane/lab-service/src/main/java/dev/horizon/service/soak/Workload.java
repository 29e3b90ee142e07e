package dev.horizon.service.soak;

import dev.horizon.api.JobClass;
import java.util.List;
import java.util.Random;

/**
 * The soak's jobs, from a seed: steady arrivals of training, batch inference, quantization and debug work from a few teams,
 * each with a true duration (log-normal around its class's median) and, for half of them, the user's own estimate (off by
 * up to 2x either way). About 6 GPU-hours a job on average: at 5,000 jobs a day on 200 8-GPU nodes, the cluster runs
 * at about four fifths of its GPU-hours.
 */
final class Workload {
    /** A job as it arrives: estimateSeconds is null when the user gave none (the planner estimates it from the team's runs). */
    record Arrival(String team, JobClass jobClass, int gpus, long trueSeconds, Long estimateSeconds) {
    }

    private record Kind(JobClass jobClass, double share, int[] gpus, long medianSeconds) {
    }

    private static final List<Kind> KINDS = List.of(
            new Kind(JobClass.TRAINING, 0.25, new int[] {1, 2, 4, 4, 8, 8}, 4 * 3600),
            new Kind(JobClass.BATCH_INFERENCE, 0.35, new int[] {1, 1, 2}, 3600),
            new Kind(JobClass.QUANTIZATION, 0.15, new int[] {1}, 1800),
            new Kind(JobClass.DEBUG, 0.25, new int[] {1}, 600));
    private static final double SIGMA = 0.8;

    private final Random random;
    private final List<String> teams;

    Workload(long seed, List<String> teams) {
        this.random = new Random(seed);
        this.teams = teams;
    }

    Arrival next() {
        double pick = random.nextDouble();
        Kind kind = KINDS.get(KINDS.size() - 1);
        for (Kind k : KINDS) {
            if (pick < k.share()) {
                kind = k;
                break;
            }
            pick -= k.share();
        }
        long seconds = Math.max(60, Math.round(kind.medianSeconds() * Math.exp(SIGMA * random.nextGaussian())));
        Long estimate = random.nextBoolean() ? Math.max(60, Math.round(seconds * Math.pow(2, 2 * random.nextDouble() - 1))) : null;
        return new Arrival(teams.get(random.nextInt(teams.size())), kind.jobClass(), kind.gpus()[random.nextInt(kind.gpus().length)], seconds, estimate);
    }

    /** A uniform draw in [0, 1), for the history's waits and outcomes. */
    double uniform() {
        return random.nextDouble();
    }
}
