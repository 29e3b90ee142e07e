package dev.horizon.kit.crd;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.kit.manifest.ManifestException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The schemas one kind had at one apiVersion across its operator's releases, oldest first: Trainer's v1alpha1 changed
 * shape between 2.0 and 2.3 without a new version. A manifest is valid when some release accepts it, as it would be on
 * a cluster running that release. When only older releases accept it, the translation warns about each field that
 * belongs to them; when none does, the refusal says for each problem which releases accept it.
 *
 * @param product  the operator's name in messages ("Trainer")
 * @param what     the kind as messages name it ("trainer.kubeflow.org/v1alpha1 ClusterTrainingRuntime")
 * @param releases each release's schema, oldest first
 * @param remarks  what the release notes say about a field path ("spec.mlPolicy.torch.numProcPerNode"), where it matters
 */
public record SchemaReleases(String product, String what, List<Release> releases, Map<String, String> remarks) {
    public record Release(String name, StructuralSchema schema) {
    }

    public SchemaReleases {
        if (releases.isEmpty()) throw new IllegalArgumentException("a kind has at least one release's schema");
        releases = List.copyOf(releases);
        remarks = Map.copyOf(remarks);
    }

    /** One schema, for a kind whose shape did not change within its version. */
    public static SchemaReleases single(String what, StructuralSchema schema) {
        return new SchemaReleases("", what, List.of(new Release("", schema)), Map.of());
    }

    /**
     * Checks the document: throws naming the problems when no release accepts it, else returns the warnings (empty when
     * the newest release accepts it).
     */
    public List<String> check(JsonNode doc) {
        Map<Release, List<String>> problems = new LinkedHashMap<>();
        for (Release r : releases) problems.put(r, r.schema().problems(doc));
        List<String> newest = problems.get(releases.get(releases.size() - 1));
        if (newest.isEmpty()) return List.of();
        List<Release> accepting = releases.stream().filter(r -> problems.get(r).isEmpty()).toList();
        if (!accepting.isEmpty()) return newest.stream().map(p -> olderReleaseWarning(p, names(accepting))).toList();
        if (releases.size() == 1) throw new ManifestException("does not match the " + what + " schema: " + String.join("; ", newest));
        throw new ManifestException("matches no " + product + " release's " + what + " schema (" + String.join(", ", names(releases)) + "): "
                + String.join("; ", annotated(problems)));
    }

    private String olderReleaseWarning(String problem, List<String> accepting) {
        String path = pathOf(problem);
        String remark = remarks.getOrDefault(path, product + " " + releases.get(releases.size() - 1).name() + " does not have it");
        if (isUnknownField(problem)) return path + " is a field of " + product + " " + and(accepting) + "; " + remark;
        return keyOf(problem) + " for " + product + " " + releases.get(releases.size() - 1).name() + ", as " + product + " " + and(accepting)
                + " accepts it";
    }

    /** Every release's problems once each, with the releases that accept the field where some do. */
    private List<String> annotated(Map<Release, List<String>> problems) {
        Map<String, String> byKey = new LinkedHashMap<>();
        for (List<String> ps : problems.values()) {
            for (String p : ps) byKey.putIfAbsent(keyOf(p), p);
        }
        List<String> out = new ArrayList<>();
        byKey.forEach((key, full) -> {
            List<String> fine = new ArrayList<>();
            problems.forEach((r, ps) -> {
                if (ps.stream().noneMatch(p -> keyOf(p).equals(key))) fine.add(r.name());
            });
            if (fine.isEmpty()) out.add(full);
            else out.add(key + (isUnknownField(full) ? " (a field of " : " (accepted by ") + product + " " + and(fine) + ")");
        });
        return out;
    }

    private static List<String> names(List<Release> releases) {
        return releases.stream().map(Release::name).toList();
    }

    /** "2.3", "2.0 and 2.1", "2.0, 2.1 and 2.2" */
    private static String and(List<String> names) {
        if (names.size() == 1) return names.get(0);
        return String.join(", ", names.subList(0, names.size() - 1)) + " and " + names.get(names.size() - 1);
    }

    /** A problem up to its first ';' ("spec.x: unknown field"), which names it whatever the release lists beside. */
    private static String keyOf(String problem) {
        int semicolon = problem.indexOf(';');
        return semicolon < 0 ? problem : problem.substring(0, semicolon);
    }

    private static String pathOf(String problem) {
        int colon = problem.indexOf(": ");
        return colon < 0 ? problem : problem.substring(0, colon);
    }

    private static boolean isUnknownField(String problem) {
        return problem.startsWith(pathOf(problem) + ": unknown field");
    }
}
