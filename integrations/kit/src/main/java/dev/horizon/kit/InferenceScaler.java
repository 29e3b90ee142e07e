package dev.horizon.kit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.JobSpec;
import dev.horizon.api.integration.KubeObjects;
import dev.horizon.api.scheduler.InferenceServices;
import dev.horizon.api.scheduler.SchedulerException;
import dev.horizon.kit.manifest.ManifestException;
import dev.horizon.kit.manifest.Manifests;
import dev.horizon.kit.manifest.NoGpuRequested;
import dev.horizon.kit.manifest.Translation;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Clock;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Runs model-serving workloads as Horizon inference services, through the control plane's one inference-service
 * machinery: each workload that asks for GPUs is declared as a service (team from its translation), its replicas are
 * sized each pass from the service's forecast (enough whole replicas for the forecast GPUs, within the workload's
 * bounds, {@link ServingRules}) and written as its replica count or as its HorizontalPodAutoscaler's minimum, and the
 * GPUs those replicas serve on are reported as held ({@link ServingGpus}) with the pods pinned to their nodes. In a
 * trough the service holds fewer GPUs and the plan lends them to waiting work; when the forecast rises the service holds
 * them again and the plan moves that work off, which its adapter then suspends. A workload deleted since the last pass
 * has its service removed. Demand itself is reported to the service as before (agents, or a metrics bridge).
 */
public final class InferenceScaler {
    /** The nodes the replicas were last pinned to; rewritten only when they change, since a new pod template rolls the pods. */
    public static final String SERVED_ON = "horizon.dev/served-on";
    /** The inference service a workload runs as; also on its pods, which the scheduler extender then leaves alone. */
    public static final String SERVICE = "horizon.dev/inference-service";
    private static final String WARNING = "Warning";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final System.Logger LOG = System.getLogger(InferenceScaler.class.getName());
    private static final ResourceDefinitionContext HPA = WorkloadKind.context("autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers");

    /**
     * One kind the scaler runs: where the API server keeps it, which of its objects serve a model ({@code served}: a
     * Deployment only when opted in; the others are left alone, with nothing written on them), and how one is seen.
     */
    public record ServedKind(String name, ResourceDefinitionContext context, Predicate<JsonNode> served, Function<ObjectNode, ServedWorkload> wrap) {
    }

    private final KubernetesClient kube;
    private final InferenceServices services;
    private final WorkloadWrites writes;
    private final List<ServedKind> kinds;
    /** The services this scaler declared, by name, so a deleted workload's is removed. */
    private final Set<String> declared = ConcurrentHashMap.newKeySet();

    public InferenceScaler(KubernetesClient kube, InferenceServices services, Clock clock, String component, List<ServedKind> kinds) {
        this.kube = kube;
        this.services = services;
        this.writes = new WorkloadWrites(kube, clock, component);
        this.kinds = List.copyOf(kinds);
    }

