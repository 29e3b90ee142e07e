package dev.horizon.service.soak;

import dev.horizon.api.GpuShape;
import dev.horizon.api.JobJson;
import dev.horizon.api.JobSpec;
import dev.horizon.bench.Progress;
import dev.horizon.fairshare.BudgetTree;
import dev.horizon.fairshare.Entitlements;
import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.fairshare.UsageBooking;
import dev.horizon.service.fairshare.UsageStore;
import dev.horizon.service.inference.InferenceStore;
import dev.horizon.service.jobs.JobRow;
import dev.horizon.service.jobs.JobState;
import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.jobs.RunSegments;
import dev.horizon.service.leadership.Leadership;
import dev.horizon.service.nodes.CommandRequest;
import dev.horizon.service.nodes.CommandStore;
import dev.horizon.service.nodes.MemoryViolations;
import dev.horizon.service.retention.Retention;
import dev.horizon.service.store.Db;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.UUID;

/**
 * The soak's history: days of jobs that arrived at a steady rate, ran and finished, written hour by hour through the
 * stores' own write paths (the rows a finished job leaves, its run segment, the duration statistics, the hour's fair-share
 * booking, the inference service's demand every step, a few agent commands and memory violations a day), with retention
 * run at the end of every day as the leader runs it, so the store holds what a cluster that ran that long holds.
 */
@ApplicationScoped
class HistoryFill {
    private static final long HOUR = 3600;
    private static final int COMMANDS_PER_DAY = 20;
    private static final int VIOLATIONS_PER_DAY = 5;

    @Inject
    Db db;
    @Inject
    JobStore jobs;
    @Inject
    InferenceStore inference;
    @Inject
    CommandStore commands;
    @Inject
    MemoryViolations violations;
    @Inject
    Retention retention;
    @Inject
    Leadership leadership;
    @Inject
    ServiceClock clock;

    /** A job of the history: it ran on node from start to end (start null: cancelled before it ran). */
    private record Past(JobRow row, String node, Long start, long end) {
    }

    /** What a fill wrote: the jobs that finished in it and the retention passes' deletions. */
    record Filled(long finishedJobs, long deletedJobs) {
    }

    /**
     * Writes the history of [from, to) (whole hours): jobsPerDay arrivals on the nodes, each team owed by the tree over the
     * cluster's GPUs; service: the inference service whose demand agents report every step.
     */
    Filled fill(long from, long to, int jobsPerDay, List<String> nodes, int clusterGpus, BudgetTree tree, String service, Workload workload,
                Progress progress) {
        long epoch = leadership.epoch();
        PriorityQueue<Past> ending = new PriorityQueue<>((a, b) -> Long.compare(a.end(), b.end()));
        PriorityQueue<Past> starting = new PriorityQueue<>((a, b) -> Long.compare(a.start(), b.start()));
        List<Past> runningNow = new ArrayList<>();
        double perHour = jobsPerDay / 24.0, carried = 0;
        long written = 0, deleted = 0, k = 0;
        int stepsPerHour = Math.max(1, inference.stepsPerDay() / 24);
        for (long hour = from; hour < to; hour += HOUR) {
            carried += perHour;
            for (; carried >= 1; carried--, k++) {
                Past p = arrival(hour + (long) (HOUR * workload.uniform()), workload, nodes.get((int) (k % nodes.size())), epoch);
                ending.add(p);
                if (p.start() != null) starting.add(p);
            }
            long hourEnd = hour + HOUR;
            while (!starting.isEmpty() && starting.peek().start() < hourEnd) runningNow.add(starting.poll());
            List<UsageBooking.Hourly> booked = booking(hour, hourEnd, runningNow, tree, clusterGpus);
            runningNow.removeIf(p -> p.end() < hourEnd);
            List<Past> done = new ArrayList<>();
            while (!ending.isEmpty() && ending.peek().end() < hourEnd) done.add(ending.poll());
            written += writeHour(done, booked, hourEnd, epoch);
            for (int s = 0; s < stepsPerHour; s++) inference.report(service, List.of(demand(hour + s * HOUR / stepsPerHour)), null);
            clock.advanceTo(hourEnd * 1000);
            if ((hourEnd - from) % Retention.DAY == 0) deleted += endOfDay(hourEnd, nodes, epoch, workload);
            progress.show("history", (double) (hourEnd - from) / (to - from));
        }
        return new Filled(written, deleted);
    }

