package dev.horizon.service.planning;

import dev.horizon.service.fairshare.UsageStore;
import dev.horizon.service.fractional.SlicePlanning;
import dev.horizon.service.jobs.JobStore;
import dev.horizon.service.leadership.Leadership;
import dev.horizon.service.nodes.CommandQueue;
import dev.horizon.service.nodes.CommandStore;
import dev.horizon.service.store.Db;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Commits a plan: the lease is locked and checked (fencing) as the first statement of the one transaction that writes the
 * changed job rows and their run segments in batches, the agent commands and the fair-share booking; nothing else of the
 * loop (reading the store, deciding) holds it, so the lease renews freely while a plan is being made.
 */
@ApplicationScoped
public class PlanCommitter {
    @Inject
    Db db;
    @Inject
    Leadership leadership;
    @Inject
    CommandQueue queue;

    /** Returns how many job rows it wrote. confirm: also stamp every running job with this epoch (a new leader's first commit). */
    int commit(PlanCommit plan, long epoch, boolean confirm, long nowMillis) {
        long now = nowMillis / 1000;
        int written = db.inTransaction(c -> {
            // nothing is written unless this replica still leads in epoch, and no takeover can interleave until it commits
            leadership.fence(c, epoch);
            int n = JobStore.applyPlan(c, plan.writes(), epoch, now);
            for (SlicePlanning.Wanted w : plan.commands()) CommandStore.insert(c, w.node(), w.action(), nowMillis, epoch);
            UsageStore.book(c, plan.booking().hourly(), plan.booking().bookedUntil(), plan.booking().owedNext());
            if (confirm) JobStore.confirmRunning(c, epoch);
            return n;
        });
        Set<String> nodes = new LinkedHashSet<>();
        plan.commands().forEach(w -> nodes.add(w.node()));
        nodes.forEach(queue::committed);
        return written;
    }
}
