package dev.horizon.kubeflow.translate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.horizon.api.JobClass;
import dev.horizon.api.JobSource;
import dev.horizon.api.JobSpec;
import dev.horizon.kit.manifest.GpuLimits;
import dev.horizon.kit.manifest.ManifestException;
import dev.horizon.kit.manifest.Manifests;
import dev.horizon.kit.manifest.NodeSelection;
import dev.horizon.kit.manifest.Translation;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns one Kubeflow training job into the scheduler job it asks for, after checking it against its
 * CRD schema. GPU replicas become the job's replicas; replicas without GPUs (a parameter server, an
 * MPI launcher) run beside them and are released with them.
 */
public final class Translator {
    public static final String DURATION_ANNOTATION = "horizon.dev/duration-estimate";
    /** Trainer marks the replicated job that trains (as opposed to dataset and model initializers) with this label. */
    static final String ANCESTOR_STEP_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step";
    /** Trainer's name for the training step and for its trainer container. */
    static final String TRAINER_NODE = "node";
    private static final Pattern DURATION = Pattern.compile("(?:(\\d+)h)?(?:(\\d+)m)?(?:(\\d+)s)?");

    private final TranslationOptions options;
    private final RuntimeResolver runtimes;

    public Translator(TranslationOptions options, RuntimeResolver runtimes) {
        this.options = options;
        this.runtimes = runtimes;
    }

    /** The scheduler job of one Kubeflow job, with what the translation read differently from how it is written. */
    public Translation translate(JsonNode manifest) {
        KubeflowKind kind = KubeflowKind.of(manifest).orElseThrow(() -> new TranslationException(Manifests.describe(manifest) + ": not a "
                + KubeflowKind.READ.what() + "; Horizon reads " + KubeflowKind.jobs().stream().map(k -> k.kind() + " " + k.apiVersion()).toList()));
        if (kind.isRuntime()) {
            throw new TranslationException(Manifests.describe(manifest) + " is a runtime, a template that TrainJobs refer to, not a job;"
                    + " Horizon plans the TrainJobs that use it");
        }
        List<String> warnings = new ArrayList<>(validate(kind, manifest, ""));
        String name = Manifests.nameOrPrefix(manifest);
        if (name.isEmpty()) throw new TranslationException("metadata.name: is required (or metadata.generateName)");
        Optional.ofNullable(Manifests.generateNameWarning(manifest)).ifPresent(warnings::add);
        Replicas replicas = kind.hasReplicaSpecs() ? replicaSpecs(kind, manifest, warnings) : trainJob(manifest, warnings);
        replicas.pods().forEach((path, pod) -> warnings.addAll(GpuLimits.requestsWithoutLimits(pod, path)));
        NodeSelection selection = NodeSelection.ofAll(replicas.pods(), options.gpuModels());
        warnings.addAll(selection.warnings());
        String namespace = Manifests.namespace(manifest, options.defaultNamespace());
        JobSpec spec = new JobSpec(name, options.teams().team(manifest, namespace), Manifests.jobClass(manifest, JobClass.TRAINING),
                priority(manifest.path("spec").path("runPolicy").path("schedulingPolicy")), replicas.count,
                replicas.min < replicas.count ? replicas.min : null, replicas.ask.shape().onModels(selection.models().orElse(null)), true, null, durationEstimate(manifest), null,
                new JobSource(kind.kind(), namespace, name));
        List<String> problems = spec.problems();
        if (!problems.isEmpty()) throw new TranslationException("the scheduler job would be invalid: " + String.join("; ", problems));
        return new Translation(List.of(spec), warnings);
    }

    /**
     * Checks the document against its kind's schema (of every release, for Trainer's kinds) and returns the warnings;
     * {@code subject} names a document other than the job ("ClusterTrainingRuntime torch-distributed"), else is empty.
     */
    private static List<String> validate(KubeflowKind kind, JsonNode doc, String subject) {
        try {
            return CrdSchemas.of(kind).check(doc).stream().map(w -> subject.isEmpty() ? w : subject + ": " + w).toList();
        } catch (ManifestException e) {
            throw new TranslationException(subject.isEmpty() ? e.getMessage() : subject + " " + e.getMessage());
        }
    }

