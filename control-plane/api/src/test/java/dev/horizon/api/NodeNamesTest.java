package dev.horizon.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeNamesTest {
    @Test
    void kubernetesNodeNamesPass() {
        for (String name : new String[] {"node-1", "gpu-7.rack-2.example.com", "a", "0", "n".repeat(253), "ip-10-0-0-1.ec2.internal"}) {
            assertTrue(NodeNames.valid(name), name);
        }
    }

    @Test
    void whatCouldEscapeAPathOrAPlacementIsRefusedNamingTheField() {
        for (String name : new String[] {"../../etc", "%_", "node-1[0-1]+zz", "Node-1", "-a", "a-", "a..b", ".a", "a b", "a/b", "", "n".repeat(254),
            "a\u200Bb", "a\u202Eb", "node_1"}) {
            assertFalse(NodeNames.valid(name), name);
        }
        List<String> problems = new ArrayList<>();
        NodeNames.check("node_name", "../../etc", problems);
        NodeNames.check("node_name", null, problems);
        assertEquals(1, problems.size());
        assertTrue(problems.get(0).startsWith("node_name must be a DNS-1123 subdomain") && problems.get(0).contains("'../../etc'"), problems.get(0));
    }
}
