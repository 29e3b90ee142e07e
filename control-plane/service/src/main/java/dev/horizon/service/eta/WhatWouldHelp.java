package dev.horizon.service.eta;

import dev.horizon.allocator.eta.Ahead;
import dev.horizon.allocator.eta.Alternatives;
import dev.horizon.allocator.policy.HorizonPolicy;
import dev.horizon.service.planning.PlannedMoment;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.logging.Logger;

/**
 * For the explanation of a waiting job, on the latest plan's moment: what would make it start sooner
 * ({@link Alternatives}: re-plans, so computed on demand, one computation at a time, and kept per job until the next
 * plan) and who goes before it ({@link Ahead}: no re-plan). The planner only hands over a reference.
 */
@ApplicationScoped
public class WhatWouldHelp {
    private static final Logger LOG = Logger.getLogger(WhatWouldHelp.class);

    private final AtomicReference<PlannedMoment> latest = new AtomicReference<>();
    /** Alternatives computed on {@link #cachedOn}, by job; guarded by this. */
    private final Map<String, List<Alternatives.Alternative>> cache = new HashMap<>();
    private PlannedMoment cachedOn;

    void planned(@Observes PlannedMoment plan) {
        latest.set(plan);
    }

    /** The changes that would make the waiting job start sooner on the latest plan's moment, soonest first (empty: none, or no plan yet). */
    public synchronized List<Alternatives.Alternative> alternatives(String jobId) {
        PlannedMoment plan = latest.get();
        if (plan == null) return List.of();
        if (cachedOn != plan) {
            cache.clear();
            cachedOn = plan;
        }
        return cache.computeIfAbsent(jobId, id -> {
            long t0 = System.nanoTime();
            try {
                List<Alternatives.Alternative> out = Alternatives.of(plan.moment(), plan.decision(), HorizonPolicy::new, id);
                LOG.infof("alternatives of job %s on %d GPUs and %d jobs: %d in %.0f ms", id, plan.context().cluster().totalGpus(),
                        plan.moment().jobs().size(), out.size(), (System.nanoTime() - t0) / 1e6);
                return out;
            } catch (RuntimeException e) {
                // the explanation still answers, without alternatives; a re-plan that fails here is a bug to see in the log
                LOG.errorf(e, "alternatives of job %s failed on the plan of %d", id, plan.now());
                return List.of();
            }
        });
    }

    /** Who goes before the waiting job on the GPUs it could use, on the latest plan (empty: no one, or no plan yet). */
    public List<Ahead.Entry> ahead(String jobId) {
        PlannedMoment plan = latest.get();
        return plan == null ? List.of() : Ahead.of(plan.moment(), plan.context(), plan.decision(), jobId);
    }
}
