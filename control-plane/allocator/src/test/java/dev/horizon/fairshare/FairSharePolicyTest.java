package dev.horizon.fairshare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.PlanningContext;
import dev.horizon.allocator.actions.FairShareWeights;
import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The fair-share rules of the contract, checked on single planning decisions. */
class FairSharePolicyTest {
    static final long NOW = 100_000;
    private final Cluster cluster = Cluster.homogeneous(16, 8, "H100-80GB", 81_559);
    private final BudgetTree tree = new BudgetTree(List.of(new BudgetTree.Budget("a", null, 0.5), new BudgetTree.Budget("b", null, 0.5)));
    private final Contract training = new Contract(1800, true, 120);

    private RunningJob running(Occupancy o, String id, String team, int gpus, long startedAgo) {
        return running(o, id, team, gpus, startedAgo, 1);
    }

    private RunningJob running(Occupancy o, String id, String team, int gpus, long startedAgo, double priority) {
        Placement p = o.findBlock(gpus);
        o.occupy(p);
        return new RunningJob(id, team, JobClass.TRAINING, priority, gpus, NOW - startedAgo, NOW - startedAgo, NOW + 7200, training, p, false);
    }

    private PendingJob pending(String id, String team, int gpus, double priority) {
        return pending(id, team, gpus, priority, NOW - 60);
    }

    private PendingJob pending(String id, String team, int gpus, double priority, long arrival) {
        return PendingJob.builder().id(id).team(team).jobClass(JobClass.TRAINING).weight(priority).gpus(gpus).arrivalSeconds(arrival)
                .estimatedRemainingSeconds(3600).contract(training).build();
    }

    private PlanningContext ctx(Occupancy o, List<RunningJob> running, List<PendingJob> pending, Map<String, Double> owed) {
        return ctx(o, running, pending, owed, Map.of("a", 1.0, "b", 1.0));
    }

    private PlanningContext ctx(Occupancy o, List<RunningJob> running, List<PendingJob> pending, Map<String, Double> owed,
                                Map<String, Double> windowRatio) {
        return ctx(o, running, pending, owed, windowRatio, tree);
    }

    private PlanningContext ctx(Occupancy o, List<RunningJob> running, List<PendingJob> pending, Map<String, Double> owed,
                                Map<String, Double> windowRatio, BudgetTree budgets) {
        FairShareView view = new FairShareView(budgets, owed, windowRatio);
        return new PlanningContext(NOW, 900, 16, cluster, o, running, pending, Map.of(), view);
    }

    @Test
    void fillYieldsToABudgetedRequestButNothingInsideItsMinimumRuntimeDoes() {
        Occupancy o = new Occupancy(cluster);
        // team a holds the whole cluster; it is owed 8, so 8 of its GPUs run as unallocated fill
        List<RunningJob> run = List.of(running(o, "a-old", "a", 8, 7200), running(o, "a-young", "a", 8, 3600));
        Decision d = new HorizonPolicy().decide(ctx(o, run, List.of(pending("b-1", "b", 8, 1)), Map.of("a", 8.0, "b", 8.0)));
        assertEquals(List.of("a-young"), d.preemptions(), "the newest of a's work is beyond its share: fill, never protected");
        assertEquals("b-1", d.starts().get(0).jobId());
        assertFalse(d.starts().get(0).fill(), "b's job is inside its owed share: budgeted, protected");
        Occupancy early = new Occupancy(cluster);
        List<RunningJob> young = List.of(running(early, "a-old", "a", 8, 7200), running(early, "a-young", "a", 8, 60));
        Decision keeps = new HorizonPolicy().decide(ctx(early, young, List.of(pending("b-1", "b", 8, 1)), Map.of("a", 8.0, "b", 8.0)));
        assertFalse(keeps.preemptions().contains("a-young"), "work beyond its share keeps its contract: not inside its minimum runtime");
    }

