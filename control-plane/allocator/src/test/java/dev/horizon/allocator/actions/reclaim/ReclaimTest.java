package dev.horizon.allocator.actions.reclaim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.horizon.allocator.UnmetDemandCost;
import dev.horizon.allocator.model.Placement;
import dev.horizon.allocator.model.RunningJob;
import dev.horizon.api.Contract;
import dev.horizon.api.JobClass;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReclaimTest {
    static final long NOW = 100_000;
    private final UnmetDemandCost cost = new UnmetDemandCost(8, 4, 900);

    private static RunningJob job(String id, double weight, long startedAgo, boolean fill, Contract c) {
        return new RunningJob(id, "t", JobClass.TRAINING, weight, 1, 0, NOW - startedAgo, NOW + 3600, c,
                new Placement(List.of(new Placement.Slice(0, 0, 1))), fill);
    }

    @Test
    void theWorkThatLosesLeastGoesFirstFillBeforeProtectedAtEqualLoss() {
        Contract resumable = new Contract(1800, true, 120);
        List<RunningJob> running = List.of(
                job("protected-high", 2, 7200, false, resumable),
                job("protected-light", 1, 7200, false, resumable),
                job("young", 1, 60, false, resumable),
                job("fill-heavy", 8, 60, true, resumable),
                job("fill-light", 1, 60, true, resumable));
        List<String> ids = Reclaim.victims(running, 4, NOW, cost).stream().map(RunningJob::id).toList();
        // a checkpoint of 120 s at weights 1, 1, 2, 8; young is inside its minimum runtime
        assertEquals(List.of("fill-light", "protected-light", "protected-high", "fill-heavy"), ids);
    }

    @Test
    void aWideJobIsNotStoppedForAFewGpusThatSmallWorkCanGive() {
        Contract resumable = new Contract(0, true, 300);
        RunningJob wide = new RunningJob("wide-fill", "t", JobClass.TRAINING, 1, 64, 0, NOW - 60, NOW + 3600, resumable,
                new Placement(List.of(new Placement.Slice(0, 0, 8))), true);
        List<RunningJob> running = List.of(wide, job("small", 4, 7200, false, resumable), job("small-2", 4, 7200, false, resumable));
        assertEquals(List.of("small", "small-2"), Reclaim.victims(running, 2, NOW, cost).stream().map(RunningJob::id).toList());
        assertEquals(List.of("wide-fill"), Reclaim.victims(running, 3, NOW, cost).stream().map(RunningJob::id).toList(),
                "when only the wide job can free enough, the small ones it made unneeded are let go");
    }

    @Test
    void workThatCannotResumeGoesOnlyWhenItsLossIsBelowThePenalty() {
        Contract rigid = new Contract(0, false, 0);
        // one step of one unmet GPU costs 8 x 4 x 0.25 h = 8 weighted GPU-hours
        List<RunningJob> running = List.of(job("cheap", 1, 3600, false, rigid), job("costly", 4, 3 * 3600, false, rigid));
        assertEquals(List.of("cheap"), Reclaim.victims(running, 2, NOW, cost).stream().map(RunningJob::id).toList());
    }
}
