package dev.horizon.service.nodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.leadership.Leadership;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How the control plane last told an agent to share each GPU: the newest SetSharing that did not fail, however many commands came since. */
@QuarkusTest
class SharingByGpuTest {
    private static final String NODE = "sharing-by-gpu";

    @Inject
    CommandStore commands;
    @Inject
    Leadership leadership;
    @Inject
    ServiceClock clock;

    /** A SetSharing its agent applied (an unanswered one would expire, failed, in the service's own expiry pass). */
    private NodeCommand queue(String gpu, String mode, Integer replicas, long at) {
        NodeCommand c = commands.insert(NODE, new CommandRequest(null, new CommandRequest.SetSharing(gpu, mode, replicas, null, null), null), at,
                leadership.epoch());
        commands.finish(c.id(), true, null, at);
        return c;
    }

    @Test
    void theNewestSharingOfEachGpuThatDidNotFailEvenPastTheNewestCommandsShown() {
        long t = clock.millis();
        queue("GPU-a", "TIME_SLICING", 2, t++);
        // more commands for another GPU than a node's view shows: GPU-a's sharing is still the one above
        for (int i = 0; i < 60; i++) queue("GPU-b", i % 2 == 0 ? "TIME_SLICING" : "EXCLUSIVE", i % 2 == 0 ? 2 : null, t++);
        NodeCommand refused = commands.insert(NODE, new CommandRequest(null, new CommandRequest.SetSharing("GPU-a", "TIME_SLICING", 4, null, null), null),
                t++, leadership.epoch());
        commands.finish(refused.id(), false, "the agent could not write the config", t++);
        queue("GPU-c", "EXCLUSIVE", null, t++);
        // a MIG layout names its GPU too, and is no sharing
        commands.insert(NODE, new CommandRequest(new CommandRequest.ApplyMigLayout("GPU-d", java.util.List.of(new CommandRequest.Slot("3g.40gb", 0))), null, null),
                t++, leadership.epoch());

        assertFalse(commands.recent(NODE).stream().anyMatch(c -> c.action().setSharing() != null && "GPU-a".equals(c.action().setSharing().gpuUuid())
                && c.action().setSharing().replicas() == 2), "GPU-a's sharing is older than the node's newest commands");
        Map<String, CommandRequest.SetSharing> sharing = commands.sharingByGpu(NODE);
        assertEquals("TIME_SLICING", sharing.get("GPU-a").mode());
        assertEquals(2, sharing.get("GPU-a").replicas(), "the failed x4 is not how the GPU is shared");
        assertEquals("EXCLUSIVE", sharing.get("GPU-b").mode());
        assertEquals("EXCLUSIVE", sharing.get("GPU-c").mode());
        assertEquals(3, sharing.size(), "no entry for the MIG layout's GPU: " + sharing);
    }
}