    private Past arrival(long at, Workload workload, String node, long epoch) {
        Workload.Arrival a = workload.next();
        String id = UUID.randomUUID().toString();
        String spec = JobJson.write(new JobSpec("history-" + id.substring(0, 8), a.team(), a.jobClass(), null, 1, null, GpuShape.wholeGpus(a.gpus()),
                null, null, a.estimateSeconds(), null, null));
        double outcome = workload.uniform();
        long start = at + (long) (600 * workload.uniform());
        if (outcome < 0.03) {
            JobRow row = row(id, a, spec, JobState.CANCELLED, at, null, start, null, 0, epoch);
            return new Past(row, node, null, start);
        }
        boolean failed = outcome < 0.10;
        long ran = failed ? Math.max(1, (long) (a.trueSeconds() * workload.uniform())) : a.trueSeconds();
        String placement = node + "[0-" + (a.gpus() - 1) + "]";
        JobRow row = row(id, a, spec, failed ? JobState.FAILED : JobState.SUCCEEDED, at, start, start + ran, placement, ran * a.gpus(), epoch);
        return new Past(row, node, start, start + ran);
    }

    private static JobRow row(String id, Workload.Arrival a, String spec, JobState state, long submitted, Long started, long ended, String placement,
                              long doneGpuSeconds, long epoch) {
        return JobRow.builder().id(id).name("history-" + id.substring(0, 8)).team(a.team()).jobClass(a.jobClass()).priority(1).gpus(a.gpus())
                .minGpus(a.gpus()).spec(spec).state(state).submittedAt(submitted * 1000).startedAt(started).endedAt(ended).placement(placement)
                .leaderEpoch(epoch).doneGpuSeconds(doneGpuSeconds).build();
    }

    /** The hour's fair-share booking: what each team's runs held in it, and what the tree owed each for the GPUs it asked. */
    private static List<UsageBooking.Hourly> booking(long hour, long hourEnd, List<Past> running, BudgetTree tree, int clusterGpus) {
        List<UsageBooking.Held> held = new ArrayList<>();
        Map<String, Double> asked = new HashMap<>();
        for (Past p : running) {
            if (p.end() <= hour) continue;
            held.add(new UsageBooking.Held(p.row().team(), p.row().gpus(), p.start(), p.end()));
            asked.merge(p.row().team(), (double) p.row().gpus(), Double::sum);
        }
        return UsageBooking.book(hour, hourEnd, held, Entitlements.owed(tree, clusterGpus, asked));
    }

    /** One transaction: the jobs that finished in the hour, their runs, and the hour's booking, fenced as the leader writes. */
    private int writeHour(List<Past> done, List<UsageBooking.Hourly> booked, long hourEnd, long epoch) {
        return db.inTransactionRetrying(c -> {
            leadership.fence(c, epoch);
            jobs.importFinished(c, done.stream().map(Past::row).toList(), hourEnd);
            List<RunSegments.Closed> runs = new ArrayList<>();
            for (Past p : done) {
                if (p.start() == null) continue;
                runs.add(new RunSegments.Closed(new RunSegments.Opening(p.row().id(), p.row().team(), p.node(), p.row().gpus(), p.start(),
                        p.row().placement(), false), p.end(),
                        p.row().state().name()));
            }
            RunSegments.importClosed(c, runs, epoch);
            UsageStore.book(c, booked, hourEnd, Map.of());
            return done.size();
        });
    }

    /** The day's answered agent commands and memory violations, then retention as the leader runs it; returns the jobs it deleted. */
    private long endOfDay(long dayEnd, List<String> nodes, long epoch, Workload workload) {
        for (int i = 0; i < COMMANDS_PER_DAY; i++) {
            String node = nodes.get((int) (workload.uniform() * nodes.size()));
            long at = (dayEnd - Retention.DAY + (long) (workload.uniform() * Retention.DAY)) * 1000;
            var queued = commands.insert(node, new CommandRequest(null, null, new CommandRequest.Drain("soak")), at, epoch);
            commands.finish(queued.id(), true, null, at + 2000);
        }
        for (int i = 0; i < VIOLATIONS_PER_DAY; i++) {
            String node = nodes.get((int) (workload.uniform() * nodes.size()));
            long at = (dayEnd - Retention.DAY + (long) (workload.uniform() * Retention.DAY)) * 1000;
            violations.record(new MemoryViolations.Violation(node, "GPU-" + node + "-0", 4242, "python", 82_000, 40_000, "500m/40000MiB", "KILLED", at, null));
        }
        return retention.run(dayEnd).jobs();
    }

    /** A daily demand curve for the inference service: 2 GPUs at night, 12 at the afternoon peak. */
    static double demand(long at) {
        double hourOfDay = (at % Retention.DAY) / 3600.0;
        return Math.round(2 + 10 * Math.exp(-Math.pow((hourOfDay - 15) / 4, 2)));
    }
}
