package dev.horizon.allocator.eta;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.moment.ActiveJob;
import dev.horizon.allocator.moment.ClusterMoment;
import dev.horizon.allocator.moment.ServiceState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Who goes before a waiting job on the GPUs it could use, and why: inference services holding or reserving GPUs, waiting
 * jobs the plan starts no later than it (higher priority, a team owed more under fair share, submitted earlier, or
 * simply fitting sooner), and running jobs on those GPUs until their estimated end. Only ids and teams: names are the
 * service's to show or hide.
 */
public final class Ahead {
    /** At most this many are listed: the ones that matter most come first. */
    public static final int MAX = 10;

    /**
     * One that goes first: its team, its job id or its inference service's name, the GPUs it takes, why, and for a
     * running job when it is estimated to end (epoch seconds; null for the others), so each surface says that time as
     * its reader's clock does.
     */
    public record Entry(String team, String job, String service, int gpus, String reason, Long untilAt) {
    }

    private Ahead() {
    }

    /**
     * Who is ahead of waiting job jobId on moment m, whose planning context ctx (only its running jobs' estimates, its
     * services and its fair share are read) and decision decided the plan. Empty when the job starts now or is not waiting.
     */
    public static List<Entry> of(ClusterMoment m, PlanningContext ctx, Decision decided, String jobId) {
        ActiveJob job = m.jobs().stream().filter(j -> j.id().equals(jobId) && !j.isRunning()).findFirst().orElse(null);
        if (job == null || startsNow(decided, jobId)) return List.of();
        Set<Integer> usable = new HashSet<>();
        for (int n = 0; n < m.nodes().size(); n++) if (accepts(job, m.nodes().get(n).node().gpuModel())) usable.add(n);
        Long planned = decided.plannedStarts().get(jobId);
        List<Entry> out = new ArrayList<>(services(m, ctx, usable));
        out.addAll(queued(m, ctx, decided, job, planned));
        out.addAll(running(m, ctx, usable, planned));
        return List.copyOf(out.subList(0, Math.min(MAX, out.size())));
    }

    private static boolean startsNow(Decision d, String jobId) {
        return d.starts().stream().anyMatch(s -> s.jobId().equals(jobId));
    }

    private static boolean accepts(ActiveJob j, String model) {
        return j.slice() != null ? j.slice().accepts(model) : j.rules().accepts(model);
    }

    /** Services holding GPUs the job could use, or keeping GPUs back for their forecast. */
    private static List<Entry> services(ClusterMoment m, PlanningContext ctx, Set<Integer> usable) {
        List<Entry> out = new ArrayList<>();
        for (ServiceState s : m.services()) {
            boolean holdsUsable = s.held().stream().flatMap(p -> p.slices().stream()).anyMatch(sl -> usable.contains(sl.node()));
            var view = ctx.services().get(s.service().name());
            int gpus = view == null ? s.held().size() : Math.max(view.heldGpus(), view.reservedGpus());
            if (gpus > 0 && (holdsUsable || (view != null && view.reservedGpus() > 0))) {
                out.add(new Entry(s.service().team(), null, s.service().name(), gpus, "GPUs reserved for inference", null));
            }
        }
        return out;
    }

    /** Waiting jobs on models the job accepts that the plan starts no later than it, earliest first. */
    private static List<Entry> queued(ClusterMoment m, PlanningContext ctx, Decision decided, ActiveJob job, Long planned) {
        record Before(ActiveJob j, long at) {
        }
        List<Before> before = new ArrayList<>();
        for (ActiveJob other : m.jobs()) {
            if (other.isRunning() || other.id().equals(job.id()) || !sharesModels(m, job, other)) continue;
            Long at = startsNow(decided, other.id()) ? Long.valueOf(m.now()) : decided.plannedStarts().get(other.id());
            if (at != null && (planned == null || at <= planned)) before.add(new Before(other, at));
        }
        before.sort(Comparator.comparingLong(Before::at));
        Map<String, Integer> ranks = fairShareRanks(ctx);
        return before.stream().map(b -> new Entry(b.j().team(), b.j().id(), null, b.j().gpus(), why(job, b.j(), ranks), null)).toList();
    }

    private static boolean sharesModels(ClusterMoment m, ActiveJob a, ActiveJob b) {
        return m.nodes().stream().map(n -> n.node().gpuModel()).anyMatch(model -> accepts(a, model) && accepts(b, model));
    }

    /** Why other goes before job: the first of priority, fair-share rank, submission order that puts it first. */
    static String why(ActiveJob job, ActiveJob other, Map<String, Integer> ranks) {
        if (other.priority() > job.priority()) return "priority " + Decision.priority(other.priority()) + " over " + Decision.priority(job.priority());
        Integer mine = ranks.get(job.team()), theirs = ranks.get(other.team());
        if (!other.team().equals(job.team()) && mine != null && theirs != null && theirs < mine) {
            return "fair share: team " + other.team() + " is owed more (rank " + theirs + " vs " + mine + ")";
        }
        if (other.arrivalSeconds() < job.arrivalSeconds()) return "submitted earlier";
        return "fits the GPUs free sooner";
    }

    /** Teams by what fair share owes them now, most owed first (rank 1); empty without budgets. */
    static Map<String, Integer> fairShareRanks(PlanningContext ctx) {
        Map<String, Integer> ranks = new HashMap<>();
        if (ctx.fairShare() == null) return ranks;
        List<Map.Entry<String, Double>> owed = new ArrayList<>(ctx.fairShare().owedNow().entrySet());
        owed.sort(Map.Entry.<String, Double>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
        for (int i = 0; i < owed.size(); i++) ranks.put(owed.get(i).getKey(), i + 1);
        return ranks;
    }

    /**
     * Running jobs on GPUs the job could use that end by the end of its planned start's step (a plan places starts by
     * step; all of them when it has none), soonest end first.
     */
    private static List<Entry> running(ClusterMoment m, PlanningContext ctx, Set<Integer> usable, Long planned) {
        List<RunningJob> on = new ArrayList<>();
        for (RunningJob r : ctx.running()) {
            boolean there = r.placement().slices().stream().map(Placement.Slice::node).anyMatch(usable::contains);
            if (there && (planned == null || r.estimatedEndSeconds() <= planned + m.stepSeconds())) on.add(r);
        }
        on.sort(Comparator.comparingLong(RunningJob::estimatedEndSeconds));
        return on.stream().map(r -> new Entry(r.team(), r.id(), null, r.placement().gpuCount(), "running until its estimated end",
                Math.max(m.now(), r.estimatedEndSeconds()))).toList();
    }
}
