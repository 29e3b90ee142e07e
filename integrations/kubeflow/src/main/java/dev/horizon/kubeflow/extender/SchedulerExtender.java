package dev.horizon.kubeflow.extender;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.JobClass;
import dev.horizon.api.JobSource;
import dev.horizon.api.JobSpec;
import dev.horizon.api.scheduler.SchedulerClient;
import dev.horizon.api.scheduler.SchedulerJob;
import dev.horizon.kit.InferenceScaler;
import dev.horizon.kit.WorkloadReconciler;
import dev.horizon.kit.manifest.ManifestException;
import dev.horizon.kit.manifest.Manifests;
import dev.horizon.kit.manifest.TeamRule;
import dev.horizon.kubeflow.translate.GpuAsk;
import dev.horizon.kubeflow.translate.KubeflowKind;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The kube-scheduler extender verbs (filter, prioritize, bind) for GPU pods that belong to no
 * training job: such a pod is submitted to Horizon as a one-replica job and may only land on the
 * node the plan gives it; until then every node fails with the plan's explanation. Pods of training
 * jobs and of served workloads pass untouched (the controller and the inference scaler already pinned them), as do pods
 * without GPUs. Keys of the
 * extender JSON are read case-insensitively, as Go's decoder does.
 */
public final class SchedulerExtender {
    /** kube-scheduler's MaxExtenderPriority: the score of a planned node. */
    static final int PLANNED_SCORE = 10;
    /** Labels the training operator, JobSet (Trainer) and Trainer put on the pods of their jobs. */
    private static final List<String> TRAINING_POD_LABELS = List.of("training.kubeflow.org/job-name", "jobset.sigs.k8s.io/jobset-name",
            "trainer.kubeflow.org/trainjob-ancestor-step");
    /**
     * Labels on the pods of a served workload the inference scaler runs (its own label on Deployment, StatefulSet and
     * LeaderWorkerSet templates, and the operators' on LeaderWorkerSet and KServe pods): their GPUs are the service's,
     * held and pinned by the scaler, so they are not submitted again.
     */
    private static final List<String> SERVING_POD_LABELS = List.of(InferenceScaler.SERVICE, "leaderworkerset.sigs.k8s.io/name",
            "serving.kserve.io/inferenceservice");
    /** Owners whose pods the controller plans through the owner: a JobSet, and a batch Job (held by spec.suspend). */
    private static final Set<String> TRAINING_OWNERS = Set.of("JobSet", "Job");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final SchedulerClient scheduler;
    private final PodBinder binder;
    private final Clock clock;
    private final TeamRule teams;
    /** Pod UID (or namespace/name) to its scheduler job id. */
    private final Map<String, String> jobs = new ConcurrentHashMap<>();

    public SchedulerExtender(SchedulerClient scheduler, PodBinder binder, Clock clock, TeamRule teams) {
        this.scheduler = scheduler;
        this.binder = binder;
        this.clock = clock;
        this.teams = teams;
    }

    /** ExtenderArgs in, ExtenderFilterResult out. */
    public String filter(String body) {
        JsonNode args = read(body);
        JsonNode pod = field(args, "pod");
        List<String> candidates = candidates(args);
        ObjectNode result = JsonNodeFactory.instance.objectNode();
        ObjectNode failed = result.putObject("failedNodes");
        List<String> passing = new ArrayList<>();
        SchedulerJob planned = plannedJob(pod);
        String why = planned == null || planned.placement() != null ? null : scheduler.explanation(planned.id(), false).sentence(clock);
        for (String node : candidates) {
            if (planned == null || planned.placement() != null && planned.placement().nodes().contains(node)) passing.add(node);
            else failed.put(node, why != null ? "Horizon: " + why : "Horizon planned this pod onto " + String.join(",", planned.placement().nodes()));
        }
        if (field(args, "nodenames").isArray()) {
            passing.forEach(result.putArray("nodeNames")::add);
        } else {
            ArrayNode items = JsonNodeFactory.instance.arrayNode();
            for (JsonNode node : field(field(args, "nodes"), "items")) {
                if (passing.contains(field(field(node, "metadata"), "name").asText())) items.add(node);
            }
            result.putObject("nodes").set("items", items);
        }
        result.put("error", "");
        return result.toString();
    }

    /** ExtenderArgs in, HostPriorityList out: the planned nodes score highest. */
    public String prioritize(String body) {
        JsonNode args = read(body);
        SchedulerJob planned = plannedJob(field(args, "pod"));
        ArrayNode scores = JsonNodeFactory.instance.arrayNode();
        for (String node : candidates(args)) {
            boolean onPlan = planned != null && planned.placement() != null && planned.placement().nodes().contains(node);
            scores.addObject().put("host", node).put("score", onPlan ? PLANNED_SCORE : 0);
        }
        return scores.toString();
    }

