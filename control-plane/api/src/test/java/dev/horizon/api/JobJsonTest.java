package dev.horizon.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class JobJsonTest {
    private static final String DESIGN_EXAMPLE = """
            {
              "name": "llama-sft-7b", "team": "nlp", "class": "TRAINING",
              "priority": 3,
              "replicas": 2,
              "perReplica": {"gpus": 4},
              "gang": true,
              "topology": "same-node",
              "durationEstimateSeconds": 14400,
              "contract": {"minRuntimeSeconds": 3600, "resumable": true, "checkpointCostSeconds": 120},
              "source": {"kind": "PyTorchJob", "namespace": "ml", "name": "llama-sft-7b"}
            }""";

    @Test
    void readsTheDesignExample() {
        JobSpec spec = JobJson.parse(DESIGN_EXAMPLE);
        assertEquals(JobClass.TRAINING, spec.jobClass());
        assertEquals(8.0, spec.totalGpus());
        assertEquals(3600, spec.contractOrDefault().minRuntimeSeconds());
        assertEquals("PyTorchJob", spec.source().kind());
        assertEquals(spec, JobJson.parse(JobJson.write(spec)), "write then parse round-trips");
    }

    @Test
    void fractionalShapesCountByFraction() {
        JobSpec mig = JobJson.parse("{\"name\":\"q\",\"team\":\"t\",\"class\":\"QUANTIZATION\",\"perReplica\":{\"migProfile\":\"3g.40gb\"}}");
        assertEquals(3.0 / 7.0, mig.totalGpus(), 1e-9);
        JobSpec share = JobJson.parse("{\"name\":\"d\",\"team\":\"t\",\"class\":\"DEBUG\",\"replicas\":2,\"perReplica\":{\"gpuMilli\":250,\"memoryMiB\":8000}}");
        assertEquals(0.5, share.totalGpus(), 1e-9);
    }

    @Test
    void unknownMigProfileNamesTheFieldAndTheChoices() {
        InvalidJobException e = assertThrows(InvalidJobException.class, () ->
                JobJson.parse("{\"name\":\"q\",\"team\":\"t\",\"class\":\"QUANTIZATION\",\"perReplica\":{\"migProfile\":\"5g.50gb\"}}"));
        assertTrue(e.getMessage().contains("perReplica.migProfile"), e.getMessage());
        assertTrue(e.getMessage().contains("1g.10gb"), e.getMessage());
    }

    @Test
    void badClassNamesTheChoices() {
        InvalidJobException e = assertThrows(InvalidJobException.class, () ->
                JobJson.parse("{\"name\":\"q\",\"team\":\"t\",\"class\":\"TRAIN\",\"perReplica\":{\"gpus\":1}}"));
        assertTrue(e.getMessage().startsWith("class:"), e.getMessage());
        assertTrue(e.getMessage().contains("TRAINING"), e.getMessage());
    }

    @Test
    void everyMissingFieldIsListed() {
        InvalidJobException e = assertThrows(InvalidJobException.class, () -> JobJson.parse("{\"replicas\":0}"));
        assertEquals(5, e.problems().size(), e.getMessage());
        assertTrue(e.getMessage().contains("replicas must be between 1 and"), e.getMessage());
    }

    @Test
    void malformedJsonAndUnknownFieldsAreNamed() {
        InvalidJobException syntax = assertThrows(InvalidJobException.class, () -> JobJson.parse("{\"name\": "));
        assertTrue(syntax.getMessage().startsWith("the job is not valid JSON"), syntax.getMessage());
        InvalidJobException unknown = assertThrows(InvalidJobException.class, () ->
                JobJson.parse("{\"name\":\"a\",\"team\":\"t\",\"class\":\"DEBUG\",\"perReplica\":{\"gpus\":1,\"gpu\":2}}"));
        assertTrue(unknown.getMessage().startsWith("perReplica.gpu: unknown field"), unknown.getMessage());
    }

    @Test
    void aSecondJobAfterTheFirstIsRefusedNotDropped() {
        String job = "{\"name\":\"a\",\"team\":\"t\",\"class\":\"DEBUG\",\"perReplica\":{\"gpus\":1}}";
        JobJson.parse(job);
        InvalidJobException two = assertThrows(InvalidJobException.class, () -> JobJson.parse(job + job));
        assertTrue(two.getMessage().startsWith("the body holds more than one JSON value"), two.getMessage());
    }

    @Test
    void shareNeedsMemoryAndOneShapeOnly() {
        InvalidJobException e = assertThrows(InvalidJobException.class, () ->
                JobJson.parse("{\"name\":\"a\",\"team\":\"t\",\"class\":\"DEBUG\",\"perReplica\":{\"gpuMilli\":300}}"));
        assertTrue(e.getMessage().contains("perReplica.memoryMiB is required"), e.getMessage());
        InvalidJobException two = assertThrows(InvalidJobException.class, () ->
                JobJson.parse("{\"name\":\"a\",\"team\":\"t\",\"class\":\"DEBUG\",\"perReplica\":{\"gpus\":1,\"migProfile\":\"1g.10gb\"}}"));
        assertTrue(two.getMessage().contains("exactly one"), two.getMessage());
    }
}
