package dev.horizon.kubeflow.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.api.cli.CommandRunner.Result;
import dev.horizon.kubeflow.Translate;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one queue-label rule: Kueue, KAI, Volcano, YuniKorn queue labels, then the namespace; --team-from picks; a file maps queues to teams. */
class TeamFromQueueTest {
    @TempDir
    Path dir;

    private static String job(String labels) {
        return """
                apiVersion: kubeflow.org/v1
                kind: PyTorchJob
                metadata: {name: bert, namespace: ml, labels: %s}
                spec:
                  pytorchReplicaSpecs:
                    Worker:
                      replicas: 1
                      template: {spec: {containers: [{name: pytorch, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]}}
                """.formatted(labels);
    }

    private String team(String labels, String... options) {
        return Translate.job(Translate.run(Translate.file(dir, "job.yaml", job(labels)), options)).team();
    }

    @Test
    void eachSchedulersQueueLabelNamesTheTeamInOneOrder() {
        assertEquals("vision", team("{kai.scheduler/queue: vision}"), "KAI's queue label");
        assertEquals("speech", team("{scheduling.volcano.sh/queue-name: speech}"), "Volcano's");
        assertEquals("root.nlp", team("{yunikorn.apache.org/queue: root.nlp}"), "YuniKorn's");
        assertEquals("nlp", team("{kueue.x-k8s.io/queue-name: nlp, kai.scheduler/queue: vision}"), "Kueue's first");
        assertEquals("vision", team("{kai.scheduler/queue: vision, yunikorn.apache.org/queue: root.nlp}"), "then KAI's");
        assertEquals("ml", team("{app: bert}"), "then the namespace");
    }

    @Test
    void teamFromPicksAnySource() {
        String labels = "{kueue.x-k8s.io/queue-name: nlp, kai.scheduler/queue: vision}";
        assertEquals("vision", team(labels, "--team-from", "kai"));
        assertEquals("ml", team(labels, "--team-from", "namespace"));
        assertEquals("nlp", team("{kai.scheduler/queue: vision, kueue.x-k8s.io/queue-name: nlp}", "--team-from", "yunikorn,kueue"));
        Result unknown = Translate.run(Translate.file(dir, "job.yaml", job("{}")), "--team-from", "slurm");
        assertEquals(2, unknown.exit());
        assertTrue(unknown.err().contains("'slurm' is not a team source; use one or more of [queue-label, kueue, kai, volcano, yunikorn,"
                + " scheduling-queue, namespace]"), unknown.err());
    }

    @Test
    void aMappingFileTurnsQueuesIntoTeams() {
        Path map = Translate.file(dir, "teams.yaml", """
                # Kueue LocalQueues are per namespace: ml/user-queue is more specific than user-queue
                queues:
                  user-queue: research
                  ml/user-queue: nlp
                  root.test: vision
                """);
        assertEquals("nlp", team("{kueue.x-k8s.io/queue-name: user-queue}", "--queue-teams", map.toString()));
        assertEquals("vision", team("{yunikorn.apache.org/queue: root.test}", "--queue-teams", map.toString()));
        assertEquals("other", team("{kai.scheduler/queue: other}", "--queue-teams", map.toString()), "an unlisted queue is its own team");
        Path bad = Translate.file(dir, "bad.yaml", "queue: {a: b}\n");
        Result refused = Translate.run(Translate.file(dir, "job.yaml", job("{}")), "--queue-teams", bad.toString());
        assertEquals(2, refused.exit());
        assertTrue(refused.err().contains("--queue-teams " + bad + ": queue: unknown field; the file has one map, queues: {QUEUE: TEAM}"), refused.err());
    }
}