    /** ExtenderBindingArgs in, ExtenderBindingResult out. */
    public String bind(String body) {
        JsonNode args = read(body);
        String namespace = field(args, "podnamespace").asText();
        String pod = field(args, "podname").asText();
        String uid = field(args, "poduid").asText();
        String node = field(args, "node").asText();
        ObjectNode result = JsonNodeFactory.instance.objectNode();
        String id = jobs.get(uid.isEmpty() ? namespace + "/" + pod : uid);
        if (id != null) {
            SchedulerJob job = scheduler.job(id);
            if (job.placement() == null || !job.placement().nodes().contains(node)) {
                return result.put("error", "Horizon has not planned pod " + namespace + "/" + pod + " onto " + node).toString();
            }
        }
        try {
            binder.bind(namespace, pod, uid, node);
            return result.put("error", "").toString();
        } catch (RuntimeException e) {
            return result.put("error", "binding " + namespace + "/" + pod + " to " + node + " failed: " + e.getMessage()).toString();
        }
    }

    /** The pod's scheduler job (submitted on first sight), or null when the pod is not Horizon's to place. */
    private SchedulerJob plannedJob(JsonNode pod) {
        JsonNode metadata = field(pod, "metadata");
        if (pinnedByItsWorkload(metadata)) return null;
        GpuAsk ask;
        try {
            ask = GpuAsk.ofPod(canonicalResources(field(pod, "spec")), "pod.spec");
        } catch (ManifestException e) {
            return null; // asks for something Horizon does not plan: the default scheduler decides
        }
        if (!ask.any()) return null;
        String namespace = field(metadata, "namespace").asText("default");
        String name = field(metadata, "name").asText();
        String uid = field(metadata, "uid").asText();
        String id = jobs.computeIfAbsent(uid.isEmpty() ? namespace + "/" + name : uid, k -> scheduler.submit(new JobSpec(name,
                team(metadata, namespace), podClass(metadata), null, 1, null, ask.shape(), null, null, null, null,
                new JobSource("Pod", namespace, name))));
        return scheduler.job(id);
    }

    private static boolean pinnedByItsWorkload(JsonNode metadata) {
        JsonNode labels = field(metadata, "labels");
        if (TRAINING_POD_LABELS.stream().anyMatch(labels::has) || SERVING_POD_LABELS.stream().anyMatch(labels::has)) return true;
        // a bare Pod the controller held by its scheduling gate and released, pinned, onto its own scheduler job
        if (field(metadata, "annotations").has(WorkloadReconciler.JOB_ID)) return true;
        for (JsonNode owner : field(metadata, "ownerreferences")) {
            String kind = field(owner, "kind").asText();
            if (TRAINING_OWNERS.contains(kind) || KubeflowKind.jobs().stream().anyMatch(k -> k.kind().equals(kind))) return true;
        }
        return false;
    }

    /** The pod's team by the rule every adapter uses, read from its labels and annotations in Kubernetes' spelling. */
    private String team(JsonNode metadata, String namespace) {
        ObjectNode canonical = JsonNodeFactory.instance.objectNode();
        ObjectNode meta = canonical.putObject("metadata");
        meta.set("labels", field(metadata, "labels"));
        meta.set("annotations", field(metadata, "annotations"));
        return teams.team(canonical, namespace);
    }

    /** A bare GPU pod is most often a notebook or a debugging session; horizon.dev/class says otherwise. */
    private static JobClass podClass(JsonNode metadata) {
        String label = field(metadata, "labels").path(Manifests.CLASS_LABEL).asText("");
        try {
            return label.isEmpty() ? JobClass.INTERACTIVE : JobClass.valueOf(label.toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            return JobClass.INTERACTIVE;
        }
    }

    private static List<String> candidates(JsonNode args) {
        List<String> names = new ArrayList<>();
        JsonNode nodeNames = field(args, "nodenames");
        if (nodeNames.isArray()) nodeNames.forEach(n -> names.add(n.asText()));
        else field(field(args, "nodes"), "items").forEach(n -> names.add(field(field(n, "metadata"), "name").asText()));
        return names;
    }

    /** The pod spec with its structural keys in Kubernetes' spelling, so GpuAsk reads it whatever case the sender used. */
    private static JsonNode canonicalResources(JsonNode spec) {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        for (String list : List.of("containers", "initContainers")) {
            ArrayNode containers = out.putArray(list);
            for (JsonNode c : field(spec, list)) {
                JsonNode resources = field(c, "resources");
                ObjectNode copy = containers.addObject().putObject("resources");
                if (field(resources, "limits").isObject()) copy.set("limits", field(resources, "limits"));
                if (field(resources, "requests").isObject()) copy.set("requests", field(resources, "requests"));
            }
        }
        return out;
    }

    /** An object's field by name, ignoring case as Go's JSON decoder does. */
    static JsonNode field(JsonNode object, String name) {
        if (object == null || !object.isObject()) return MissingNode.getInstance();
        JsonNode exact = object.get(name);
        if (exact != null) return exact;
        for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().equalsIgnoreCase(name)) return e.getValue();
        }
        return MissingNode.getInstance();
    }

    private static JsonNode read(String body) {
        try {
            JsonNode node = JSON.readTree(body);
            if (node == null || !node.isObject()) throw new IllegalArgumentException("the body is not a JSON object");
            return node;
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the body is not JSON: " + e.getOriginalMessage());
        }
    }
}
