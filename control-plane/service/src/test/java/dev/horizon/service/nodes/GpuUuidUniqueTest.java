package dev.horizon.service.nodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.horizon.service.store.Db;
import dev.horizon.service.store.StoreException;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** A GPU uuid is on one node, held by the store's unique index: racing registrations make one holder, the rest are refused naming it. */
@QuarkusTest
class GpuUuidUniqueTest {
    private static final int RACERS = 6;

    @Inject
    NodeStore nodes;
    @Inject
    Db db;

    @Test
    void theStoreRefusesAUuidOnASecondNode() {
        StoreException e = assertThrows(StoreException.class, () -> db.inTransaction(c -> {
            for (String node : new String[] {"uuid-index-a", "uuid-index-b"}) {
                Db.update(c, "INSERT INTO gpus (node, idx, uuid, model, memory_mib, mig_devices, health) VALUES (?, 0, 'GPU-index-held', 'H100-80GB',"
                        + " 81559, '[]', 'HEALTHY')", ps -> ps.setString(1, node));
            }
            return null;
        }));
        assertTrue(e.duplicateKey(), "a unique violation: " + e);
    }

    @Test
    void registrationsRacingWithOneUuidMakeOneHolderAndTheOthersAreToldWhich() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(RACERS);
        CyclicBarrier start = new CyclicBarrier(RACERS);
        List<Future<String>> outcomes = new ArrayList<>();
        try {
            for (int i = 0; i < RACERS; i++) {
                String name = "uuid-race-" + i;
                // waiting for approval: the planner never places the other tests' jobs on these nodes
                nodes.awaitApproval(name, null, 0);
                outcomes.add(pool.submit(() -> {
                    start.await();
                    try {
                        nodes.upsert(node(name));
                        return "held by " + name;
                    } catch (NodeStore.GpuClaimed e) {
                        return e.getMessage();
                    }
                }));
            }
            List<String> said = new ArrayList<>();
            for (Future<String> f : outcomes) said.add(f.get());
            List<String> holders = said.stream().filter(s -> s.startsWith("held by ")).toList();
            assertEquals(1, holders.size(), "one registration holds the GPU: " + said);
            String holder = holders.get(0).substring("held by ".length());
            assertTrue(said.stream().filter(s -> !s.startsWith("held by ")).allMatch(s -> s.equals("gpus[0].uuid: GPU GPU-raced is registered on node "
                    + holder + "; a GPU belongs to one host, so a host reusing another's GPU uuids is refused (if the GPU moved, node " + holder
                    + "'s agent must register without it first)")), "the others are told which node holds it: " + said);
        } finally {
            pool.shutdownNow();
            db.update("DELETE FROM gpus WHERE node LIKE 'uuid-race-%'", ps -> { });
            db.update("DELETE FROM nodes WHERE name LIKE 'uuid-race-%'", ps -> { });
            db.update("DELETE FROM pending_nodes WHERE node LIKE 'uuid-race-%'", ps -> { });
        }
    }

    private static Node node(String name) {
        Gpu gpu = new Gpu(0, "GPU-raced", "H100-80GB", 81559, null, List.of(), Node.HEALTHY, null, null, List.of(), null);
        return new Node(name, "H100-80GB", 81559, name, Node.FROM_AGENT, Node.HEALTHY, null, 0, List.of(gpu), true);
    }
}
