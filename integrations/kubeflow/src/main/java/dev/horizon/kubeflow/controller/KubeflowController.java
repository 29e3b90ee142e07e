package dev.horizon.kubeflow.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.horizon.api.scheduler.SchedulerClient;
import dev.horizon.api.scheduler.InferenceServices;
import dev.horizon.kit.InferenceScaler;
import dev.horizon.kit.WorkloadKind;
import dev.horizon.kit.WorkloadReconciler;
import dev.horizon.kubeflow.batch.BatchKind;
import dev.horizon.kubeflow.batch.BatchTranslator;
import dev.horizon.kubeflow.serving.ServedObject;
import dev.horizon.kubeflow.serving.ServingKind;
import dev.horizon.kubeflow.serving.ServingTranslator;
import dev.horizon.kubeflow.translate.KubeflowKind;
import dev.horizon.kubeflow.translate.TranslationOptions;
import dev.horizon.kubeflow.translate.Translator;
import dev.horizon.kubernetes.release.PodRelease;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Holds every Kubeflow job, batch Job and JobSet that asks for GPUs suspended (and every bare Pod, and Volcano Job
 * whose tasks are, gated {@value GatedPod#GATE}) until Horizon plans it, then pins it to
 * the planned nodes and lets it run, through the kit's one {@link WorkloadReconciler}: each kind is seen as a
 * {@link dev.horizon.kit.GenericJob} ({@link KubeflowJob}, {@link BatchWorkload}), the one place it is held and released.
 * What is the Kubeflow adapter's own: which kinds it holds, where the API server keeps them, and that a TrainJob's
 * runtime is read from the cluster. The explanation is the {@link #CONDITION} status condition.
 */
public final class KubeflowController {
    /** The scheduler job a Kubernetes job was submitted as; survives controller restarts. */
    public static final String JOB_ID = WorkloadReconciler.JOB_ID;
    /** The nodes a released job was pinned to; its presence on a pending job means Horizon preempted it. */
    public static final String PLACEMENT = WorkloadReconciler.PLACEMENT;
    public static final String CONDITION = WorkloadReconciler.CONDITION;
    private static final String COMPONENT = "horizon-kubeflow";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final WorkloadReconciler reconciler;

    public KubeflowController(KubernetesClient kube, SchedulerClient scheduler, TranslationOptions options, Clock clock) {
        PodRelease podRelease = new PodRelease(kube);
        Translator translator = new Translator(options, (kind, namespace, name) -> {
            var resources = kube.genericKubernetesResources(context(kind));
            GenericKubernetesResource runtime = kind.namespaced() ? resources.inNamespace(namespace).withName(name).get() : resources.withName(name).get();
            return Optional.ofNullable(runtime).map(r -> (JsonNode) JSON.valueToTree(r));
        });
        BatchTranslator batch = new BatchTranslator(options);
        // the Kubeflow jobs, then the batch kinds that have spec.suspend
        List<WorkloadKind> kinds = new ArrayList<>();
        for (KubeflowKind kind : KubeflowKind.jobs()) {
            kinds.add(new WorkloadKind(kind.kind(), context(kind), o -> new KubeflowJob(kind, o, translator, podRelease)));
        }
        for (BatchKind kind : BatchKind.values()) {
            if (!kind.suspendable()) continue;
            kinds.add(new WorkloadKind(kind.sourceKind(), context(kind), BatchWorkload::heldOnItsOwn, o -> new BatchWorkload(kind, o, batch, podRelease)));
        }
        // bare Pods gated for Horizon: the upstream way to hold a pod
        kinds.add(new WorkloadKind(BatchKind.POD.sourceKind(), context(BatchKind.POD), GatedPod::held, o -> new GatedPod(o, batch, podRelease)));
        // Volcano Jobs whose tasks' pods are gated for Horizon the same way: one scheduler job, each pod ungated on release
        kinds.add(new WorkloadKind(BatchKind.VOLCANO_JOB.sourceKind(), context(BatchKind.VOLCANO_JOB), GatedVolcanoJob::held,
                o -> new GatedVolcanoJob(o, batch, podRelease, kube)));
        this.reconciler = new WorkloadReconciler(kube, scheduler, clock, COMPONENT, kinds);
    }

    /**
     * The scaler that runs the serving kinds (inference-labelled Deployments and StatefulSets, LeaderWorkerSets, KServe
     * InferenceServices) as Horizon inference services, beside this controller's pass.
     */
    public static InferenceScaler inferenceScaler(KubernetesClient kube, InferenceServices services, TranslationOptions options, Clock clock) {
        ServingTranslator translator = new ServingTranslator(options);
        List<InferenceScaler.ServedKind> kinds = new ArrayList<>();
        for (ServingKind kind : ServingKind.values()) {
            kinds.add(new InferenceScaler.ServedKind(kind.kind(), kind.context(), kind::serves, o -> new ServedObject(kind, o, translator)));
        }
        return new InferenceScaler(kube, services, clock, COMPONENT, kinds);
    }

    public static ResourceDefinitionContext context(BatchKind kind) {
        return WorkloadKind.context(kind.group(), kind.version(), kind.kind(), kind.plural());
    }

    public static ResourceDefinitionContext context(KubeflowKind kind) {
        return new ResourceDefinitionContext.Builder().withGroup(kind.group()).withVersion(kind.version()).withKind(kind.kind())
                .withPlural(kind.plural()).withNamespaced(kind.namespaced()).build();
    }

    /** One pass over every workload of the kinds held in the cluster. */
    public void reconcileAll() {
        reconciler.reconcileAll();
    }
}
