package dev.horizon.ray.gcs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.JobClass;
import dev.horizon.api.JobSource;
import dev.horizon.api.JobSpec;
import dev.horizon.api.scheduler.SchedulerClient;
import dev.horizon.api.scheduler.SchedulerJob;
import dev.horizon.kit.manifest.ManifestException;
import dev.horizon.kit.manifest.Manifests;
import dev.horizon.kit.manifest.TeamRule;
import dev.horizon.ray.demand.DemandOwner;
import dev.horizon.ray.demand.RayDemandTranslator;
import dev.horizon.ray.translate.NoGpuRequestedException;
import dev.horizon.ray.translate.RayKind;
import io.grpc.StatusRuntimeException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Plans a Ray cluster's own pending demand with Horizon, Ray unchanged: polls the GCS as Ray's autoscaler does,
 * submits one scheduler job per pending shape or placement group (the same job while it stays pending), and once
 * Horizon places a job, scales the RayCluster's worker group onto the planned nodes, where Ray then puts the
 * actors. Demand that disappears from the GCS (Ray placed it, or it was cancelled) is withdrawn from Horizon.
 *
 * <p>Not thread-safe: one thread runs {@link #poll} or {@link #pollForever}.
 */
public final class GcsDemandPoller {
    private static final System.Logger LOG = System.getLogger(GcsDemandPoller.class.getName());
    static final String SOURCE_KIND = "RayDemand";

    private final GcsClient gcs;
    private final SchedulerClient scheduler;
    private final RayDemandTranslator translator;
    private final RayClusterWorkers cluster;
    private final TeamRule teams;
    /** The scheduler job of each pending demand, by demand key. */
    private final Map<String, DemandJob> jobs = new LinkedHashMap<>();
    /** What the RayCluster's annotation holds; null until it was read on the first pass. */
    private Map<String, DemandJob> recorded;
    /** Demand Horizon will not plan, by key, with the reason already logged once. */
    private final Map<String, String> refused = new HashMap<>();

    /** @param teams names the team of the RayCluster's demand, as for the RayCluster itself */
    public GcsDemandPoller(GcsClient gcs, SchedulerClient scheduler, RayDemandTranslator translator, RayClusterWorkers cluster, TeamRule teams) {
        this.gcs = gcs;
        this.scheduler = scheduler;
        this.translator = translator;
        this.cluster = cluster;
        this.teams = teams;
    }

    /** The scheduler jobs of the demand now pending, by demand key. */
    public Map<String, DemandJob> jobs() {
        return Map.copyOf(jobs);
    }

    /**
     * One pass: read the GCS, withdraw what is no longer pending, submit what is new, scale for what Horizon placed,
     * and record the jobs on the RayCluster. Throws {@link StatusRuntimeException} when the GCS cannot be read; nothing
     * changes then, because an unreachable GCS says nothing about whether the demand is still there.
     */
    public void poll() {
        List<PendingDemand> pending = PendingDemand.of(gcs.clusterResourceState());
        ObjectNode rayCluster = cluster.read();
        if (recorded == null) {
            // jobs an earlier run submitted: claimed again, so a restart neither loses nor duplicates them
            recorded = RayClusterWorkers.recorded(rayCluster);
            recorded.forEach(jobs::putIfAbsent);
        }
        try {
            pass(pending, rayCluster);
        } finally {
            record();
        }
    }

    private void pass(List<PendingDemand> pending, ObjectNode rayCluster) {
        Set<String> keys = new HashSet<>();
        pending.forEach(d -> keys.add(d.key()));
        refused.keySet().retainAll(keys);
        for (Map.Entry<String, DemandJob> job : List.copyOf(jobs.entrySet())) {
            if (!keys.contains(job.getKey())) withdraw(job.getKey(), job.getValue(), "is no longer pending in the GCS");
        }
        for (PendingDemand demand : pending) {
            if (refused.containsKey(demand.key())) continue;
            try {
                DemandJob job = jobs.get(demand.key());
                if (job != null && !job.scaled() && demand instanceof PendingDemand.Tasks now && now.count() != job.count()
                        && scheduler.job(job.id()).state() == SchedulerJob.State.PENDING) {
                    // still unplanned and the count changed: the job must ask for what is pending now
                    withdraw(demand.key(), job, "now counts " + now.count() + " requests");
                    job = null;
                }
                if (job == null) {
                    submit(demand, rayCluster);
                } else if (!job.scaled()) {
                    act(demand, job);
                }
            } catch (NoGpuRequestedException e) {
                refused.put(demand.key(), "no GPU"); // CPU-only demand stays Ray's own to place
            } catch (ManifestException e) {
                refused.put(demand.key(), e.getMessage());
                LOG.log(System.Logger.Level.WARNING, "Ray demand " + demand.key() + " of " + clusterName() + " is not planned by Horizon: "
                        + e.getMessage());
            }
        }
    }

    /** Writes the jobs to the RayCluster when they changed; a failure is retried at the end of the next pass. */
    private void record() {
        if (jobs.equals(recorded)) return;
        try {
            cluster.record(jobs);
            recorded = Map.copyOf(jobs);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "recording the demand jobs " + jobs + " on " + clusterName() + " failed; retried next pass: "
                    + e.getMessage());
        }
    }

    private void submit(PendingDemand demand, ObjectNode rayCluster) {
        JobSpec spec = translate(demand, rayCluster);
        cluster.size(rayCluster, demand); // refuses demand no worker group can hold before Horizon plans GPUs for it
        String id = scheduler.submit(spec);
        jobs.put(demand.key(), DemandJob.submitted(id, demand));
        LOG.log(System.Logger.Level.INFO, "submitted Ray demand " + demand.key() + " of " + clusterName() + " as scheduler job " + id + " ("
                + spec.replicaCount() + " x " + spec.perReplica().gpuFraction() + " GPU" + (spec.gang() ? ", gang" : "") + ")");
    }

    private JobSpec translate(PendingDemand demand, ObjectNode rayCluster) {
        String team = teams.team(rayCluster, cluster.namespace());
        JobClass jobClass = Manifests.jobClass(rayCluster, RayKind.RAY_CLUSTER.defaultClass());
        if (demand instanceof PendingDemand.Tasks t) {
            String name = cluster.name() + "-demand-" + Integer.toHexString(t.key().hashCode());
            return translator.tasks(new DemandOwner(name, team, jobClass, source()), t.shape(), t.count());
        }
        PendingDemand.Gang g = (PendingDemand.Gang) demand;
        String name = cluster.name() + "-pg-" + (g.placementGroupId().isEmpty() ? Integer.toHexString(g.key().hashCode())
                : g.placementGroupId().substring(0, Math.min(12, g.placementGroupId().length())));
        return translator.placementGroup(new DemandOwner(name, team, jobClass, source()), g.bundles(), g.strategy());
    }

    /** Once Horizon placed the job: scale the worker group that holds it onto the planned nodes, once. */
    private void act(PendingDemand demand, DemandJob job) {
        SchedulerJob state = scheduler.job(job.id());
        if (state.state().finished()) {
            jobs.remove(demand.key());
            refused.put(demand.key(), "scheduler job " + job.id() + " ended " + state.state());
            LOG.log(System.Logger.Level.WARNING, "scheduler job " + job.id() + " for Ray demand " + demand.key() + " ended " + state.state()
                    + " in Horizon while Ray still waits; not resubmitted while the demand stays pending");
            return;
        }
        if (state.state() != SchedulerJob.State.RUNNING || state.placement() == null) return;
        // read again: an earlier demand of this pass may have scaled the group towards its maxReplicas
        RayClusterWorkers.Sizing sizing = cluster.size(cluster.read(), demand);
        // the group's template is shared by its pods: pin it to every node planned for demand scaled onto it, so
        // workers still being created for an earlier demand keep their nodes
        Set<String> nodes = new TreeSet<>(state.placement().nodes());
        jobs.values().stream().filter(j -> sizing.group().equals(j.group())).forEach(j -> nodes.addAll(j.nodes()));
        cluster.scale(sizing.group(), sizing.workers(), new ArrayList<>(nodes));
        jobs.put(demand.key(), new DemandJob(job.id(), job.count(), sizing.group(), sizing.workers(), state.placement().nodes()));
        LOG.log(System.Logger.Level.INFO, "Horizon placed Ray demand " + demand.key() + " (job " + job.id() + ") on "
                + state.placement().nodes() + ": worker group " + sizing.group() + " of " + clusterName() + " +" + sizing.workers()
                + " workers, pinned to " + nodes);
    }

    /**
     * Takes a job back from Horizon: cancelled while it waits; reported finished once Horizon had placed it, since Ray
     * then placed the demand on the workers scaled for it. A failure leaves it tracked for the next pass to retry.
     */
    private void withdraw(String key, DemandJob job, String why) {
        if (job.scaled()) {
            scheduler.finish(job.id(), true);
        } else {
            scheduler.cancel(job.id());
        }
        jobs.remove(key);
        LOG.log(System.Logger.Level.INFO, "Ray demand " + key + " of " + clusterName() + " " + why + "; scheduler job "
                + job.id() + (job.scaled() ? " finished" : " cancelled"));
    }

    /**
     * Polls every {@code period} until the thread is interrupted. While the GCS cannot be reached the wait doubles
     * up to {@code maxBackoff} and every submitted job stays as it is; any other failure is retried after one period.
     */
    public void pollForever(Duration period, Duration maxBackoff) throws InterruptedException {
        Duration wait = period;
        while (!Thread.currentThread().isInterrupted()) {
            try {
                poll();
                wait = period;
            } catch (StatusRuntimeException e) {
                wait = wait.multipliedBy(2).compareTo(maxBackoff) > 0 ? maxBackoff : wait.multipliedBy(2);
                LOG.log(System.Logger.Level.WARNING, "Ray GCS at " + gcs.address() + " unreachable (" + e.getStatus().getCode()
                        + (e.getStatus().getDescription() == null ? "" : ": " + e.getStatus().getDescription()) + "); the " + jobs.size()
                        + " scheduler jobs submitted for its demand stay as they are; retrying in " + seconds(wait));
            } catch (RuntimeException e) {
                wait = period;
                LOG.log(System.Logger.Level.WARNING, "Ray demand pass for " + clusterName() + " failed; retrying in " + seconds(period) + ": "
                        + e.getMessage());
            }
            Thread.sleep(wait.toMillis());
        }
    }

    private static String seconds(Duration d) {
        return BigDecimal.valueOf(d.toMillis(), 3).stripTrailingZeros().toPlainString() + " s";
    }

    private JobSource source() {
        return new JobSource(SOURCE_KIND, cluster.namespace(), cluster.name());
    }

    private String clusterName() {
        return "RayCluster " + cluster.namespace() + "/" + cluster.name();
    }
}
