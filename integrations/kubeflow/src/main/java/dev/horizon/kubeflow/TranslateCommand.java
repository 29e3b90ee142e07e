package dev.horizon.kubeflow;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.kit.manifest.GpuModelTable;
import dev.horizon.kit.manifest.KindsRead;
import dev.horizon.kit.manifest.ManifestFile;
import dev.horizon.kit.manifest.Manifests;
import dev.horizon.kit.manifest.TeamRule;
import dev.horizon.kit.manifest.Translation;
import dev.horizon.kubeflow.batch.BatchKind;
import dev.horizon.kubeflow.batch.BatchTranslator;
import dev.horizon.kubeflow.serving.ServingKind;
import dev.horizon.kubeflow.serving.ServingTranslator;
import dev.horizon.kubeflow.translate.KubeflowKind;
import dev.horizon.kubeflow.translate.RuntimeCatalog;
import dev.horizon.kubeflow.translate.TranslationException;
import dev.horizon.kubeflow.translate.TranslationOptions;
import dev.horizon.kubeflow.translate.Translator;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * {@code ./horizon translate kubeflow FILE}: prints the scheduler job(s) a manifest asks for, or one line saying why
 * not; warnings (documents skipped, a generateName, a field of an older Trainer release) go to stderr, one a line.
 */
public final class TranslateCommand {
    static final String USAGE = """
            usage: ./horizon translate [kubeflow] FILE [--runtime FILE]... [--team-from SOURCES] [--queue-teams FILE] [--namespace NS]
                   [--priority-class NAME=P]... [--gpu-models FILE]
              Prints the scheduler job JSON of each Kubeflow training job in FILE (PyTorchJob, TFJob, MPIJob, XGBoostJob, PaddleJob,
              JAXJob of kubeflow.org/v1; MPIJob of kubeflow.org/v2beta1; TrainJob of trainer.kubeflow.org/v1alpha1, Trainer 2.0 to 2.3)
              and each batch workload (Job of batch/v1, Pod of v1, JobSet of jobset.x-k8s.io/v1alpha2, Job of batch.volcano.sh/v1alpha1)
              and model-serving workload, as real-time inference (a Deployment or StatefulSet labelled horizon.dev/inference: "true",
              LeaderWorkerSet of leaderworkerset.x-k8s.io/v1, InferenceService of serving.kserve.io/v1beta1):
              one object, or an array when FILE holds several. Other objects in FILE (ConfigMaps, Services) are skipped and listed.
              Each manifest is checked against its CRD schema first. A job that asks for no GPU is not Horizon's: it is refused.
              --runtime FILE       TrainingRuntime / ClusterTrainingRuntime manifests that TrainJobs refer to (runtimes in FILE count too)
              --team-from SOURCES  where the team comes from, first match wins (default queue-label,scheduling-queue,namespace):
                                   kueue (kueue.x-k8s.io/queue-name), kai (kai.scheduler/queue), volcano
                                   (scheduling.volcano.sh/queue-name), yunikorn (yunikorn.apache.org/queue), queue-label (the first of
                                   those four), scheduling-queue (runPolicy.schedulingPolicy.queue; a Volcano Job's spec.queue),
                                   namespace
              --queue-teams FILE   the team of each queue where queues are not team names: queues: {QUEUE: TEAM, NAMESPACE/QUEUE: TEAM}
              --namespace NS       namespace of manifests that name none (default: default)
              --priority-class NAME=P  Horizon priority for schedulingPolicy.priorityClass NAME, or a batch workload's pods'
                                   priorityClassName (unlisted classes get the default)
              --gpu-models FILE    extends the table of node labels that pin GPU models (nodeSelector and required node affinity on
                                   nvidia.com/gpu.product, cloud.google.com/gke-accelerator, karpenter.k8s.aws/instance-gpu-name, ...
                                   become gpuTypes): labels: {LABEL: {VALUE: [MODEL]}}, instanceTypes: {TYPE: [MODEL]}
                                   (default: HORIZON_GPU_MODELS)
              Labels and annotations read: horizon.dev/class (label; default training), horizon.dev/duration-estimate (annotation:
              3600, 90m, 4h; without it the control plane uses what it learned from the team's finished jobs).""";

