package dev.horizon.kit.manifest;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code ./horizon translate FILE [OPTIONS]}: the kind read from the file. The documents of FILE go to the one source
 * (adapter) that reads them, with the options as given; {@code translate kubeflow|ray FILE} still names the source.
 */
public final class TranslateAny {
    /** The groups of Kubernetes' own workload kinds (Pod, Job, Deployment). */
    private static final Set<String> BUILT_IN_GROUPS = Set.of("", "batch", "apps");

    private TranslateAny() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** {@code args}: {@code translate FILE OPTIONS...}, or {@code translate SOURCE FILE OPTIONS...}. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return run(ServiceLoader.load(TranslateSource.class).stream().map(ServiceLoader.Provider::get).toList(), args, out, err);
    }

    static int run(List<TranslateSource> sources, String[] args, PrintStream out, PrintStream err) {
        if (args.length < 2 || !args[0].equals("translate")) {
            err.println("horizon: translate: give a manifest file: ./horizon translate FILE (see --help)");
            return 2;
        }
        if (args[1].equals("-h") || args[1].equals("--help")) {
            out.println("usage: ./horizon translate FILE [options]   (the kind read from FILE; or translate " + sources.stream()
                    .map(TranslateSource::name).collect(Collectors.joining("|")) + " FILE)\n  reads: "
                    + sources.stream().map(s -> s.name() + ": " + s.reads().what()).collect(Collectors.joining("; "))
                    + "\n  ./horizon translate SOURCE --help lists each source's options");
            return 0;
        }
        for (TranslateSource source : sources) {
            if (source.name().equals(args[1])) return source.run(args, out, err);
        }
        String file = args[1];
        try {
            TranslateSource source = sourceOf(sources, ManifestFile.read(Path.of(file)));
            List<String> named = new ArrayList<>(List.of("translate", source.name()));
            named.addAll(List.of(args).subList(1, args.length));
            return source.run(named.toArray(String[]::new), out, err);
        } catch (IllegalArgumentException e) {
            err.println("horizon: translate: " + file + ": " + e.getMessage());
            return 2;
        }
    }

    /**
     * The source whose group the file's workloads are of (so that it reads them, or names the versions and kinds of its
     * group it reads). Kubernetes' own kinds beside an operator's workload (a load-test Pod beside a RayService) are that
     * workload's helpers, so the operator's source takes the file; a file that mixes two operators' workloads is refused,
     * since their options differ.
     */
    private static TranslateSource sourceOf(List<TranslateSource> sources, List<JsonNode> docs) {
        List<TranslateSource> operators = claiming(sources, docs.stream().filter(d -> !BUILT_IN_GROUPS.contains(Manifests.group(d))).toList());
        List<TranslateSource> reading = operators.isEmpty() ? claiming(sources, docs) : operators;
        if (reading.size() == 1) return reading.get(0);
        if (reading.size() > 1) {
            throw new ManifestException("holds workloads of " + reading.stream().map(s -> s.reads().what()).collect(Collectors.joining(" and "))
                    + "; translate each in its own file (translate " + reading.stream().map(TranslateSource::name).collect(Collectors.joining("|")) + " FILE)");
        }
        throw new ManifestException("holds no workload Horizon reads (it holds " + docs.stream().map(Manifests::describe).collect(Collectors.joining(", "))
                + "); Horizon reads " + sources.stream().map(s -> s.reads().what()).collect(Collectors.joining(", ")) + " manifests");
    }

    private static List<TranslateSource> claiming(List<TranslateSource> sources, List<JsonNode> docs) {
        return sources.stream().filter(s -> docs.stream().anyMatch(d -> s.reads().claims(d))).toList();
    }
}
