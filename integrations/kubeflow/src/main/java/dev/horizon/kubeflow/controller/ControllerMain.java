package dev.horizon.kubeflow.controller;

import dev.horizon.api.scheduler.RestSchedulerClient;
import dev.horizon.kit.AdapterProcess;
import dev.horizon.kit.InferenceScaler;
import dev.horizon.kit.manifest.TeamRule;
import dev.horizon.kubeflow.extender.ExtenderServer;
import dev.horizon.kubeflow.extender.PodBinder;
import dev.horizon.kubeflow.extender.SchedulerExtender;
import dev.horizon.kubeflow.translate.TranslationOptions;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.Map;

/**
 * Runs the controller against the cluster of the current kubeconfig (or the pod's service account)
 * and the control plane at HORIZON_URL with HORIZON_TOKEN (an admin token, so outcomes can
 * be reported). HORIZON_TEAM_FROM (for example "kai,namespace"), HORIZON_QUEUE_TEAMS (a queue-to-team file) and
 * HORIZON_RESYNC_SECONDS (default 5) are optional. With HORIZON_EXTENDER_PORT it also serves the kube-scheduler extender for
 * GPU pods that belong to no training job. Each pass also scales the serving kinds as inference services
 * ({@link KubeflowController#inferenceScaler}).
 */
public final class ControllerMain {
    private ControllerMain() {
    }

    public static void main(String[] args) throws InterruptedException, IOException {
        Map<String, String> env = System.getenv();
        RestSchedulerClient scheduler = AdapterProcess.controlPlane(env, "horizon-kubeflow");
        TranslationOptions defaults = TranslationOptions.defaults();
        TeamRule teams = AdapterProcess.teamRule(env, "horizon-kubeflow");
        TranslationOptions options = new TranslationOptions(teams, defaults.defaultNamespace(), defaults.priorityClasses(),
                AdapterProcess.gpuModels(env, "horizon-kubeflow"));
        KubernetesClient kube = new KubernetesClientBuilder().build();
        KubeflowController controller = new KubeflowController(kube, scheduler, options, Clock.systemDefaultZone());
        String extenderPort = env.get("HORIZON_EXTENDER_PORT");
        if (extenderPort != null) {
            PodBinder binder = (namespace, pod, uid, node) -> kube.bindings().inNamespace(namespace).resource(new BindingBuilder()
                    .withNewMetadata().withName(pod).withNamespace(namespace).withUid(uid).endMetadata()
                    .withNewTarget().withApiVersion("v1").withKind("Node").withName(node).endTarget().build()).create();
            new ExtenderServer(new SchedulerExtender(scheduler, binder, Clock.systemDefaultZone(), teams), new InetSocketAddress(Integer.parseInt(extenderPort)));
        }
        InferenceScaler scaler = KubeflowController.inferenceScaler(kube, scheduler, options, Clock.systemDefaultZone());
        AdapterProcess.reconcileForever(env, () -> {
            controller.reconcileAll();
            scaler.reconcileAll();
        });
    }
}
