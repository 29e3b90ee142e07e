package dev.horizon.allocator.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DecisionTest {
    @Test
    void aWaitReasonIsWordedOnlyWhenReadAndReadsAsGiven() {
        Decision d = new Decision();
        AtomicInteger worded = new AtomicInteger();
        d.waiting("a", () -> {
            worded.incrementAndGet();
            return "planned to start in about 15 min";
        });
        d.waiting("b", "no room");
        List<String> seen = new ArrayList<>();
        d.forEachWaitReason((id, why) -> seen.add(id));
        assertEquals(List.of("a", "b"), seen);
        assertEquals(0, worded.get(), "passing reasons on must not word them");
        assertEquals("planned to start in about 15 min", d.waitReasons().get("a"));
        assertEquals(1, worded.get());
        Map<String, String> copy = new LinkedHashMap<>(d.waitReasons());
        assertEquals(Map.of("a", "planned to start in about 15 min", "b", "no room"), copy);
        assertEquals(List.of("a", "b"), new ArrayList<>(copy.keySet()), "the order they were given");
    }

    @Test
    void theWordedReasonsAreALiveViewOfTheDecision() {
        Decision d = new Decision();
        d.waiting("a", "first");
        d.waiting("a", () -> "second");
        d.waiting("c", (String) null);
        assertEquals("second", d.waitReasons().get("a"), "the latest reason given wins");
        assertTrue(d.waitReasons().containsKey("c"), "a job given no reason is still listed, as before");
        assertNull(d.waitReasons().get("c"));
        assertNull(d.waitReasonOf("c"));
        assertEquals("second", d.waitReasons().remove("a"));
        assertFalse(d.waitReasons().containsKey("a"));
        assertNull(d.waitReasonOf("a"));
        assertEquals(1, d.waitReasons().size());
        assertEquals("fallback", d.waitReasons().getOrDefault("z", "fallback"));
    }
}
