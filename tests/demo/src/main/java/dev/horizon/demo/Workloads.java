package dev.horizon.demo;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.JobSpec;
import dev.horizon.kit.manifest.ManifestFile;
import dev.horizon.kit.manifest.TeamRule;
import dev.horizon.kit.manifest.Translation;
import dev.horizon.kubeflow.translate.RuntimeCatalog;
import dev.horizon.kubeflow.translate.TranslationOptions;
import dev.horizon.kubeflow.translate.Translator;
import dev.horizon.ray.translate.FractionalGpuPolicy;
import dev.horizon.ray.translate.KubeRayTranslator;
import dev.horizon.trace.DemoDayScenario;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The day's Kubeflow and Ray jobs as manifests (tests/demo/workloads/*.yaml with the job's fields filled in), turned
 * into job JSON by the adapters' own translation, exactly what their controllers submit to the control plane.
 */
final class Workloads implements DemoDayScenario.Manifests {
    /** Half a GPU's share of memory: the adapter's default time-slicing policy (./horizon translate ray). */
    private static final int SHARED_GPU_MEMORY_MIB = 81_559;

    private final String pytorchJob = template("pytorchjob.yaml");
    private final String rayCluster = template("raycluster.yaml");
    private final Translator kubeflow = new Translator(new TranslationOptions(TeamRule.defaults(), "default", DemoDayScenario.PRIORITY_CLASSES),
            new RuntimeCatalog("default"));
    private final KubeRayTranslator ray = new KubeRayTranslator("default", new FractionalGpuPolicy.TimeSlicing(SHARED_GPU_MEMORY_MIB), TeamRule.defaults());

    @Override
    public JobSpec pytorchJob(String name, String team, String priorityClass, int gpusPerPod, int workers, long estimateSeconds) {
        return only(kubeflow.translate(manifest(pytorchJob, Map.of("name", name, "team", team, "priorityClass", priorityClass,
                "gpusPerPod", String.valueOf(gpusPerPod), "workers", String.valueOf(workers), "estimateSeconds", String.valueOf(estimateSeconds)))), name);
    }

    @Override
    public JobSpec rayCluster(String name, String team, int actors) {
        return only(ray.translate(manifest(rayCluster, Map.of("name", name, "team", team, "actors", String.valueOf(actors)))), name);
    }

    private static JsonNode manifest(String template, Map<String, String> fields) {
        String text = template;
        for (Map.Entry<String, String> f : fields.entrySet()) text = text.replace("{" + f.getKey() + "}", f.getValue());
        List<JsonNode> docs = ManifestFile.parse(text);
        if (docs.size() != 1) throw new IllegalStateException("a demo workload template holds one manifest, not " + docs.size());
        return docs.get(0);
    }

    /** The template yields one GPU job (a RayCluster's head holds none); a warning means the template is out of date. */
    private static JobSpec only(Translation t, String name) {
        if (t.jobs().size() != 1 || !t.warnings().isEmpty()) {
            throw new IllegalStateException("the demo's manifest for " + name + " translated to " + t.jobs().size() + " jobs with warnings " + t.warnings());
        }
        return t.jobs().get(0);
    }

    private static String template(String file) {
        try (InputStream in = Workloads.class.getResourceAsStream("workloads/" + file)) {
            if (in == null) throw new IllegalStateException("the demo's jar lacks workloads/" + file);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
