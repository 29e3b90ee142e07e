package dev.horizon.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.horizon.api.JobJson;
import dev.horizon.api.cli.CommandRunner;
import dev.horizon.api.cli.CommandRunner.Result;
import dev.horizon.kit.manifest.TranslateAny;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Every manifest under ../shared/fixtures (real files from kubeflow/training-operator, kubeflow/trainer,
 * kubeflow/mpi-operator, ray-project/kuberay, Kueue's samples, NVIDIA's DRA driver and GPU Operator; CRDs left to the
 * shipped-schema tests) goes through {@code ./horizon translate} as a user would run it: each is translated to the jobs
 * {@code fixture-corpus.tsv} states (name, replicas x GPUs per replica; "500m" a share in thousandths) or refused in
 * one line containing the reason stated there. A fixture the table does not list, or a row naming no fixture, fails.
 * A row's command is kubeflow (the Kubeflow jobs and the batch kinds) or ray, or none for files that are no workload of
 * either: both refuse those. Each file also goes through {@code translate FILE}, which reads the kind from the file and
 * must give the same answer.
 */
class FixtureCorpusTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One row of the table: the file (relative to the fixtures), the command, what it gives, a warning it must print (or empty). */
    private record Row(String file, String command, String expected, String warning) {
        boolean translates() {
            return expected.matches("(\\S+ \\d+ x \\S+( on \\S+)?(; )?)+");
        }
    }

    @Test
    void everyFixtureIsTranslatedOrRefusedWithItsReason() throws IOException {
        Path fixtures = Horizon.ROOT.resolveSibling("shared").resolve("fixtures");
        Assumptions.assumeTrue(Files.isDirectory(fixtures.resolve("kuberay")), "skipped: no fixtures at " + fixtures);
        Map<String, Row> table = table();
        List<String> wrong = new ArrayList<>();
        List<String> files = manifests(fixtures);
        for (String file : files) {
            Row row = table.get(file);
            if (row == null) {
                wrong.add(file + ": not in fixture-corpus.tsv; add what it should give (" + describe(fixtures.resolve(file)) + ")");
                continue;
            }
            List<String> commands = row.command().equals("none") ? List.of("kubeflow", "ray") : List.of(row.command());
            for (String command : commands) check(row, command, CommandRunner.run(command(command), "translate", command, fixtures.resolve(file).toString()), wrong);
            check(row, "FILE", CommandRunner.run(TranslateAny::run, "translate", fixtures.resolve(file).toString()), wrong);
        }
        table.keySet().stream().filter(f -> !files.contains(f)).forEach(f -> wrong.add(f + ": in fixture-corpus.tsv but not a fixture"));
        assertTrue(wrong.isEmpty(), wrong.size() + " fixtures differ from fixture-corpus.tsv:\n" + String.join("\n", wrong));
    }

    private static void check(Row row, String command, Result result, List<String> wrong) throws IOException {
        String what = row.file() + " (translate " + command + ")";
        if (row.translates()) {
            if (result.exit() != 0) {
                wrong.add(what + ": expected " + row.expected() + ", refused: " + result.err().strip());
                return;
            }
            String got = summary(result.out());
            if (!got.equals(row.expected())) wrong.add(what + ": expected " + row.expected() + ", got " + got);
        } else if (result.exit() != 2 || !result.err().contains(row.expected()) || result.err().strip().lines().count() != 1) {
            wrong.add(what + ": expected one line containing '" + row.expected() + "', got (exit " + result.exit() + ") " + result.err().strip());
        }
        if (!row.warning().isEmpty() && !result.err().contains(row.warning())) wrong.add(what + ": expected the warning '" + row.warning() + "' in " + result.err());
    }

    private static CommandRunner.Command command(String name) {
        return switch (name) {
            case "kubeflow" -> dev.horizon.kubeflow.TranslateCommand::run;
            case "ray" -> dev.horizon.ray.TranslateCommand::run;
            default -> throw new IllegalArgumentException("fixture-corpus.tsv: command '" + name + "' is not kubeflow, ray or none");
        };
    }

    /** "NAME REPLICAS x GPUS" of each printed job (with " on MODEL,..." where node selection pins its GPU models), joined by "; ". */
    private static String summary(String json) throws IOException {
        JsonNode printed = JSON.readTree(json);
        List<String> parts = new ArrayList<>();
        for (JsonNode job : printed.isArray() ? printed : List.of(printed)) {
            JobJson.parse(job.toString());
            JsonNode shape = job.path("perReplica");
            String gpus = shape.has("gpus") ? shape.get("gpus").asText()
                    : shape.has("migProfile") ? shape.get("migProfile").asText() : shape.path("gpuMilli").asText() + "m";
            List<String> models = new ArrayList<>();
            shape.path("gpuTypes").forEach(m -> models.add(m.asText()));
            parts.add(job.path("name").asText() + " " + job.path("replicas").asInt() + " x " + gpus + (models.isEmpty() ? "" : " on " + String.join(",", models)));
        }
        return String.join("; ", parts);
    }

    /** What the file holds, for the message that asks to add it: its kinds. */
    private static String describe(Path file) throws IOException {
        List<String> kinds = new ArrayList<>();
        for (String line : Files.readAllLines(file)) if (line.startsWith("kind:")) kinds.add(line.substring(5).strip());
        return "kinds " + kinds;
    }

    /** Every file of the fixtures but their READMEs and the CRDs (the shipped-schema tests read those), as relative paths. */
    private static List<String> manifests(Path fixtures) throws IOException {
        try (Stream<Path> walk = Files.walk(fixtures)) {
            return walk.filter(Files::isRegularFile).map(p -> fixtures.relativize(p).toString())
                    .filter(p -> !p.endsWith("README.md") && !p.contains("/crds/")).sorted().toList();
        }
    }

    private static Map<String, Row> table() throws IOException {
        Map<String, Row> rows = new LinkedHashMap<>();
        try (InputStream in = FixtureCorpusTest.class.getResourceAsStream("/fixture-corpus.tsv")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank() || line.startsWith("#")) continue;
                String[] cells = line.split("\t");
                assertTrue(cells.length == 3 || cells.length == 4, "fixture-corpus.tsv: FILE<TAB>COMMAND<TAB>EXPECTED[<TAB>WARNING]: " + line);
                Row row = new Row(cells[0], cells[1], cells[2], cells.length == 4 ? cells[3] : "");
                assertEquals(null, rows.put(row.file(), row), "fixture-corpus.tsv lists " + row.file() + " twice");
            }
        }
        return rows;
    }
}
