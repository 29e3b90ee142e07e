package dev.horizon.kit.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code translate FILE}: the file goes to the source whose workloads it holds, helpers go with their operator's workload. */
class TranslateAnyTest {
    @TempDir
    Path dir;

    /** A source that records the arguments it was run with. */
    private record Recording(String name, KindsRead reads, List<String> ran) implements TranslateSource {
        @Override
        public int run(String[] args, PrintStream out, PrintStream err) {
            ran.add(String.join(" ", args));
            return 0;
        }
    }

    private final Recording batch = new Recording("kubeflow", new KindsRead("batch workload", List.of(new KindsRead.KindAt("batch/v1", "Job"),
            new KindsRead.KindAt("v1", "Pod"))), new ArrayList<>());
    private final Recording ray = new Recording("ray", new KindsRead("KubeRay workload", List.of(new KindsRead.KindAt("ray.io/v1", "RayService"))),
            new ArrayList<>());

    private String run(String yaml, String... options) throws IOException {
        Path file = Files.writeString(dir.resolve("w.yaml"), yaml);
        List<String> args = new ArrayList<>(List.of("translate", file.toString()));
        args.addAll(List.of(options));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = TranslateAny.run(List.of(batch, ray), args.toArray(String[]::new), new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return (exit + " " + err.toString(StandardCharsets.UTF_8)).strip();
    }

    private static final String POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: locust}\nspec: {}\n";
    private static final String SERVICE = "apiVersion: ray.io/v1\nkind: RayService\nmetadata: {name: llm}\nspec: {}\n";

    @Test
    void theFileGoesToItsSourceWithTheOptionsAndAHelperPodGoesWithItsOperator() throws IOException {
        assertEquals("0", run(POD, "--namespace", "ml"));
        assertTrue(batch.ran().get(0).matches("translate kubeflow \\S+w.yaml --namespace ml"), batch.ran().toString());
        assertEquals("0", run(SERVICE + "---\n" + POD));
        assertEquals(1, ray.ran().size(), "a load-test Pod beside a RayService is the RayService's helper");
        assertEquals(1, batch.ran().size());
    }

    @Test
    void twoOperatorsOrNoWorkloadAreRefusedInOneLine() throws IOException {
        Recording other = new Recording("jobset", new KindsRead("JobSet", List.of(new KindsRead.KindAt("jobset.x-k8s.io/v1alpha2", "JobSet"))),
                new ArrayList<>());
        Path file = Files.writeString(dir.resolve("mixed.yaml"), SERVICE + "---\napiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: s}\n");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, TranslateAny.run(List.of(ray, other), new String[] {"translate", file.toString()}, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("holds workloads of KubeRay workload and JobSet; translate each in its own file"), err.toString());
        assertTrue(run("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n").startsWith("2 horizon: translate: "), "refused");
        assertTrue(run("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n").contains("holds no workload Horizon reads (it holds ConfigMap c)"));
    }
}
