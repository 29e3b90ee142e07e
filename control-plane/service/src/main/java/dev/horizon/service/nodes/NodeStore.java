package dev.horizon.service.nodes;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.horizon.service.store.Db;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

@ApplicationScoped
public class NodeStore {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<List<Gpu.MigDevice>> MIG_LIST = new TypeReference<>() {
    };

    @Inject
    Db db;

    private record NodeRow(String name, String model, long memory, String domain, String source, String health, long lastSeen) {
    }

    /** Every node with its GPUs, ordered by name (the order the planner indexes them in). */
    public List<Node> all() {
        List<NodeRow> rows = db.query("SELECT name, gpu_model, gpu_memory_mib, nvlink_domain, source, health, last_seen FROM nodes ORDER BY name",
                ps -> { }, rs -> new NodeRow(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getString(4), rs.getString(5),
                        rs.getString(6), rs.getLong(7)));
        Map<String, List<Gpu>> gpus = new LinkedHashMap<>();
        for (var e : db.query("SELECT node, idx, uuid, model, memory_mib, mig_devices, health, utilization, memory_used_mib FROM gpus"
                + " ORDER BY node, idx", ps -> { }, rs -> Map.entry(rs.getString(1), new Gpu(rs.getInt(2), rs.getString(3), rs.getString(4),
                rs.getLong(5), migDevices(rs.getString(6)), rs.getString(7), (Double) rs.getObject(8), rs.getObject(9) == null ? null : rs.getLong(9))))) {
            gpus.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(e.getValue());
        }
        List<Node> out = new ArrayList<>();
        for (NodeRow r : rows) {
            out.add(new Node(r.name(), r.model(), r.memory(), r.domain(), r.source(), r.health(), r.lastSeen(), gpus.getOrDefault(r.name(), List.of())));
        }
        return out;
    }

    /** Writes a node and replaces its GPU inventory in one transaction; returns true if anything changed. */
    public boolean upsert(Node node) {
        List<Node> before = all().stream().filter(n -> n.name().equals(node.name())).toList();
        if (!before.isEmpty() && sameInventory(before.get(0), node)) {
            db.update("UPDATE nodes SET last_seen = ? WHERE name = ?", ps -> {
                ps.setLong(1, node.lastSeen());
                ps.setString(2, node.name());
            });
            return false;
        }
        db.inTransaction(c -> {
            Db.update(c, "DELETE FROM gpus WHERE node = ?", ps -> ps.setString(1, node.name()));
            Db.update(c, "DELETE FROM nodes WHERE name = ?", ps -> ps.setString(1, node.name()));
            Db.update(c, "INSERT INTO nodes (name, gpu_model, gpu_memory_mib, nvlink_domain, source, health, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?)", ps -> {
                ps.setString(1, node.name());
                ps.setString(2, node.gpuModel());
                ps.setLong(3, node.gpuMemoryMiB());
                ps.setString(4, node.nvlinkDomain());
                ps.setString(5, node.source());
                ps.setString(6, node.health());
                ps.setLong(7, node.lastSeen());
            });
            for (Gpu g : node.gpus()) {
                Db.update(c, "INSERT INTO gpus (node, idx, uuid, model, memory_mib, mig_devices, health, utilization, memory_used_mib)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", ps -> {
                            ps.setString(1, node.name());
                            ps.setInt(2, g.index());
                            ps.setString(3, g.uuid());
                            ps.setString(4, g.model());
                            ps.setLong(5, g.memoryMiB());
                            ps.setString(6, write(g.migDevices()));
                            ps.setString(7, g.health());
                            if (g.utilization() == null) ps.setNull(8, Types.DOUBLE);
                            else ps.setDouble(8, g.utilization());
                            if (g.memoryUsedMiB() == null) ps.setNull(9, Types.BIGINT);
                            else ps.setLong(9, g.memoryUsedMiB());
                        });
            }
            return null;
        });
        return true;
    }

    /** Records one GPU's telemetry; returns true when its health changed (the planner must re-plan). */
    public boolean telemetry(String node, String uuid, double utilization, long memoryUsedMiB, String health, long now) {
        return db.inTransaction(c -> {
            List<String> old = Db.query(c, "SELECT health FROM gpus WHERE node = ? AND uuid = ?", ps -> {
                ps.setString(1, node);
                ps.setString(2, uuid);
            }, rs -> rs.getString(1));
            if (old.isEmpty()) return false;
            Db.update(c, "UPDATE gpus SET utilization = ?, memory_used_mib = ?, health = ? WHERE node = ? AND uuid = ?", ps -> {
                ps.setDouble(1, utilization);
                ps.setLong(2, memoryUsedMiB);
                ps.setString(3, health);
                ps.setString(4, node);
                ps.setString(5, uuid);
            });
            Db.update(c, "UPDATE nodes SET last_seen = ?, health = ? WHERE name = ?", ps -> {
                ps.setLong(1, now);
                ps.setString(2, Node.HEALTHY);
                ps.setString(3, node);
            });
            return !old.get(0).equals(health);
        });
    }

    public boolean setHealth(String node, String health) {
        return db.update("UPDATE nodes SET health = ? WHERE name = ? AND health <> ?", ps -> {
            ps.setString(1, health);
            ps.setString(2, node);
            ps.setString(3, health);
        }) == 1;
    }

    private static boolean sameInventory(Node a, Node b) {
        return a.gpuModel().equals(b.gpuModel()) && a.gpuMemoryMiB() == b.gpuMemoryMiB() && a.nvlinkDomain().equals(b.nvlinkDomain())
                && a.source().equals(b.source()) && a.health().equals(b.health()) && a.gpus().size() == b.gpus().size()
                && a.gpus().stream().map(Gpu::uuid).toList().equals(b.gpus().stream().map(Gpu::uuid).toList())
                && a.gpus().stream().map(Gpu::migDevices).toList().equals(b.gpus().stream().map(Gpu::migDevices).toList());
    }

    private static List<Gpu.MigDevice> migDevices(String json) {
        try {
            return JSON.readValue(json, MIG_LIST);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("mig_devices holds JSON this class wrote", e);
        }
    }

    private static String write(List<Gpu.MigDevice> devices) {
        try {
            return JSON.writeValueAsString(devices);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("MIG device records always serialise", e);
        }
    }
}
