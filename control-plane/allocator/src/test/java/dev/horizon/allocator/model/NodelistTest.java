package dev.horizon.allocator.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class NodelistTest {
    /** One GPU as Slurm's nodelist says it; ranges, shares and the nodes' "+" as stored, so the CLI's and the web view's text match. */
    @Test
    void oneGpuReadsAsItsIndexAndTheRestAsStored() {
        assertEquals("node-1[4]", Nodelist.of("node-1[4-4]"));
        assertEquals("node-1[0-3]+node-2[0-3]", Nodelist.of("node-1[0-3]+node-2[0-3]"));
        assertEquals("node-a[0-1]+node-b[4]+node-c[2:3g.40gb@4]", Nodelist.of("node-a[0-1]+node-b[4-4]+node-c[2-2:3g.40gb@4]"));
        assertEquals("node-1[1-12]+node-2[12]", Nodelist.of("node-1[1-12]+node-2[12-12]"), "a range whose last index starts with its first stays a range");
        assertEquals("no GPUs", Nodelist.of(null), "a job with no placement (a cancelled one whose outcome comes late) is said, not an error");
    }
}
