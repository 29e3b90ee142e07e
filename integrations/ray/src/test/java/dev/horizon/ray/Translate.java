package dev.horizon.ray;

import com.fasterxml.jackson.databind.JsonNode;
import dev.horizon.api.JobJson;
import dev.horizon.api.cli.CommandRunner;
import dev.horizon.api.cli.CommandRunner.Result;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** {@code ./horizon translate ray} on manifests a test writes, as a user would run it. */
public final class Translate {
    private Translate() {
    }

    public static Path file(Path dir, String name, String yaml) {
        return CommandRunner.write(dir, name, yaml);
    }

    public static Result run(Path file, String... options) {
        List<String> args = new ArrayList<>(List.of("translate", "ray", file.toString()));
        args.addAll(List.of(options));
        return CommandRunner.run(TranslateCommand::run, args.toArray(String[]::new));
    }

    /** "NAME REPLICAS x GPUS" for each printed job, joined by "; " ("500m" for a share of 500 thousandths). */
    public static String summary(Result result) {
        if (result.exit() != 0) throw new AssertionError("translation failed (exit " + result.exit() + "): " + result.err());
        try {
            JsonNode printed = JobJson.mapper().readTree(result.out());
            List<String> parts = new ArrayList<>();
            for (JsonNode job : printed.isArray() ? printed : List.of(printed)) {
                JobJson.parse(job.toString());
                JsonNode shape = job.path("perReplica");
                String gpus = shape.has("gpus") ? shape.get("gpus").asText() : shape.path("gpuMilli").asText() + "m";
                parts.add(job.path("name").asText() + " " + job.path("replicas").asInt() + " x " + gpus);
            }
            return String.join("; ", parts);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
