package dev.horizon.kubeflow;

import dev.horizon.api.JobJson;
import dev.horizon.api.JobSpec;
import dev.horizon.api.cli.CommandRunner;
import dev.horizon.api.cli.CommandRunner.Result;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** {@code ./horizon translate kubeflow} on manifests a test writes, as a user would run it. */
public final class Translate {
    private Translate() {
    }

    public static Path file(Path dir, String name, String yaml) {
        return CommandRunner.write(dir, name, yaml);
    }

    public static Result run(Path file, String... options) {
        List<String> args = new ArrayList<>(List.of("translate", "kubeflow", file.toString()));
        args.addAll(List.of(options));
        return CommandRunner.run(TranslateCommand::run, args.toArray(String[]::new));
    }

    /** The one job a successful translation prints. */
    public static JobSpec job(Result result) {
        if (result.exit() != 0) throw new AssertionError("translation failed (exit " + result.exit() + "): " + result.err());
        return JobJson.parse(result.out());
    }
}
