package dev.horizon.ray.controller;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.scheduler.InferenceServices;
import dev.horizon.api.scheduler.SchedulerClient;
import dev.horizon.kit.InferenceScaler;
import dev.horizon.kit.WorkloadKind;
import dev.horizon.kit.WorkloadReconciler;
import dev.horizon.kubernetes.release.PodRelease;
import dev.horizon.ray.serving.ServedRayService;
import dev.horizon.ray.translate.KubeRayTranslator;
import dev.horizon.ray.translate.RayKind;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Clock;
import java.util.List;

/**
 * Holds every RayJob and RayCluster that asks for GPUs suspended ({@code spec.suspend}) until Horizon has planned all
 * of its GPU groups, then pins each group's pod template to the nodes planned for it and unsuspends it;
 * suspends it again when Horizon preempts any group; cancels its scheduler jobs when it is deleted and reports a RayJob's
 * outcome when it ends. The loop is the kit's one {@link WorkloadReconciler}; what is Ray's own is which kinds it holds
 * and how each is a {@link dev.horizon.kit.ComposableJob} ({@link RayWorkload}). A RayService is no batch job: it runs
 * as a Horizon inference service through the kit's {@link InferenceScaler} ({@link #inferenceScaler}), and the
 * RayCluster KubeRay creates for it (as for a RayJob) is planned through its owner, never held on its own.
 *
 * <p>The explanation goes to an event, to the {@link #EXPLANATION} annotation and, on a RayCluster, to the
 * {@link #CONDITION} status condition.
 */
public final class RayController {
    /** Scheduler job id by job name ("NAME-head", "NAME-GROUP"), as JSON; survives controller restarts. */
    public static final String JOB_IDS = WorkloadReconciler.JOB_IDS;
    /** What a released workload was pinned to; its presence on a pending one means Horizon preempted it. */
    public static final String PLACEMENT = WorkloadReconciler.PLACEMENT;
    public static final String EXPLANATION = WorkloadReconciler.EXPLANATION;
    public static final String CONDITION = WorkloadReconciler.CONDITION;
    private static final String COMPONENT = "horizon-ray";
    private static final List<RayKind> HELD = List.of(RayKind.RAY_JOB, RayKind.RAY_CLUSTER);

    private final WorkloadReconciler reconciler;

    public RayController(KubernetesClient kube, SchedulerClient scheduler, KubeRayTranslator translator, Clock clock) {
        PodRelease podRelease = new PodRelease(kube);
        List<WorkloadKind> kinds = HELD.stream()
                .map(kind -> new WorkloadKind(kind.kind(), context(kind), RayController::heldOnItsOwn, o -> new RayWorkload(kind, o, translator, podRelease)))
                .toList();
        this.reconciler = new WorkloadReconciler(kube, scheduler, clock, COMPONENT, kinds);
    }

    public static ResourceDefinitionContext context(RayKind kind) {
        return WorkloadKind.context(RayKind.GROUP, RayKind.VERSION, kind.kind(), kind.plural());
    }

    /**
     * The scaler that runs each RayService that asks for GPUs as a Horizon inference service ({@link ServedRayService}),
     * beside this controller's pass.
     */
    public static InferenceScaler inferenceScaler(KubernetesClient kube, InferenceServices services, KubeRayTranslator translator, Clock clock) {
        InferenceScaler.ServedKind rayServices = new InferenceScaler.ServedKind(RayKind.RAY_SERVICE.kind(), context(RayKind.RAY_SERVICE), o -> true,
                o -> new ServedRayService(o, translator));
        return new InferenceScaler(kube, services, clock, COMPONENT, List.of(rayServices));
    }

    /**
     * Whether the object is Horizon's to hold: not a RayCluster that a RayJob or RayService controls (KubeRay creates
     * it once its owner runs; its GPUs are planned through the owner, and holding it too would plan them twice).
     */
    static boolean heldOnItsOwn(JsonNode object) {
        for (JsonNode owner : object.path("metadata").path("ownerReferences")) if (owner.path("controller").asBoolean(false)) return false;
        return true;
    }

    /** One pass over every RayJob and RayCluster in the cluster. */
    public void reconcileAll() {
        reconciler.reconcileAll();
    }
}
