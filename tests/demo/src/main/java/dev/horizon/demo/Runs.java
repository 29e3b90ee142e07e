package dev.horizon.demo;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.Contract;
import dev.horizon.simulation.SimJob;
import dev.horizon.trace.DemoDayScenario;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The world's side of the jobs: what each truly needs and what it has done, as the processes on the GPUs would know
 * it. The control plane places jobs; this says when a running job's work is done (its agents then report it) and
 * what a job keeps when it is stopped early (all but its checkpoint when it can resume, nothing otherwise), the rules
 * the simulator applies. Times are seconds since the day began.
 */
final class Runs {
    private static final Pattern SLICE = Pattern.compile("(.+)\\[(\\d+)-(\\d+)(?::([^\\]]+))?\\]");

    /** A run under way: since when, at what rate work is done (GPUs or replicas held), what share of GPUs it holds. */
    record Run(long start, int units, double gpuFraction, String node, String placement, boolean fill) {
    }

    /** One job: what it needs, what it has done and kept, its run if it runs, when it first started (null: never). */
    static final class Job {
        final SimJob truth;
        final String id;
        double done;
        Run run;
        Long firstStart;
        /** The planned start (seconds of the day) the first plan that gave it one said, while it waited. */
        Long firstPlannedStart;

        Job(SimJob truth, String id) {
            this.truth = truth;
            this.id = id;
        }

        /** When the running job's work is done, in whole seconds (never before now). */
        long endsAt() {
            return run.start + (long) Math.ceil(Math.max(0, truth.work() - done) / run.units);
        }
    }

    /** What an observation found: jobs that began a run, and runs that ended without finishing (preempted or evicted). */
    record Changes(List<Job> started, List<Job> stopped) {
        boolean any() {
            return !started.isEmpty() || !stopped.isEmpty();
        }
    }

    private final Map<String, Job> byId = new HashMap<>();
    private final long dayStartSeconds;
    private double batchGpuSeconds;
    private double lostGpuSeconds;
    private int preemptions;
    private int completed;

    Runs(long dayStartSeconds) {
        this.dayStartSeconds = dayStartSeconds;
    }

    void submitted(SimJob truth, String id) {
        byId.put(id, new Job(truth, id));
    }

    List<Job> all() {
        return List.copyOf(byId.values());
    }

    List<Job> running() {
        return byId.values().stream().filter(j -> j.run != null).toList();
    }

    /** The control plane's running jobs (GET /api/v1/jobs?state=RUNNING) at t: runs begun and runs cut short since the last look. */
    Changes observe(List<JsonNode> runningJobs, long t) {
        Map<String, JsonNode> now = new HashMap<>();
        for (JsonNode j : runningJobs) now.put(j.get("id").asText(), j);
        List<Job> stopped = new ArrayList<>(), started = new ArrayList<>();
        for (Job j : byId.values()) {
            JsonNode seen = now.get(j.id);
            long startedAt = seen == null ? -1 : ControlPlane.seconds(seen, "startedAt") - dayStartSeconds;
            if (j.run != null && (seen == null || startedAt != j.run.start)) {
                stop(j, t);
                stopped.add(j);
            }
            if (seen != null && j.run == null) {
                j.run = run(seen, startedAt);
                if (j.firstStart == null) j.firstStart = startedAt;
                started.add(j);
            }
        }
        return new Changes(started, stopped);
    }

    /** The waiting jobs as the control plane lists them (GET /api/v1/jobs?state=PENDING): the first planned start each was given. */
    void planned(List<JsonNode> pendingJobs) {
        for (JsonNode p : pendingJobs) {
            Job j = byId.get(p.get("id").asText());
            if (j != null && j.firstStart == null && j.firstPlannedStart == null && p.hasNonNull("plannedStart")) {
                j.firstPlannedStart = ControlPlane.seconds(p, "plannedStart") - dayStartSeconds;
            }
        }
    }

    /** Jobs whose first start came within a planning step of the start the plan first gave them. */
    long startedAsPlanned() {
        return byId.values().stream().filter(j -> j.firstStart != null && j.firstPlannedStart != null
                && Math.abs(j.firstStart - j.firstPlannedStart) <= DemoDayScenario.STEP_SECONDS).count();
    }

    /** Of those, the ones planned at least a step after they arrived: they waited, and started when the plan said. */
    long waitedThenStartedAsPlanned() {
        return byId.values().stream().filter(j -> j.firstStart != null && j.firstPlannedStart != null
                && Math.abs(j.firstStart - j.firstPlannedStart) <= DemoDayScenario.STEP_SECONDS
                && j.firstPlannedStart - j.truth.arrivalSeconds() >= DemoDayScenario.STEP_SECONDS).count();
    }

    /** The running jobs whose work is done by t. */
    List<Job> doneBy(long t) {
        return running().stream().filter(j -> j.endsAt() <= t).toList();
    }

    /** The next time a running job's work is done, or Long.MAX_VALUE. */
    long nextEnd() {
        return running().stream().mapToLong(Job::endsAt).min().orElse(Long.MAX_VALUE);
    }

    /** The job's agents reported it done at t. */
    void finished(Job j, long t) {
        batchGpuSeconds += (t - j.run.start) * j.run.gpuFraction;
        j.done = j.truth.work();
        j.run = null;
        completed++;
    }

    /** Batch GPU-seconds held up to t whose work was kept (runs still going count up to t). */
    double keptGpuSeconds(long t) {
        double going = 0;
        for (Job j : running()) going += (t - j.run.start) * j.run.gpuFraction;
        return batchGpuSeconds + going - lostGpuSeconds;
    }

    /** Jobs submitted that neither run nor are done. */
    long waiting() {
        return byId.values().stream().filter(j -> j.run == null && j.done < j.truth.work()).count();
    }

    int preemptions() {
        return preemptions;
    }

    int completed() {
        return completed;
    }

    private void stop(Job j, long t) {
        Run r = j.run;
        long ran = Math.max(0, t - r.start);
        batchGpuSeconds += ran * r.gpuFraction;
        double before = j.done;
        j.done += (double) ran * r.units;
        Contract c = j.truth.contract();
        j.done = c.resumable() ? Math.max(0, j.done - (double) c.checkpointCostSeconds() * r.units) : 0;
        lostGpuSeconds += Math.max(0, before + (double) ran * r.units - j.done) * r.gpuFraction / r.units;
        j.run = null;
        preemptions++;
    }

    private static Run run(JsonNode job, long start) {
        String placement = job.get("placement").asText();
        int units = 0;
        double fraction = 0;
        String node = null;
        for (String part : placement.split("\\+")) {
            Matcher m = SLICE.matcher(part);
            if (!m.matches()) throw new IllegalStateException("the control plane placed " + job.get("id").asText() + " on '" + placement + "', which the demo cannot read");
            if (node == null) node = m.group(1);
            int count = Integer.parseInt(m.group(3)) - Integer.parseInt(m.group(2)) + 1;
            units += count;
            fraction += m.group(4) == null ? count : sliceFraction(m.group(4));
        }
        return new Run(start, units, fraction, node, placement, job.path("fill").asBoolean(false));
    }

    /** A MIG instance counts its compute slices of 7 ("3g.40gb@4"), a time-slicing share its milli-GPU ("500m/40779MiB"). */
    static double sliceFraction(String share) {
        if (share.endsWith("MiB") && share.contains("m/")) return Integer.parseInt(share.substring(0, share.indexOf('m'))) / 1000.0;
        return Integer.parseInt(share.substring(0, share.indexOf('g'))) / 7.0;
    }
}
