package dev.horizon.ray;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.horizon.api.JobJson;
import dev.horizon.api.JobSpec;
import dev.horizon.ray.demand.FractionalGpuPolicy;
import dev.horizon.ray.translate.KubeRayTranslator;
import dev.horizon.ray.translate.RayTranslationException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** {@code ./horizon translate ray FILE}: prints the scheduler jobs a KubeRay manifest asks for, or one line saying why not. */
public final class TranslateCommand {
    // the memory NVML reports for an H100 80GB (81559 MiB, not 80 GiB), so that two 0.5-GPU actors fit one GPU
    static final String DEFAULT_FRACTIONAL_POLICY = "time-slicing:81559";
    static final String USAGE = """
            usage: ./horizon translate ray FILE [--namespace NS] [--fractional-gpus POLICY]
              Prints the scheduler job JSON of each KubeRay ray.io/v1 RayCluster, RayJob and RayService in FILE: one job for a head
              that holds GPUs and one for each worker group that does (one object, or an array when there are several). Other
              objects in FILE (ConfigMaps, Services) are passed over. Each manifest is checked against its CRD schema first.
              A cluster that asks for no GPU is not Horizon's and TPUs are not scheduled by Horizon: both are refused.
              --namespace NS            namespace of manifests that name none (default: default)
              --fractional-gpus POLICY  how a fraction of a GPU (KAI's gpu-fraction annotation) is enforced:
                                        time-slicing:MIB (a share of the GPU's time and the same share of MIB of its memory;
                                        default %s) or mig:MODEL (the smallest MIG profile of MODEL that covers it)
              Team: the first of the labels %s, else the namespace.
              Class: the horizon.dev/class label, else training (RayCluster, RayJob) or realtime-inference (RayService)."""
            .formatted(DEFAULT_FRACTIONAL_POLICY, KubeRayTranslator.QUEUE_LABELS);

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
            List<JsonNode> documents = read(Path.of(file));
            List<JobSpec> jobs = new ArrayList<>();
            List<String> passedOver = new ArrayList<>();
            for (JsonNode doc : documents) {
                if (KubeRayTranslator.kindOf(doc).isEmpty()) {
                    passedOver.add(KubeRayTranslator.describe(doc));
                    continue;
                }
                try {
                    jobs.addAll(translator.translate(doc));
                } catch (RayTranslationException e) {
                    throw new RayTranslationException(KubeRayTranslator.describe(doc) + ": " + e.getMessage());
                }
            }
            if (jobs.isEmpty()) throw new RayTranslationException(nothingToPlan(passedOver));
            out.println(JobJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(jobs.size() == 1 ? jobs.get(0) : jobs));
            return 0;
        } catch (IllegalArgumentException e) {
            err.println("horizon: translate: " + file + ": " + e.getMessage());
            return 2;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JobSpec record always serialises", e);
        }
    }

    private static String nothingToPlan(List<String> passedOver) {
        if (passedOver.stream().anyMatch(d -> d.startsWith("RayCronJob "))) {
            return "holds a RayCronJob, which creates a RayJob on each schedule; Horizon plans each RayJob it creates, not the schedule";
        }
        return "holds no ray.io/v1 RayCluster, RayJob or RayService (it holds " + passedOver + ")";
    }

    private static KubeRayTranslator translator(List<String> options) {
        String namespace = "default";
        String policy = DEFAULT_FRACTIONAL_POLICY;
        for (int i = 0; i < options.size(); i += 2) {
            String option = options.get(i);
            if (i + 1 >= options.size()) throw new IllegalArgumentException(option + " needs a value (see --help)");
            switch (option) {
                case "--namespace" -> namespace = options.get(i + 1);
                case "--fractional-gpus" -> policy = options.get(i + 1);
                default -> throw new IllegalArgumentException("unknown option '" + option + "' (see --help)");
            }
        }
        return new KubeRayTranslator(namespace, FractionalGpuPolicy.parse(policy));
    }

    private static List<JsonNode> read(Path path) {
        if (!Files.isRegularFile(path)) throw new IllegalArgumentException("no such file");
        List<JsonNode> documents;
        try {
            documents = new YAMLMapper().readerFor(JsonNode.class).<JsonNode>readValues(Files.readString(path)).readAll();
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not valid YAML (line " + e.getLocation().getLineNr() + "): " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read it: " + e.getMessage());
        }
        List<JsonNode> objects = documents.stream().filter(d -> d != null && d.isObject()).toList();
        if (objects.isEmpty()) throw new IllegalArgumentException("holds no Kubernetes object");
        return objects;
    }
}
