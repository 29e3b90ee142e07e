package dev.horizon.allocator.model;

import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;

/**
 * A job waiting for GPUs, as planners see it: only estimates of its remaining work, never the
 * true duration. estimatedRemainingSeconds: the typical remaining run (from the median), which plans
 * schedule by; expectedRemainingSeconds: the mean remaining run up to the horizon, what starting it sooner
 * is worth (heavy-tailed runs: the median leaves out the long runs that do most of the work). slice is
 * null for whole-GPU work; for fractional work gpus counts replicas, each taking one slice of one GPU.
 * rules: where its GPUs may be (models, replica width, topology).
 */
public record PendingJob(String id, String team, JobClass jobClass, double weight, int gpus, int minGpus, long arrivalSeconds,
                         long estimatedRemainingSeconds, long expectedRemainingSeconds, Contract contract, SliceRequest slice, PlacementRules rules) {
    public PendingJob {
        rules = rules == null ? PlacementRules.ANY : rules;
    }

    /**
     * A job built by naming what it sets. Unset: minGpus is gpus (a rigid job), rules are any GPU the slice's types allow
     * (any GPU for whole-GPU work), weight, arrival and estimate 0, the rest null.
     */
    public static Builder builder() {
        return new Builder();
    }

    /** The same job with another weight (fair share re-weights jobs). */
    public PendingJob withWeight(double newWeight) {
        return new PendingJob(id, team, jobClass, newWeight, gpus, minGpus, arrivalSeconds, estimatedRemainingSeconds, expectedRemainingSeconds, contract, slice, rules);
    }

    /** The same job with other placement rules. */
    public PendingJob withRules(PlacementRules newRules) {
        return new PendingJob(id, team, jobClass, weight, gpus, minGpus, arrivalSeconds, estimatedRemainingSeconds, expectedRemainingSeconds, contract, slice, newRules);
    }

    /** Sizes an elastic job may start with, widest first (see {@link PlacementRules#widths}). */
    public java.util.List<Integer> allowedSizes() {
        return rules.widths(gpus, minGpus);
    }

    /**
     * GPUs the job holds when it runs, for quota and fair share: whole GPUs as they are; a slice by its size, a MIG
     * instance by its compute slices of 7 (a 1g.10gb on an H100 is 1/7 of a GPU, whatever its memory share) and a
     * time-slicing share by its milli-GPU.
     */
    public double gpuFraction() {
        return slice == null ? gpus : gpus * slice.gpuFraction();
    }

    /** Builds a PendingJob field by field, so that a call site says which of the 12 it sets (unset: the expected remaining run is the estimate). */
    public static final class Builder {
        private String id;
        private String team;
        private JobClass jobClass;
        private double weight;
        private int gpus;
        private Integer minGpus;
        private long arrivalSeconds;
        private long estimatedRemainingSeconds;
        private Long expectedRemainingSeconds;
        private Contract contract;
        private SliceRequest slice;
        private PlacementRules rules;

        private Builder() {
        }

        public Builder id(String id) {
            this.id = id;
            return this;
        }

        public Builder team(String team) {
            this.team = team;
            return this;
        }

        public Builder jobClass(JobClass jobClass) {
            this.jobClass = jobClass;
            return this;
        }

        public Builder weight(double weight) {
            this.weight = weight;
            return this;
        }

        /** The GPUs (or, for fractional work, replicas) it asks for; it may not start narrower unless minGpus says so. */
        public Builder gpus(int gpus) {
            this.gpus = gpus;
            return this;
        }

        public Builder minGpus(int minGpus) {
            this.minGpus = minGpus;
            return this;
        }

        public Builder arrivalSeconds(long arrivalSeconds) {
            this.arrivalSeconds = arrivalSeconds;
            return this;
        }

        public Builder estimatedRemainingSeconds(long estimatedRemainingSeconds) {
            this.estimatedRemainingSeconds = estimatedRemainingSeconds;
            return this;
        }

        public Builder expectedRemainingSeconds(long expectedRemainingSeconds) {
            this.expectedRemainingSeconds = expectedRemainingSeconds;
            return this;
        }

        public Builder contract(Contract contract) {
            this.contract = contract;
            return this;
        }

        public Builder slice(SliceRequest slice) {
            this.slice = slice;
            return this;
        }

        public Builder rules(PlacementRules rules) {
            this.rules = rules;
            return this;
        }

        public PendingJob build() {
            PlacementRules placedBy = rules != null ? rules
                    : slice == null ? PlacementRules.ANY : PlacementRules.ANY.withGpuTypes(slice.gpuTypes());
            return new PendingJob(id, team, jobClass, weight, gpus, minGpus == null ? gpus : minGpus, arrivalSeconds,
                    estimatedRemainingSeconds, expectedRemainingSeconds == null ? estimatedRemainingSeconds : expectedRemainingSeconds, contract, slice, placedBy);
        }
    }
}