    @Test
    void budgetedWorkInsideItsMinimumRuntimeIsNeverPreempted() {
        Occupancy o = new Occupancy(cluster);
        List<RunningJob> run = List.of(running(o, "a-1", "a", 8, 60), running(o, "b-1", "b", 8, 60));
        Decision d = new HorizonPolicy().decide(ctx(o, run, List.of(pending("b-2", "b", 8, 3)), Map.of("a", 8.0, "b", 8.0)));
        assertTrue(d.preemptions().isEmpty());
        assertTrue(d.starts().isEmpty());
    }

    @Test
    void inflatingEveryPriorityInOneTeamDoesNotMoveAnotherTeamsShare() {
        Set<String> honest = startedOf("b", 1);
        Set<String> inflated = startedOf("b", 99);
        Set<String> aHonest = honest.stream().filter(id -> id.startsWith("a")).collect(Collectors.toSet());
        Set<String> aInflated = inflated.stream().filter(id -> id.startsWith("a")).collect(Collectors.toSet());
        assertEquals(aHonest, aInflated, "team a gets the same GPUs whatever priorities team b sets");
        assertEquals(4, aHonest.size(), "a runs its owed 8 GPUs as four 2-GPU jobs");
    }

    private Set<String> startedOf(String inflatingTeam, double priority) {
        Occupancy o = new Occupancy(cluster);
        List<PendingJob> waiting = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            waiting.add(pending("a-" + i, "a", 2, 1 + i % 3));
            waiting.add(pending("b-" + i, "b", 2, inflatingTeam.equals("b") ? priority : 1 + i % 3));
        }
        Decision d = new HorizonPolicy().decide(ctx(o, List.of(), waiting, Map.of("a", 8.0, "b", 8.0)));
        return d.starts().stream().filter(s -> !s.fill()).map(Decision.Start::jobId).collect(Collectors.toSet());
    }

    @Test
    void aDrainedNodeGetsNoNewWorkAndItsWorkLeavesAfterItsMinimumRuntime() {
        Occupancy o = new Occupancy(cluster);
        List<RunningJob> run = List.of(running(o, "old", "a", 2, 7200), running(o, "young", "a", 2, 60));
        int drainedNode = run.get(0).placement().slices().get(0).node();
        o.drain(drainedNode);
        List<PendingJob> waiting = List.of(pending("b-1", "b", 4, 1), pending("b-2", "b", 4, 1));
        Decision d = new HorizonPolicy().decide(ctx(o, run, waiting, Map.of("a", 8.0, "b", 8.0)));
        assertEquals(List.of("old"), d.preemptions(), "past its minimum runtime, work moves off the drained node");
        for (Decision.Start s : d.starts()) {
            assertTrue(s.placement().slices().stream().noneMatch(sl -> sl.node() == drainedNode), s.jobId() + " landed on the drained node");
        }
        assertEquals(2, d.starts().size());
    }

    @Test
    void aTeamBehindOverTheWindowBudgetsBeyondItsShareUntilItCatchesUp() {
        List<PendingJob> waiting = List.of(pending("a-1", "a", 8, 1), pending("a-2", "a", 2, 1));
        Map<String, Double> owed = Map.of("a", 8.0, "b", 8.0);
        Set<String> onPar = budgetedOf(waiting, owed, Map.of("a", 1.0, "b", 1.0));
        Set<String> behind = budgetedOf(waiting, owed, Map.of("a", 0.85, "b", 1.0));
        assertEquals(Set.of("a-1"), onPar, "on par, a's owed 8 GPUs hold one 8-GPU job; its 2-GPU job is fill");
        assertEquals(Set.of("a-1", "a-2"), behind, "15% behind, a may reach 30% past its share: both jobs are budgeted");
    }

    private Set<String> budgetedOf(List<PendingJob> waiting, Map<String, Double> owed, Map<String, Double> ratio) {
        FairShareWeights.Weighted w = FairShareWeights.apply(ctx(new Occupancy(cluster), List.of(), waiting, owed, ratio));
        return waiting.stream().map(PendingJob::id).filter(id -> !w.fillOnly().contains(id)).collect(Collectors.toSet());
    }

    @Test
    void aTeamsShareRunsItsMostValuableWorkSoItsUrgentJobTakesTheGpusOfItsOwnLowPriorityWork() {
        Occupancy o = new Occupancy(cluster);
        List<RunningJob> run = List.of(running(o, "a-low", "a", 8, 7200), running(o, "b-1", "b", 8, 7200));
        List<PendingJob> waiting = List.of(pending("a-urgent", "a", 8, 8));
        Map<String, Double> owed = Map.of("a", 8.0, "b", 8.0);
        FairShareWeights.Weighted w = FairShareWeights.apply(ctx(o, run, waiting, owed));
        assertFalse(w.fillOnly().contains("a-urgent"), "a's owed 8 GPUs go to its priority-8 job first");
        RunningJob low = w.context().running().stream().filter(r -> r.id().equals("a-low")).findFirst().orElseThrow();
        double urgent = w.context().pending().get(0).weight();
        assertTrue(Math.floor(urgent) == Math.floor(low.weight()) + 1 && !low.fill(),
                "a's priority-1 job is beyond a's share once the urgent job counts: one unit below it, still protected from fill's fate");
        Decision d = new HorizonPolicy().decide(ctx(o, run, waiting, owed));
        assertEquals(List.of("a-low"), d.preemptions(), "the urgent job takes its own team's low-priority GPUs, nobody else's");
        assertEquals("a-urgent", d.starts().get(0).jobId());
    }

    @Test
    void aTeamsMostValuableJobWiderThanItsRoomIsBudgetedAheadOfItsCheaperWork() {
        List<PendingJob> waiting = List.of(pending("a-wide", "a", 8, 8), pending("a-small", "a", 2, 1));
        Set<String> budgeted = budgetedOf(waiting, Map.of("a", 4.0, "b", 8.0), Map.of("a", 1.0, "b", 1.0));
        assertEquals(Set.of("a-wide"), budgeted, "a's 4 owed GPUs go to its priority-8 job, however wide, not to its priority-1 job");
    }

    @Test
    void idleGpusAreLentToTheMostUnderServedTeamFirstWhateverPrioritiesSay() {
        Occupancy o = new Occupancy(cluster);
        // both teams already run what they are owed (a's share on work as urgent as its waiting job); 4 GPUs stand idle for fill
        List<RunningJob> run = List.of(running(o, "a-run", "a", 8, 7200, 99), running(o, "b-run", "b", 4, 7200));
        List<PendingJob> waiting = List.of(pending("a-fill", "a", 4, 99), pending("b-fill", "b", 4, 1));
        Map<String, Double> owed = Map.of("a", 8.0, "b", 4.0);
        Decision d = new HorizonPolicy().decide(ctx(o, run, waiting, owed, Map.of("a", 1.2, "b", 0.9)));
        assertEquals(List.of("b-fill"), d.starts().stream().map(Decision.Start::jobId).toList(),
                "b is behind over the window, so the idle block goes to b although a's job claims priority 99");
        assertTrue(d.starts().get(0).fill());
    }

    @Test
    void agedWorkTakesItsTeamsRoomAheadOfNewerWorkOnlyOnceItHasWaitedADoubling() {
        long hour = 3600;
        PendingJob old = pending("a-old", "a", 2, 1, NOW - 13 * hour);
        PendingJob fresh = pending("a-new", "a", 2, 2);
        PendingJob other = pending("b-1", "b", 2, 1, NOW - 40 * hour);
        List<PendingJob> waiting = List.of(old, fresh, other);
        Map<String, Double> owed = Map.of("a", 2.0, "b", 14.0);
        Map<String, Double> even = Map.of("a", 1.0, "b", 1.0);
        FairShareWeights.Weighted off = FairShareWeights.apply(ctx(new Occupancy(cluster), List.of(), waiting, owed, even));
        assertEquals(Set.of("a-old"), off.fillOnly(), "without ageing a's 2 owed GPUs go to its priority-2 job, however long the other waited");
        FairShareWeights.Weighted aged = FairShareWeights.apply(ctx(new Occupancy(cluster), List.of(), waiting, owed, even, tree.withAgeDoubling(12 * hour)));
        assertEquals(Set.of("a-new"), aged.fillOnly(),
                "13 h waited ranks the priority-1 job as priority 2 in a's budget, where the older job of a class goes first");
        FairShareWeights.Weighted early = FairShareWeights.apply(ctx(new Occupancy(cluster), List.of(), waiting, owed, even, tree.withAgeDoubling(14 * hour)));
        assertEquals(Set.of("a-old"), early.fillOnly(), "before its first doubling a job ranks by its own priority");
        double oldWeight = aged.context().pending().get(0).weight();
        double newWeight = off.context().pending().get(1).weight();
        assertEquals(newWeight - 0.9 * 2 / 3 + 0.9 / 2, oldWeight, 1e-9,
                "ageing moves a job into its team's budget; the job still weighs its own priority there, as output credits it");
    }

    @Test
    void aWaitReasonSaysWhereTheWaitHasRankedTheJobAndWhenItRisesNextTheSameUntilItDoes() {
        long hour = 3600;
        Occupancy o = new Occupancy(cluster);
        // a's owed 2 GPUs run its priority-8 work; b fills the rest inside its minimum runtime, so a's waiting work waits as fill
        List<RunningJob> run = new ArrayList<>();
        run.add(running(o, "b-8", "b", 8, 60));
        run.add(running(o, "a-run", "a", 2, 60, 8));
        for (int i = 0; i < 3; i++) run.add(running(o, "b-2-" + i, "b", 2, 60));
        List<PendingJob> waiting = List.of(pending("a-once", "a", 1, 1, NOW - 14 * hour), pending("a-fresh", "a", 1, 2, NOW - 3 * hour),
                pending("a-top", "a", 1, 8, NOW - 3 * hour), pending("a-long", "a", 1, 1, NOW - 40 * hour));
        BudgetTree ageing = tree.withAgeDoubling(12 * hour);
        FairShareView view = new FairShareView(ageing, Map.of("a", 2.0, "b", 14.0), Map.of("a", 1.0, "b", 1.0));
        Map<String, String> reasons = new HorizonPolicy().decide(new PlanningContext(NOW, 900, 16, cluster, o, run, waiting, Map.of(), view)).waitReasons();
        String how = "waiting moves it up: each 12.0 h waited doubles the priority its team's budget ranks it by, up to its team's most urgent work";
        assertTrue(reasons.get("a-once").endsWith(how + " (8): it has ranked as priority 2 (its own: 1) since " + Instant.ofEpochSecond(NOW - 2 * hour)
                + ", and as 4 from " + Instant.ofEpochSecond(NOW + 10 * hour)), reasons.get("a-once"));
        assertTrue(reasons.get("a-fresh").endsWith(how + " (8): it ranks by its own priority (2), and as 4 from " + Instant.ofEpochSecond(NOW + 9 * hour)),
                reasons.get("a-fresh"));
        assertTrue(reasons.get("a-top").endsWith(how + ", where its own priority (8) is already"), reasons.get("a-top"));
        assertTrue(reasons.get("a-long").endsWith(how + " (8): it has ranked as priority 8 (its own: 1) since " + Instant.ofEpochSecond(NOW - 4 * hour)
                + ", the most it can"), reasons.get("a-long"));
        // the service stores a reason only when it changes: until the rank moves, a later plan words it alike
        Map<String, String> later = new HorizonPolicy().decide(new PlanningContext(NOW + 8 * hour, 900, 16, cluster, o, run, waiting, Map.of(), view)).waitReasons();
        assertEquals(reasons.get("a-once"), later.get("a-once"));
        assertEquals(reasons.get("a-fresh"), later.get("a-fresh"));
        String off = new HorizonPolicy().decide(ctx(o, run, waiting, Map.of("a", 2.0, "b", 14.0))).waitReasons().get("a-once");
        assertFalse(off.contains("waiting moves it up"), "without ageing a wait moves nothing: " + off);
    }
}
