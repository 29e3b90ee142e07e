package dev.horizon.kit.manifest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.JobJson;
import dev.horizon.api.JobSpec;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * What one manifest asks of the scheduler: its jobs, and warnings about what the translation read differently from how
 * it is written (a worker count clamped as the operator clamps it, a generateName, a field of an older release) that
 * the user should see: {@code translate} prints them, the controllers record them on the workload.
 */
public record Translation(List<JobSpec> jobs, List<String> warnings) {
    public Translation {
        jobs = List.copyOf(jobs);
        warnings = List.copyOf(warnings);
    }

    /**
     * Translates each document of a file, naming the document ("PyTorchJob ml/bert: ...") in its warnings and in the
     * refusal of the first one Horizon cannot plan; {@code before} are the file's own warnings (documents skipped).
     */
    public static Translation ofAll(List<JsonNode> docs, Function<JsonNode, Translation> translate, List<String> before) {
        List<JobSpec> jobs = new ArrayList<>();
        List<String> warnings = new ArrayList<>(before);
        for (JsonNode doc : docs) {
            String subject = Manifests.describe(doc) + ": ";
            Translation one;
            try {
                one = translate.apply(doc);
            } catch (IllegalArgumentException e) {
                // a refusal that already starts with the document ("PyTorchJob ml/bert asks for no GPU") is not named twice
                throw new ManifestException(e.getMessage().startsWith(Manifests.describe(doc)) ? e.getMessage() : subject + e.getMessage());
            }
            jobs.addAll(one.jobs());
            one.warnings().forEach(w -> warnings.add(subject + w));
        }
        return new Translation(jobs, warnings);
    }

    /** As {@code translate} prints it: the jobs' JSON on {@code out} (one object, or an array), each warning a line on {@code err}. */
    public void print(String file, PrintStream out, PrintStream err) {
        try {
            out.println(JobJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(jobs.size() == 1 ? jobs.get(0) : jobs));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JobSpec record always serialises", e);
        }
        warnings.forEach(w -> err.println("horizon: translate: " + file + ": warning: " + w));
    }
}