    /** GPU replicas and the fewest the job can start with; every GPU replica asks for the same shape; their pod specs by path. */
    private record Replicas(int count, int min, GpuAsk ask, Map<String, JsonNode> pods) {
    }

    private Replicas replicaSpecs(KubeflowKind kind, JsonNode manifest, List<String> warnings) {
        JsonNode specs = manifest.path("spec").path(kind.replicaSpecsField());
        String base = "spec." + kind.replicaSpecsField();
        int gpuReplicas = 0;
        int otherPods = 0;
        GpuAsk shape = GpuAsk.NONE;
        String shapeFrom = null;
        int elasticGpuWorkers = 0;
        Map<String, JsonNode> pods = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = specs.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String path = base + "[" + e.getKey() + "]";
            int count = e.getValue().path("replicas").asInt(1);
            GpuAsk ask = GpuAsk.ofPod(e.getValue().path("template").path("spec"), path + ".template.spec");
            if (!ask.any() || count == 0) {
                otherPods += count;
                continue;
            }
            if (shape.any() && !shape.equals(ask)) {
                throw new TranslationException(path + ": asks for " + ask.describe() + " per replica but " + shapeFrom + " asks for "
                        + shape.describe() + "; Horizon plans one GPU shape per job, so give every GPU replica the same limits");
            }
            shape = ask;
            shapeFrom = path;
            pods.put(path + ".template.spec", e.getValue().path("template").path("spec"));
            gpuReplicas += count;
            if (e.getKey().equals("Worker")) elasticGpuWorkers = count;
        }
        if (!shape.any()) throw new NoGpuRequestedException(Manifests.describe(manifest));
        slotsBeyondGpus(manifest, shape).ifPresent(warnings::add);
        int min = gpuReplicas;
        JsonNode elastic = manifest.path("spec").path("elasticPolicy");
        if (elastic.has("minReplicas") && elasticGpuWorkers > 0) {
            // elasticPolicy bounds the Worker replicas only; the other GPU replicas are always needed
            min = gpuReplicas - elasticGpuWorkers + Math.min(elastic.get("minReplicas").asInt(), elasticGpuWorkers);
        }
        JsonNode minAvailable = manifest.path("spec").path("runPolicy").path("schedulingPolicy").path("minAvailable");
        if (minAvailable.isInt()) {
            // minAvailable counts every pod of the gang; the pods without GPUs are always among them
            min = Math.min(min, minAvailable.asInt() - otherPods);
        }
        return new Replicas(gpuReplicas, Math.max(1, min), shape, pods);
    }

    /**
     * An MPIJob starts slotsPerWorker MPI processes on each worker; more processes than the worker holds GPUs share them,
     * which Horizon does not plan for (it gives each worker its GPUs, not each process).
     */
    private static Optional<String> slotsBeyondGpus(JsonNode manifest, GpuAsk shape) {
        JsonNode slots = manifest.path("spec").path("slotsPerWorker");
        if (!slots.isInt() || shape.migProfile() != null || slots.asInt() <= shape.gpus()) return Optional.empty();
        return Optional.of("spec.slotsPerWorker: " + slots.asInt() + " MPI processes per worker share its " + shape.describe()
                + "; Horizon plans " + shape.describe() + " per worker, so give each worker as many GPUs as slots if each process needs one");
    }

    private Replicas trainJob(JsonNode trainJob, List<String> warnings) {
        JsonNode ref = trainJob.path("spec").path("runtimeRef");
        String group = ref.path("apiGroup").asText(KubeflowKind.TRAIN_JOB.group());
        String kindName = ref.path("kind").asText(KubeflowKind.CLUSTER_TRAINING_RUNTIME.kind());
        KubeflowKind kind = KubeflowKind.of(group + "/" + KubeflowKind.TRAIN_JOB.version(), kindName).filter(KubeflowKind::isRuntime)
                .orElseThrow(() -> new TranslationException("spec.runtimeRef: " + group + " " + kindName + " is not a Trainer runtime; use "
                        + KubeflowKind.TRAINING_RUNTIME.kind() + " or " + KubeflowKind.CLUSTER_TRAINING_RUNTIME.kind()));
        String name = ref.path("name").asText();
        String namespace = Manifests.namespace(trainJob, options.defaultNamespace());
        JsonNode runtime = runtimes.find(kind, namespace, name).orElseThrow(() -> new TranslationException("spec.runtimeRef: "
                + kind.kind() + " '" + name + "'" + (kind.namespaced() ? " in namespace '" + namespace + "'" : "") + " is not known; create it"
                + " in the cluster, put it in the same file, or pass it with --runtime FILE"));
        String runtimeName = kind.kind() + " " + name;
        warnings.addAll(validate(kind, runtime, runtimeName));

        JsonNode jobs = runtime.path("spec").path("template").path("spec").path("replicatedJobs");
        int trainer = trainerStep(jobs);
        if (trainer < 0) {
            throw new TranslationException(runtimeName + ": spec.template.spec.replicatedJobs has no trainer step (a replicated job named '"
                    + TRAINER_NODE + "' or labelled " + ANCESTOR_STEP_LABEL + ": trainer)");
        }
        String podPath = "spec.template.spec.replicatedJobs[" + trainer + "].template.spec.template.spec";
        JsonNode pod = jobs.get(trainer).path("template").path("spec").path("template").path("spec");
        JsonNode perNode = trainJob.path("spec").path("trainer").path("resourcesPerNode");
        if (perNode.isObject()) warnings.addAll(GpuLimits.ofResources(perNode, "spec.trainer.resourcesPerNode"));
        GpuAsk ask = perNode.isObject()
                ? withTrainerResources(pod, perNode)
                : GpuAsk.ofPod(pod, runtimeName + " " + podPath);
        if (!ask.any()) throw new NoGpuRequestedException(Manifests.describe(trainJob) + " (runtime " + runtimeName + ")");
        int nodes = trainJob.path("spec").path("trainer").path("numNodes").asInt(runtime.path("spec").path("mlPolicy").path("numNodes").asInt(1));
        return new Replicas(nodes, nodes, ask, Map.of(runtimeName + " " + podPath, pod));
    }

    /** resourcesPerNode replaces the trainer container's resources; the pod's other containers keep theirs. */
    private static GpuAsk withTrainerResources(JsonNode pod, JsonNode perNode) {
        ObjectNode patched = pod.deepCopy();
        boolean replaced = false;
        for (JsonNode container : patched.withArray("containers")) {
            if (TRAINER_NODE.equals(container.path("name").asText())) {
                ((ObjectNode) container).set("resources", perNode);
                replaced = true;
            }
        }
        if (!replaced) patched.withArray("containers").addObject().put("name", TRAINER_NODE).set("resources", perNode);
        return GpuAsk.ofPod(patched, "the trainer pod with spec.trainer.resourcesPerNode");
    }

    private static int trainerStep(JsonNode replicatedJobs) {
        for (int i = 0; i < replicatedJobs.size(); i++) {
            if ("trainer".equals(replicatedJobs.get(i).path("template").path("metadata").path("labels").path(ANCESTOR_STEP_LABEL).asText())) return i;
        }
        for (int i = 0; i < replicatedJobs.size(); i++) {
            if (TRAINER_NODE.equals(replicatedJobs.get(i).path("name").asText())) return i;
        }
        return -1;
    }

    private Integer priority(JsonNode schedulingPolicy) {
        String priorityClass = schedulingPolicy.path("priorityClass").asText(null);
        return priorityClass == null ? null : options.priorityClasses().get(priorityClass);
    }

    /**
     * The annotation's estimate, or none: the control plane then uses what it learned from the team's
     * finished jobs of the same class.
     */
    public static Long durationEstimate(JsonNode manifest) {
        String text = Manifests.annotation(manifest, DURATION_ANNOTATION);
        if (text == null) return null;
        String t = text.trim();
        if (t.matches("\\d+")) return Long.parseLong(t);
        Matcher m = DURATION.matcher(t);
        if (t.isEmpty() || !m.matches()) {
            throw new TranslationException("metadata.annotations[" + DURATION_ANNOTATION + "]: '" + text + "' is not a duration such as"
                    + " 3600, 90m, 4h or 1h30m");
        }
        return group(m, 1) * 3600 + group(m, 2) * 60 + group(m, 3);
    }

    private static long group(Matcher m, int g) {
        return m.group(g) == null ? 0 : Long.parseLong(m.group(g));
    }
}