    /** What this command reads: the Kubeflow jobs and runtimes, the batch kinds and the model-serving kinds. */
    public static final KindsRead READ = new KindsRead("Kubeflow training job, Kubernetes batch or model-serving workload",
            Stream.of(KubeflowKind.READ, BatchKind.READ, ServingKind.READ).flatMap(r -> r.kinds().stream()).toList());

    private TranslateCommand() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length >= 2 && Arrays.asList(args).subList(2, args.length).stream().anyMatch(a -> a.equals("-h") || a.equals("--help"))) {
            out.println(USAGE);
            return 0;
        }
        if (args.length < 3 || !args[0].equals("translate") || !args[1].equals("kubeflow")) {
            err.println("horizon: translate: give a manifest file: ./horizon translate kubeflow FILE (see --help)");
            return 2;
        }
        String file = args[2];
        try {
            List<JsonNode> jobs = new ArrayList<>();
            List<String> warnings = new ArrayList<>();
            Function<JsonNode, Translation> translator = parse(args, file, jobs, warnings);
            Translation.ofAll(jobs, translator, warnings).print(file, out, err);
            return 0;
        } catch (IllegalArgumentException e) {
            err.println("horizon: translate: " + file + ": " + e.getMessage());
            return 2;
        }
    }

    /** Reads the options and FILE; the jobs found in FILE are added to {@code jobs}, the documents skipped to {@code warnings}. */
    private static Function<JsonNode, Translation> parse(String[] args, String file, List<JsonNode> jobs, List<String> warnings) {
        String teamFrom = null;
        String queueTeams = null;
        String gpuModels = System.getenv("HORIZON_GPU_MODELS");
        String namespace = TranslationOptions.defaults().defaultNamespace();
        Map<String, Integer> priorities = new HashMap<>();
        List<String> runtimeFiles = new ArrayList<>();
        for (int i = 3; i < args.length; i++) {
            String option = args[i];
            if (i + 1 >= args.length) throw new IllegalArgumentException(option + " needs a value (see --help)");
            String value = args[++i];
            switch (option) {
                case "--runtime" -> runtimeFiles.add(value);
                case "--team-from" -> teamFrom = value;
                case "--queue-teams" -> queueTeams = value;
                case "--namespace" -> namespace = value;
                case "--gpu-models" -> gpuModels = value;
                case "--priority-class" -> {
                    String[] kv = value.split("=", 2);
                    if (kv.length != 2 || !kv[1].matches("\\d+")) throw new IllegalArgumentException("--priority-class wants NAME=P with P a whole number (got '" + value + "')");
                    priorities.put(kv[0], Integer.parseInt(kv[1]));
                }
                default -> throw new IllegalArgumentException("unknown option '" + option + "' (see --help)");
            }
        }
        TeamRule teams = TeamRule.configured(teamFrom, "--team-from", queueTeams, "--queue-teams");
        RuntimeCatalog catalog = new RuntimeCatalog(namespace);
        for (String runtimeFile : runtimeFiles) {
            List<JsonNode> notRuntimes;
            try {
                notRuntimes = catalog.addRuntimesFrom(ManifestFile.read(Path.of(runtimeFile)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--runtime " + runtimeFile + ": " + e.getMessage());
            }
            if (!notRuntimes.isEmpty()) throw new IllegalArgumentException("--runtime " + runtimeFile + " holds " + Manifests.describe(notRuntimes.get(0)) + ", not a runtime");
        }
        List<JsonNode> documents = ManifestFile.read(Path.of(file));
        KindsRead.Selection selection = READ.select(documents);
        if (selection.read().isEmpty()) throw new TranslationException(selection.nothingRead());
        warnings.addAll(selection.warnings());
        jobs.addAll(catalog.addRuntimesFrom(selection.read()));
        if (jobs.isEmpty()) {
            throw new TranslationException("holds only runtimes (" + selection.read().stream().map(Manifests::describe).toList() + "), which are"
                    + " templates for TrainJobs, not jobs; pass them with --runtime to translate a TrainJob that uses them");
        }
        TranslationOptions options = new TranslationOptions(teams, namespace, priorities, GpuModelTable.configured(gpuModels, "--gpu-models"));
        Translator kubeflow = new Translator(options, catalog);
        BatchTranslator batch = new BatchTranslator(options);
        ServingTranslator serving = new ServingTranslator(options);
        return doc -> BatchKind.of(doc).isPresent() ? batch.translate(doc)
                : ServingKind.of(doc).isPresent() ? serving.translate(doc) : kubeflow.translate(doc);
    }
}
