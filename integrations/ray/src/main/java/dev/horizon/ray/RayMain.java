package dev.horizon.ray;

import dev.horizon.api.scheduler.RestSchedulerClient;
import dev.horizon.kit.AdapterProcess;
import dev.horizon.kit.InferenceScaler;
import dev.horizon.kit.manifest.TeamRule;
import dev.horizon.ray.controller.RayController;
import dev.horizon.ray.demand.RayDemandTranslator;
import dev.horizon.ray.gcs.GcsClient;
import dev.horizon.ray.gcs.GcsDemandPoller;
import dev.horizon.ray.gcs.RayClusterWorkers;
import dev.horizon.ray.jobs.RayJobsServer;
import dev.horizon.ray.translate.FractionalGpuPolicy;
import dev.horizon.ray.translate.KubeRayTranslator;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the Ray controller, and beside it the scaler that runs RayServices as inference services, against the cluster
 * of the current kubeconfig (or the pod's service account) and, with HORIZON_RAY_JOBS_PORT, the Ray Jobs endpoint;
 * both talk to the control plane at HORIZON_URL with HORIZON_TOKEN (an admin token, so a RayJob's outcome can be
 * reported). Optional: HORIZON_RESYNC_SECONDS (default 5),
 * HORIZON_FRACTIONAL_GPUS (default as for ./horizon translate ray), HORIZON_RAY_JOBS_TEAM (the team that pays for
 * submissions without horizon.dev/team metadata; default "default"), HORIZON_TEAM_FROM and HORIZON_QUEUE_TEAMS (the team
 * rule, as for the Kubeflow controller), HORIZON_RAY_CONTROLLER=off to serve only the
 * endpoint where no Kubernetes cluster is at hand. With HORIZON_RAY_GCS=HOST:PORT (the Ray head's GCS) and
 * HORIZON_RAY_CLUSTER=NAMESPACE/NAME (its RayCluster) it also plans that cluster's pending actor and placement-group
 * demand, read from the GCS every HORIZON_RAY_GCS_POLL_SECONDS (default 5), and scales the cluster's worker groups
 * onto the planned nodes.
 */
public final class RayMain {
    private static final System.Logger LOG = System.getLogger(RayMain.class.getName());
    private static final Duration GCS_CALL_TIMEOUT = Duration.ofSeconds(10);
    /** How long the poller waits at most between tries while the GCS is unreachable (the head restarting, say). */
    private static final Duration GCS_MAX_BACKOFF = Duration.ofSeconds(60);

    private RayMain() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        Map<String, String> env = System.getenv();
        RestSchedulerClient scheduler = AdapterProcess.controlPlane(env, "horizon-ray");
        FractionalGpuPolicy fractions = FractionalGpuPolicy.parse(env.getOrDefault("HORIZON_FRACTIONAL_GPUS", TranslateCommand.DEFAULT_FRACTIONAL_POLICY));
        TeamRule teams = AdapterProcess.teamRule(env, "horizon-ray");
        KubernetesClient kube = new KubernetesClientBuilder().build();
        if (env.get("HORIZON_RAY_GCS") != null) startGcsDemand(env, scheduler, fractions, kube, teams);
        String jobsPort = env.get("HORIZON_RAY_JOBS_PORT");
        if (jobsPort != null) {
            RayJobsServer jobs = new RayJobsServer(scheduler, env.getOrDefault("HORIZON_RAY_JOBS_TEAM", "default"), fractions, Clock.systemDefaultZone(),
                    new InetSocketAddress(Integer.parseInt(jobsPort)));
            LOG.log(System.Logger.Level.INFO, "Ray Jobs endpoint on port " + jobs.port());
        }
        if ("off".equals(env.get("HORIZON_RAY_CONTROLLER"))) {
            new CountDownLatch(1).await(); // the endpoint's threads serve until the process is stopped
            return;
        }
        KubeRayTranslator translator = new KubeRayTranslator("default", fractions, teams, AdapterProcess.gpuModels(env, "horizon-ray"));
        RayController controller = new RayController(kube, scheduler, translator, Clock.systemDefaultZone());
        InferenceScaler scaler = RayController.inferenceScaler(kube, scheduler, translator, Clock.systemDefaultZone());
        AdapterProcess.reconcileForever(env, () -> {
            controller.reconcileAll();
            scaler.reconcileAll();
        });
    }

    /** The GCS demand poller on its own thread, beside the controller and the endpoint. */
    private static void startGcsDemand(Map<String, String> env, RestSchedulerClient scheduler, FractionalGpuPolicy fractions, KubernetesClient kube,
                                       TeamRule teams) {
        GcsDemandPoller poller;
        Duration period;
        try {
            String cluster = env.get("HORIZON_RAY_CLUSTER");
            if (cluster == null) throw new IllegalArgumentException("HORIZON_RAY_CLUSTER: is required with HORIZON_RAY_GCS; name the RayCluster"
                    + " whose GCS that is, as NAMESPACE/NAME");
            String seconds = env.getOrDefault("HORIZON_RAY_GCS_POLL_SECONDS", "5");
            if (!seconds.matches("[1-9]\\d{0,5}")) {
                throw new IllegalArgumentException("HORIZON_RAY_GCS_POLL_SECONDS: '" + seconds + "' is not a whole number of seconds from 1, such as 5");
            }
            period = Duration.ofSeconds(Long.parseLong(seconds));
            poller = new GcsDemandPoller(new GcsClient(GcsClient.address(env.get("HORIZON_RAY_GCS"), "HORIZON_RAY_GCS"), GCS_CALL_TIMEOUT),
                    scheduler, new RayDemandTranslator(fractions, RayDemandTranslator.DEFAULT_ACCELERATOR_MODELS),
                    RayClusterWorkers.of(kube, cluster, "HORIZON_RAY_CLUSTER"), teams);
        } catch (IllegalArgumentException e) {
            System.err.println("horizon-ray: " + e.getMessage());
            System.exit(2);
            return;
        }
        Thread thread = new Thread(() -> {
            try {
                poller.pollForever(period, GCS_MAX_BACKOFF);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "ray-gcs-demand");
        thread.start();
        LOG.log(System.Logger.Level.INFO, "planning the pending demand of the Ray GCS at " + env.get("HORIZON_RAY_GCS") + " every " + period.toSeconds() + " s");
    }
}
