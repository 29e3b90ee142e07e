package dev.horizon.kit.manifest;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The kinds one adapter reads, each at the apiVersions it reads, and how the documents of a file are sorted by them:
 * those read, those skipped (other kinds: ConfigMaps, Services, queues, listed in the translation's warnings), and a
 * kind it reads at a version it does not (refused, naming both).
 *
 * @param what the adapter's name for what it reads, in the singular ("Kubeflow training job")
 */
public record KindsRead(String what, List<KindAt> kinds) {
    /** One kind at one version: "kubeflow.org/v2beta1" "MPIJob". */
    public record KindAt(String apiVersion, String kind) {
    }

    /** The documents of one file, sorted. */
    public record Selection(List<JsonNode> read, List<JsonNode> skipped, String what) {
        /** One warning per skipped document. */
        public List<String> warnings() {
            return skipped.stream().map(d -> "skipped " + Manifests.describe(d) + " (not a " + what + ")").toList();
        }

        /** The refusal for a file in which nothing was read. */
        public String nothingRead() {
            return "holds no " + what + " (it holds " + skipped.stream().map(Manifests::describe).collect(Collectors.joining(", ")) + ")";
        }
    }

    public KindsRead {
        kinds = List.copyOf(kinds);
    }

    public boolean reads(JsonNode doc) {
        return kinds.contains(new KindAt(Manifests.apiVersion(doc), Manifests.kind(doc)));
    }

    /**
     * Whether the document is this reader's to answer: a kind it reads, or another kind or version of a group it reads
     * (a RayCronJob, a kubeflow.org/v1beta1 TFJob), whose answer it words. The core group is no one's: it holds ConfigMaps.
     */
    public boolean claims(JsonNode doc) {
        String group = Manifests.group(doc);
        return reads(doc) || !group.isEmpty() && kinds.stream().anyMatch(k -> Manifests.groupOf(k.apiVersion()).equals(group));
    }

    /** Sorts the documents; a kind read here but written at another version of its group is refused. */
    public Selection select(List<JsonNode> docs) {
        List<JsonNode> read = new ArrayList<>();
        List<JsonNode> skipped = new ArrayList<>();
        for (JsonNode doc : docs) {
            if (reads(doc)) {
                read.add(doc);
                continue;
            }
            List<String> versions = versionsOf(Manifests.group(doc), Manifests.kind(doc));
            if (!versions.isEmpty()) {
                throw new ManifestException(Manifests.describe(doc) + ": apiVersion " + Manifests.apiVersion(doc) + " is not one Horizon reads;"
                        + " it reads " + Manifests.kind(doc) + " as " + String.join(" or ", versions));
            }
            skipped.add(doc);
        }
        return new Selection(read, skipped, what);
    }

    /** The apiVersions read for a kind of a group, in the order declared. */
    private List<String> versionsOf(String group, String kind) {
        Set<String> versions = new LinkedHashSet<>();
        for (KindAt k : kinds) {
            if (k.kind().equals(kind) && Manifests.groupOf(k.apiVersion()).equals(group)) versions.add(k.apiVersion());
        }
        return List.copyOf(versions);
    }
}
