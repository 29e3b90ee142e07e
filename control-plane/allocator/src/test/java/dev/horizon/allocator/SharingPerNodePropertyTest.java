package dev.horizon.allocator;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.allocator.model.Cluster;
import dev.horizon.allocator.model.Decision;
import dev.horizon.allocator.model.GpuShare;
import dev.horizon.allocator.model.PendingJob;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.SliceRequest;
import dev.horizon.allocator.placement.Occupancy;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Property: where one sharing config covers a node's whole GPUs (Kubernetes' device-plugin mode), no plan gives two
 * shared GPUs of one node different time-slicing replica counts, and no node holds whole-GPU work beside time-slicing
 * shares. Random arrivals of shares of many sizes and of whole-GPU jobs, planned by Horizon's policy round after round
 * while work ends at random; the same runs without the rule break it, so the property is the rule's doing.
 */
class SharingPerNodePropertyTest {
    private static final int[] MILLI = {100, 125, 200, 250, 300, 333, 400, 500};
    private static final long NOW = 1_000_000;
    private final Cluster cluster = Cluster.homogeneous(3, 4, "H100-80GB", 81_559);
    private final Contract contract = new Contract(0, true, 60);

    /** What one random run did: the property's breaches, and how many shares and whole-GPU jobs it started. */
    private record Run(List<String> breaches, int shares, int whole) {
    }

    @Test
    void noPlanGivesTwoSharedGpusOfOneNodeDifferentReplicaCounts() {
        int shares = 0, whole = 0;
        for (long seed = 1; seed <= 40; seed++) {
            Run r = run(seed, true);
            assertTrue(r.breaches().isEmpty(), "seed " + seed + ": " + r.breaches());
            shares += r.shares();
            whole += r.whole();
        }
        assertTrue(shares > 200 && whole > 50, "the runs place both kinds of work: " + shares + " shares, " + whole + " whole-GPU jobs");
    }

    @Test
    void withoutTheRuleThePlansBreakIt() {
        int broken = 0;
        for (long seed = 1; seed <= 40; seed++) if (!run(seed, false).breaches().isEmpty()) broken++;
        assertTrue(broken > 0, "the random runs must be able to break the property, or the first test proves nothing");
    }

    /** Twenty rounds of arrivals, a plan, its starts occupied and some work ended. */
    private Run run(long seed, boolean perNode) {
        Random random = new Random(seed);
        Occupancy o = new Occupancy(cluster);
        if (perNode) for (int n = 0; n < cluster.nodes().size(); n++) o.setSharingPerNode(n, 0);
        List<Placement> held = new ArrayList<>();
        List<String> breaches = new ArrayList<>();
        int id = 0, shares = 0, whole = 0;
        for (int round = 0; round < 20; round++) {
            List<PendingJob> pending = new ArrayList<>();
            for (int k = random.nextInt(4); k >= 0; k--) {
                String name = "j" + (id++);
                if (random.nextInt(3) == 0) {
                    int gpus = 1 << random.nextInt(3);
                    pending.add(PendingJob.builder().id(name).team("t").jobClass(JobClass.TRAINING).weight(1 + random.nextInt(5)).gpus(gpus)
                            .arrivalSeconds(NOW - 60).estimatedRemainingSeconds(3600).contract(contract).build());
                } else {
                    SliceRequest share = SliceRequest.timeSlice(MILLI[random.nextInt(MILLI.length)], 8_000);
                    pending.add(PendingJob.builder().id(name).team("t").jobClass(JobClass.INTERACTIVE).weight(1 + random.nextInt(5)).gpus(1)
                            .arrivalSeconds(NOW - 60).estimatedRemainingSeconds(3600).contract(contract).slice(share).build());
                }
            }
            Decision d = new HorizonPolicy().decide(new PlanningContext(NOW, 900, 16, cluster, o.copy(), List.of(), pending, Map.of()));
            for (Decision.Start s : d.starts()) {
                o.occupy(s.placement());
                held.add(s.placement());
                if (s.placement().shared()) shares++;
                else whole++;
            }
            breaches.addAll(breaches(o, "round " + round));
            for (int k = held.size() - 1; k >= 0; k--) {
                if (random.nextInt(4) == 0) o.release(held.remove(k));
            }
        }
        return new Run(breaches, shares, whole);
    }

    private List<String> breaches(Occupancy o, String when) {
        List<String> out = new ArrayList<>();
        for (int n = 0; n < cluster.nodes().size(); n++) {
            Set<Integer> replicas = new HashSet<>();
            boolean whole = false;
            for (int g = 0; g < cluster.nodes().get(n).gpus(); g++) {
                List<GpuShare> on = o.sharesOn(n, g);
                on.forEach(s -> replicas.add(s.timeSlicingReplicas()));
                whole |= on.isEmpty() && !o.isWholeFree(n, g) && o.migLayout(n, g) == null;
            }
            if (replicas.size() > 1) out.add(when + ": node " + n + " has shares of replica counts " + replicas);
            if (whole && !replicas.isEmpty()) out.add(when + ": node " + n + " holds whole-GPU work beside time-slicing shares");
        }
        return out;
    }
}
