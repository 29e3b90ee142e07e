package dev.horizon.ray;

import dev.horizon.kit.manifest.GpuModelTable;
import dev.horizon.kit.manifest.KindsRead;
import dev.horizon.kit.manifest.ManifestFile;
import dev.horizon.kit.manifest.TeamRule;
import dev.horizon.kit.manifest.Translation;
import dev.horizon.ray.translate.FractionalGpuPolicy;
import dev.horizon.ray.translate.KubeRayTranslator;
import dev.horizon.ray.translate.RayKind;
import dev.horizon.ray.translate.RayTranslationException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * {@code ./horizon translate ray FILE}: prints the scheduler jobs a KubeRay manifest asks for, or one line saying why
 * not; warnings (documents skipped, a replica count clamped, num-gpus that the pod's limit does not back) go to stderr.
 */
public final class TranslateCommand {
    // the memory NVML reports for an H100 80GB (81559 MiB, not 80 GiB), so that two 0.5-GPU actors fit one GPU
    static final String DEFAULT_FRACTIONAL_POLICY = "time-slicing:81559";
    static final String USAGE = """
            usage: ./horizon translate ray FILE [--namespace NS] [--fractional-gpus POLICY] [--team-from SOURCES] [--queue-teams FILE]
                   [--gpu-models FILE]
              Prints the scheduler job JSON of each KubeRay ray.io/v1 RayCluster, RayJob and RayService in FILE: one job for a head
              that holds GPUs and one for each worker group that does (one object, or an array when there are several). Other
              objects in FILE (ConfigMaps, Services) are skipped and listed. Each manifest is checked against its CRD schema first.
              A cluster that asks for no GPU is not Horizon's, and Horizon plans NVIDIA GPUs only: both are refused.
              Worker groups count replicas clamped to [minReplicas, maxReplicas] as KubeRay does, GPUs as the pods' nvidia.com/gpu
              limits give them (rayStartParams num-gpus saying otherwise is a warning).
              --namespace NS            namespace of manifests that name none (default: default)
              --fractional-gpus POLICY  how a fraction of a GPU (KAI's gpu-fraction annotation) is enforced:
                                        time-slicing:MIB (a share of the GPU's time and the same share of MIB of its memory;
                                        default %s) or mig:MODEL (the smallest MIG profile of MODEL that covers it)
              --team-from SOURCES       where the team comes from, first match wins (default: queue-label, then namespace):
                                        kueue (kueue.x-k8s.io/queue-name), kai (kai.scheduler/queue), volcano
                                        (scheduling.volcano.sh/queue-name or volcano.sh/queue-name), yunikorn
                                        (yunikorn.apache.org/queue), queue-label (the first of those four), namespace
              --queue-teams FILE        the team of each queue where queues are not team names:
                                        queues: {QUEUE: TEAM, NAMESPACE/QUEUE: TEAM}
              --gpu-models FILE         extends the table of node labels that pin GPU models (a group's nodeSelector and required
                                        node affinity on nvidia.com/gpu.product, cloud.google.com/gke-accelerator, ... become its
                                        gpuTypes): labels: {LABEL: {VALUE: [MODEL]}}, instanceTypes: {TYPE: [MODEL]}
                                        (default: HORIZON_GPU_MODELS)
              Class: the horizon.dev/class label, else training (RayCluster, RayJob) or realtime-inference (RayService, and a
              RayCluster whose head or workers start Ray Serve with serve run, serve deploy or serve start)."""
            .formatted(DEFAULT_FRACTIONAL_POLICY);

    private TranslateCommand() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        List<String> options = Arrays.asList(args).subList(Math.min(2, args.length), args.length);
        if (options.contains("-h") || options.contains("--help")) {
            out.println(USAGE);
            return 0;
        }
        if (args.length < 3 || !args[0].equals("translate") || !args[1].equals("ray")) {
            err.println("horizon: translate: give a manifest file: ./horizon translate ray FILE (see --help)");
            return 2;
        }
        String file = args[2];
        try {
            KubeRayTranslator translator = translator(options.subList(1, options.size()));
            KindsRead.Selection selection = RayKind.READ.select(ManifestFile.read(Path.of(file)));
            if (selection.read().isEmpty()) throw new RayTranslationException(nothingToPlan(selection));
            Translation.ofAll(selection.read(), translator::translate, selection.warnings()).print(file, out, err);
            return 0;
        } catch (IllegalArgumentException e) {
            err.println("horizon: translate: " + file + ": " + e.getMessage());
            return 2;
        }
    }

    private static String nothingToPlan(KindsRead.Selection selection) {
        if (selection.skipped().stream().anyMatch(d -> d.path("kind").asText().equals("RayCronJob"))) {
            return "holds a RayCronJob, which creates a RayJob on each schedule; Horizon plans each RayJob it creates, not the schedule";
        }
        return selection.nothingRead();
    }

    private static KubeRayTranslator translator(List<String> options) {
        String namespace = "default";
        String policy = DEFAULT_FRACTIONAL_POLICY;
        String teamFrom = null;
        String queueTeams = null;
        String gpuModels = System.getenv("HORIZON_GPU_MODELS");
        for (int i = 0; i < options.size(); i += 2) {
            String option = options.get(i);
            if (i + 1 >= options.size()) throw new IllegalArgumentException(option + " needs a value (see --help)");
            String value = options.get(i + 1);
            switch (option) {
                case "--namespace" -> namespace = value;
                case "--fractional-gpus" -> policy = value;
                case "--team-from" -> teamFrom = value;
                case "--queue-teams" -> queueTeams = value;
                case "--gpu-models" -> gpuModels = value;
                default -> throw new IllegalArgumentException("unknown option '" + option + "' (see --help)");
            }
        }
        return new KubeRayTranslator(namespace, FractionalGpuPolicy.parse(policy), TeamRule.configured(teamFrom, "--team-from", queueTeams, "--queue-teams"),
                GpuModelTable.configured(gpuModels, "--gpu-models"));
    }
}
