package dev.horizon.kit;

import dev.horizon.api.scheduler.RestSchedulerClient;
import dev.horizon.kit.manifest.GpuModelTable;
import dev.horizon.kit.manifest.TeamRule;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** What every adapter process (Kubeflow, Ray) does the same way: reach the control plane and reconcile on a period. */
public final class AdapterProcess {
    private static final System.Logger LOG = System.getLogger(AdapterProcess.class.getName());

    private AdapterProcess() {
    }

    /**
     * The control plane at HORIZON_URL (default http://localhost:8080) with HORIZON_TOKEN (an admin token: the adapters
     * report outcomes for jobs on every node); an https URL is verified against HORIZON_CA (a PEM CA certificate) when
     * set. Without a token the process says so and exits 2, since every call would be refused.
     */
    public static RestSchedulerClient controlPlane(Map<String, String> env, String program) {
        String token = env.get("HORIZON_TOKEN");
        if (token == null || token.isBlank()) {
            System.err.println(program + ": set HORIZON_TOKEN to an admin token of the control plane");
            System.exit(2);
        }
        String ca = env.get("HORIZON_CA");
        try {
            return new RestSchedulerClient(URI.create(env.getOrDefault("HORIZON_URL", "http://localhost:8080")), token,
                    ca == null || ca.isBlank() ? null : java.nio.file.Path.of(ca));
        } catch (IllegalArgumentException e) {
            System.err.println(program + ": " + e.getMessage());
            System.exit(2);
            return null;
        }
    }

    /**
     * The team rule of HORIZON_TEAM_FROM (sources, first match wins; default {@link TeamRule#DEFAULT_SOURCES}) and
     * HORIZON_QUEUE_TEAMS (a queue-to-team file); a bad value stops the process with one line naming the variable.
     */
    public static TeamRule teamRule(Map<String, String> env, String program) {
        try {
            return TeamRule.configured(env.get("HORIZON_TEAM_FROM"), "HORIZON_TEAM_FROM", env.get("HORIZON_QUEUE_TEAMS"), "HORIZON_QUEUE_TEAMS");
        } catch (IllegalArgumentException e) {
            System.err.println(program + ": " + e.getMessage());
            System.exit(2);
            throw e;
        }
    }

    /** The GPU model table, extended by the admin's file at HORIZON_GPU_MODELS; a bad file stops the program with one line. */
    public static GpuModelTable gpuModels(Map<String, String> env, String program) {
        try {
            return GpuModelTable.configured(env.get("HORIZON_GPU_MODELS"), "HORIZON_GPU_MODELS");
        } catch (IllegalArgumentException e) {
            System.err.println(program + ": " + e.getMessage());
            System.exit(2);
            throw e;
        }
    }

    /** Runs {@code pass} every HORIZON_RESYNC_SECONDS (default 5) until the process is stopped. */
    public static void reconcileForever(Map<String, String> env, Runnable pass) throws InterruptedException {
        long period = Long.parseLong(env.getOrDefault("HORIZON_RESYNC_SECONDS", "5"));
        ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor();
        loop.scheduleWithFixedDelay(() -> {
            try {
                pass.run();
            } catch (RuntimeException e) {
                // a failed pass (API server or control plane unreachable) must not end the schedule
                LOG.log(System.Logger.Level.WARNING, "reconcile pass failed; retrying in " + period + " s: " + e.getMessage());
            }
        }, 0, period, TimeUnit.SECONDS);
        loop.awaitTermination(Long.MAX_VALUE, TimeUnit.DAYS);
    }
}
