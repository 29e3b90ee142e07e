package dev.horizon.kubeflow;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.JobJson;
import dev.horizon.api.JobSpec;
import dev.horizon.kubeflow.translate.Manifests;
import dev.horizon.kubeflow.translate.RuntimeCatalog;
import dev.horizon.kubeflow.translate.TeamSource;
import dev.horizon.kubeflow.translate.TranslationException;
import dev.horizon.kubeflow.translate.TranslationOptions;
import dev.horizon.kubeflow.translate.Translator;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** {@code ./horizon translate kubeflow FILE}: prints the scheduler job(s) a manifest asks for, or one line saying why not. */
public final class TranslateCommand {
    static final String USAGE = """
            usage: ./horizon translate kubeflow FILE [--runtime FILE]... [--team-from SOURCES] [--namespace NS] [--priority-class NAME=P]...
              Prints the scheduler job JSON of each Kubeflow training job in FILE (PyTorchJob, TFJob, MPIJob, XGBoostJob, PaddleJob,
              JAXJob of kubeflow.org/v1; TrainJob of trainer.kubeflow.org/v1alpha1): one object, or an array when FILE holds several.
              Each manifest is checked against its CRD schema first. A job that asks for no GPU is not Horizon's: it is refused.
              --runtime FILE       TrainingRuntime / ClusterTrainingRuntime manifests that TrainJobs refer to (runtimes in FILE count too)
              --team-from SOURCES  where the team comes from, first match wins (default queue-label,scheduling-queue,namespace):
                                   queue-label (kueue.x-k8s.io/queue-name), scheduling-queue (runPolicy.schedulingPolicy.queue), namespace
              --namespace NS       namespace of manifests that name none (default: default)
              --priority-class NAME=P  Horizon priority for schedulingPolicy.priorityClass NAME (unlisted classes get the default)
              Labels and annotations read: horizon.dev/class (label; default training), horizon.dev/duration-estimate (annotation:
              3600, 90m, 4h; without it the control plane uses what it learned from the team's finished jobs).""";

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
            Translator translator = parse(args, file, jobs);
            List<JobSpec> specs = new ArrayList<>();
            for (JsonNode job : jobs) {
                try {
                    specs.add(translator.translate(job));
                } catch (TranslationException e) {
                    throw new TranslationException((jobs.size() > 1 ? Manifests.describe(job) + ": " : "") + e.getMessage());
                }
            }
            Object printed = specs.size() == 1 ? specs.get(0) : specs;
            out.println(JobJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(printed));
            return 0;
        } catch (IllegalArgumentException e) {
            err.println("horizon: translate: " + file + ": " + e.getMessage());
            return 2;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JobSpec record always serialises", e);
        }
    }

    /** Reads the options and FILE; the jobs found in FILE are added to {@code jobs}. */
    private static Translator parse(String[] args, String file, List<JsonNode> jobs) {
        TranslationOptions defaults = TranslationOptions.defaults();
        List<TeamSource> teamSources = defaults.teamSources();
        String namespace = defaults.defaultNamespace();
        Map<String, Integer> priorities = new HashMap<>();
        List<String> runtimeFiles = new ArrayList<>();
        for (int i = 3; i < args.length; i++) {
            String option = args[i];
            if (i + 1 >= args.length) throw new IllegalArgumentException(option + " needs a value (see --help)");
            String value = args[++i];
            switch (option) {
                case "--runtime" -> runtimeFiles.add(value);
                case "--team-from" -> teamSources = Arrays.stream(value.split(",")).map(String::trim).map(TeamSource::ofFlag).toList();
                case "--namespace" -> namespace = value;
                case "--priority-class" -> {
                    String[] kv = value.split("=", 2);
                    if (kv.length != 2 || !kv[1].matches("\\d+")) throw new IllegalArgumentException("--priority-class wants NAME=P with P a whole number (got '" + value + "')");
                    priorities.put(kv[0], Integer.parseInt(kv[1]));
                }
                default -> throw new IllegalArgumentException("unknown option '" + option + "' (see --help)");
            }
        }
        RuntimeCatalog catalog = new RuntimeCatalog(namespace);
        for (String runtimeFile : runtimeFiles) {
            List<JsonNode> notRuntimes;
            try {
                notRuntimes = catalog.addRuntimesFrom(read(runtimeFile));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--runtime " + runtimeFile + ": " + e.getMessage());
            }
            if (!notRuntimes.isEmpty()) throw new IllegalArgumentException("--runtime " + runtimeFile + " holds " + Manifests.describe(notRuntimes.get(0)) + ", not a runtime");
        }
        List<JsonNode> documents = read(file);
        jobs.addAll(catalog.addRuntimesFrom(documents));
        if (jobs.isEmpty()) {
            throw new TranslationException("holds only runtimes (" + documents.stream().map(Manifests::describe).toList() + "), which are"
                    + " templates for TrainJobs, not jobs; pass them with --runtime to translate a TrainJob that uses them");
        }
        return new Translator(new TranslationOptions(teamSources, namespace, priorities), catalog);
    }

    private static List<JsonNode> read(String file) {
        Path path = Path.of(file);
        if (!Files.isRegularFile(path)) throw new IllegalArgumentException("no such file");
        try {
            return Manifests.parse(Files.readString(path));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read it: " + e.getMessage());
        }
    }
}
