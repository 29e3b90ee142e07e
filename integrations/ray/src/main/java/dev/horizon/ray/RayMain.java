package dev.horizon.ray;

import dev.horizon.api.scheduler.AdapterProcess;
import dev.horizon.api.scheduler.SchedulerClient;
import dev.horizon.ray.controller.RayController;
import dev.horizon.ray.demand.FractionalGpuPolicy;
import dev.horizon.ray.jobs.RayJobsServer;
import dev.horizon.ray.translate.KubeRayTranslator;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.ZoneId;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the Ray controller against the cluster of the current kubeconfig (or the pod's service account) and, with
 * HORIZON_RAY_JOBS_PORT, the Ray Jobs endpoint; both talk to the control plane at HORIZON_URL with HORIZON_TOKEN (an
 * agent or admin token, so a RayJob's outcome can be reported). Optional: HORIZON_RESYNC_SECONDS (default 5),
 * HORIZON_FRACTIONAL_GPUS (default as for ./horizon translate ray), HORIZON_RAY_JOBS_TEAM (the team that pays for
 * submissions without horizon.dev/team metadata; default "default"), HORIZON_RAY_CONTROLLER=off to serve only the
 * endpoint where no Kubernetes cluster is at hand.
 */
public final class RayMain {
    private static final System.Logger LOG = System.getLogger(RayMain.class.getName());

    private RayMain() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        Map<String, String> env = System.getenv();
        SchedulerClient scheduler = AdapterProcess.controlPlane(env, "horizon-ray");
        FractionalGpuPolicy fractions = FractionalGpuPolicy.parse(env.getOrDefault("HORIZON_FRACTIONAL_GPUS", TranslateCommand.DEFAULT_FRACTIONAL_POLICY));
        String jobsPort = env.get("HORIZON_RAY_JOBS_PORT");
        if (jobsPort != null) {
            RayJobsServer jobs = new RayJobsServer(scheduler, env.getOrDefault("HORIZON_RAY_JOBS_TEAM", "default"), fractions, ZoneId.systemDefault(),
                    new InetSocketAddress(Integer.parseInt(jobsPort)));
            LOG.log(System.Logger.Level.INFO, "Ray Jobs endpoint on port " + jobs.port());
        }
        if ("off".equals(env.get("HORIZON_RAY_CONTROLLER"))) {
            new CountDownLatch(1).await(); // the endpoint's threads serve until the process is stopped
            return;
        }
        RayController controller = new RayController(new KubernetesClientBuilder().build(), scheduler,
                new KubeRayTranslator("default", fractions), Clock.systemDefaultZone());
        AdapterProcess.reconcileForever(env, controller::reconcileAll);
    }
}