    /** One pass over every served workload in the cluster. */
    public void reconcileAll() {
        Set<String> seen = new HashSet<>();
        Map<ServedWorkload, Translation> served = new LinkedHashMap<>();
        for (ServedKind kind : kinds) {
            List<GenericKubernetesResource> listed = list(kind);
            if (listed == null) {
                // not allowed to list it: its services are unseen, not deleted
                String prefix = kind.name().toLowerCase(Locale.ROOT) + "-";
                declared.stream().filter(n -> n.startsWith(prefix)).forEach(seen::add);
                continue;
            }
            for (GenericKubernetesResource resource : listed) {
                ObjectNode object = JSON.valueToTree(resource);
                if (controlled(resource) || !kind.served().test(object)) continue;
                ServedWorkload workload = kind.wrap().apply(object);
                try {
                    served.put(workload, workload.translate());
                    seen.add(serviceName(workload));
                } catch (ManifestException e) {
                    // asking for no GPU, it is not Horizon's: Kubernetes runs it as written
                    if (!(e instanceof NoGpuRequested)) explain(workload.object(), "NotPlannable", e.getMessage());
                }
            }
        }
        if (!served.isEmpty()) {
            InferenceServices.ClusterGpus gpus = services.gpus();
            // each service's GPUs, kept current through the pass so two services never choose the same GPU
            Map<String, List<String>> heldBy = new LinkedHashMap<>();
            services.services().forEach(s -> heldBy.put(s.name(), s.heldOn()));
            served.forEach((workload, translation) -> {
                try {
                    scale(workload, translation, gpus, heldBy);
                } catch (ManifestException e) {
                    explain(workload.object(), "NotPlannable", e.getMessage());
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "scaling " + Manifests.describe(workload.object()) + " failed; the next pass retries: " + e.getMessage());
                }
            });
        }
        declared.removeIf(name -> {
            if (seen.contains(name)) return false;
            services.remove(name);
            LOG.log(System.Logger.Level.INFO, "inference service " + name + " removed: its workload was deleted");
            return true;
        });
    }

    /**
     * Whether another workload controls the object (KServe's Deployment, a LeaderWorkerSet's StatefulSets, an operator's):
     * its owner would undo the replica count, and the owner is the one sized, when it is a served kind.
     */
    private static boolean controlled(GenericKubernetesResource resource) {
        return resource.getMetadata().getOwnerReferences().stream().anyMatch(o -> Boolean.TRUE.equals(o.getController()));
    }

    /** The kind's objects; none where its operator is not installed; null where the role may not list it. */
    private List<GenericKubernetesResource> list(ServedKind kind) {
        try {
            return kube.genericKubernetesResources(kind.context()).inAnyNamespace().list().getItems();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) return List.of(); // the operator (LWS, KServe) is not installed
            if (e.getCode() != 403) throw e;
            LOG.log(System.Logger.Level.WARNING, "not allowed to list " + kind.name() + "; grant the role list and update on it for Horizon to scale them");
            return null;
        }
    }

    private void scale(ServedWorkload workload, Translation translation, InferenceServices.ClusterGpus gpus, Map<String, List<String>> heldBy) {
        ObjectNode object = workload.object();
        ObjectNode before = object.deepCopy();
        ObjectNode annotations = annotations(object);
        if (!annotations.has(ServingRules.MAX)) {
            annotations.put(ServingRules.MAX, Integer.toString(Math.max(1, workload.mostReplicas())));
            if (!annotations.has(ServingRules.MIN)) workload.fewestReplicas().ifPresent(n -> annotations.put(ServingRules.MIN, Integer.toString(n)));
        }
        ServingRules rules = ServingRules.of(object);
        ReplicaShape shape = workload.shape(translation);
        InferenceServices.Service service = serviceOf(workload, translation.jobs().get(0), rules, shape);
        int replicas = rules.replicasFor(service.forecastGpus(), shape.gpus());
        boolean resized = rules.byHpa() ? writeHpaBounds(object, rules, replicas) : workload.replicas() != replicas;
        if (!rules.byHpa()) workload.replicas(replicas);
        // under an HPA the replicas serving are the more of its floor and what it scaled to
        int serving = rules.byHpa() ? Math.max(replicas, workload.replicas()) : replicas;
        Set<String> others = new HashSet<>();
        heldBy.forEach((name, uuids) -> {
            if (!name.equals(service.name())) others.addAll(uuids);
        });
        List<String> held = ServingGpus.choose(serving, shape, service.heldOn(), gpus, others);
        if (!held.equals(service.heldOn())) services.hold(service.name(), held);
        heldBy.put(service.name(), held);
        String nodes = pin(workload, held, gpus, service.name());
        int missing = serving * shape.gpus() - held.size();
        if (missing == 0) annotations.remove(WorkloadReconciler.EXPLANATION);
        if (!object.equals(before)) writes.write(object);
        if (resized) {
            writes.event(object, "Normal", "Scaled", "Horizon sized it to " + replicas + " replicas (" + replicas * shape.gpus() + " GPUs) for a forecast of "
                    + String.format(Locale.ROOT, "%.1f", service.forecastGpus()) + " GPUs" + (rules.byHpa() ? ", as HorizontalPodAutoscaler "
                    + rules.hpa() + "'s minimum" : "") + "; serving on " + (nodes.isEmpty() ? "no node yet" : nodes));
        }
        if (missing > 0) explain(object, "WaitingForGpus", missing + " of its " + serving * shape.gpus() + " GPUs have no node with room for a whole replica");
    }

    /** The workload's service, declared on first sight; a control plane that refuses it (no such team) is said on the workload. */
    private InferenceServices.Service serviceOf(ServedWorkload workload, JobSpec job, ServingRules rules, ReplicaShape shape) {
        String name = serviceName(workload);
        Optional<InferenceServices.Service> found = services.service(name);
        if (found.isEmpty()) {
            try {
                services.declare(name, job.team(), rules.weightPerGpuHour(), rules.swapCapOr(shape.gpus()));
            } catch (SchedulerException e) {
                throw new ManifestException("the control plane refused inference service " + name + " for team " + job.team() + ": " + e.getMessage());
            }
            writes.event(workload.object(), "Normal", "Declared", "runs as Horizon inference service " + name + " (team " + job.team() + ", "
                    + shape.gpus() + " GPUs a replica)");
            found = services.service(name);
        }
        declared.add(name);
        annotations(workload.object()).put(SERVICE, name);
        return found.orElseThrow(() -> new IllegalStateException("inference service " + name + " was declared but is not there"));
    }

    /** Pins the pods to the held GPUs' nodes and labels them, only when those nodes change; returns them ("node-a,node-b"). */
    private static String pin(ServedWorkload workload, List<String> held, InferenceServices.ClusterGpus gpus, String service) {
        Map<String, InferenceServices.Gpu> byUuid = new LinkedHashMap<>();
        gpus.gpus().forEach(g -> byUuid.put(g.uuid(), g));
        String nodes = String.join(",", ServingGpus.nodesOf(held, byUuid));
        ObjectNode annotations = annotations(workload.object());
        if (!nodes.isEmpty() && !nodes.equals(annotations.path(SERVED_ON).asText())) {
            workload.podSpecs().forEach(spec -> KubeObjects.pin(spec, List.of(nodes.split(","))));
            workload.markPods(service); // in the same write as the pin, so the pods roll once
            annotations.put(SERVED_ON, nodes);
        }
        return nodes;
    }

    private static ObjectNode annotations(ObjectNode object) {
        return KubeObjects.child(KubeObjects.child(object, "metadata"), "annotations");
    }

    /** Writes the HPA's minimum (and its maximum when below it); returns whether they changed. */
    private boolean writeHpaBounds(ObjectNode object, ServingRules rules, int replicas) {
        String namespace = object.path("metadata").path("namespace").asText();
        GenericKubernetesResource found = kube.genericKubernetesResources(HPA).inNamespace(namespace).withName(rules.hpa()).get();
        if (found == null) {
            throw new ManifestException("annotation " + ServingRules.SCALE_BY + ": hpa, but namespace " + namespace + " has no HorizontalPodAutoscaler "
                    + rules.hpa() + "; create it or name it by annotation " + ServingRules.HPA);
        }
        ObjectNode tree = JSON.valueToTree(found);
        ObjectNode spec = KubeObjects.child(tree, "spec");
        if (spec.path("minReplicas").asInt(-1) == replicas && spec.path("maxReplicas").asInt(0) >= replicas) return false;
        spec.put("minReplicas", replicas);
        spec.put("maxReplicas", Math.max(replicas, spec.path("maxReplicas").asInt(0)));
        writes.write(tree);
        return true;
    }

    /** Says once, in the explanation annotation and an event, why the workload is not sized as asked. */
    private void explain(ObjectNode object, String reason, String message) {
        ObjectNode annotations = annotations(object);
        if (message.equals(annotations.path(WorkloadReconciler.EXPLANATION).asText(null))) return;
        annotations.put(WorkloadReconciler.EXPLANATION, message);
        writes.write(object);
        writes.event(object, WARNING, reason, message);
    }

    /** "deployment-serving-llama": the kind, namespace and name as a service name (lower case, '-' for '.', at most 63). */
    static String serviceName(ServedWorkload workload) {
        String name = (workload.kind() + "-" + Manifests.namespace(workload.object(), "default") + "-" + Manifests.name(workload.object()))
                .toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-");
        return name.length() <= 63 ? name : name.substring(0, 63).replaceAll("-+$", "");
    }
}
