package dev.horizon.service.nodes;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.horizon.service.store.Db;
import dev.horizon.service.store.StoreException;
import dev.horizon.service.store.StoredJson;
import dev.horizon.service.web.ApiTime;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

@ApplicationScoped
public class NodeStore {
    private static final TypeReference<List<Gpu.MigDevice>> MIG_LIST = new TypeReference<>() {
    };
    private static final TypeReference<List<Gpu.Process>> PROCESS_LIST = new TypeReference<>() {
    };
    private static final TypeReference<List<String>> STRINGS = new TypeReference<>() {
    };

    @Inject
    Db db;

    private record NodeRow(String name, String model, long memory, String domain, String source, String health, String healthReason,
                           long lastSeen) {
    }

    /** A registration naming a GPU another node registered: a GPU belongs to one host. */
    public static class GpuClaimed extends RuntimeException {
        GpuClaimed(String field, String uuid, String holder) {
            super(field + ": GPU " + uuid + " is registered on node " + holder + "; a GPU belongs to one host, so a host reusing another's GPU uuids"
                    + " is refused (if the GPU moved, node " + holder + "'s agent must register without it first)");
        }
    }

    /** A registration naming more GPUs, or other models, than the node enrolled with under its credential. */
    public static class BeyondEnrollment extends RuntimeException {
        BeyondEnrollment(String message) {
            super(message);
        }
    }

    /** One GPU's telemetry: utilization from 0 to 1, null while MIG is on (the driver does not report it). */
    public record Reading(String uuid, Double utilization, long memoryUsedMiB, List<Gpu.Process> processes) {
    }

    /** Every node with its GPUs, ordered by name with numbers by value (node-2 before node-10: the order the planner indexes them in). */
    public List<Node> all() {
        return select(null);
    }

    public Optional<Node> find(String name) {
        return select(name).stream().findFirst();
    }

    /**
     * The nodes the planner plans on: those agents registered, or, until the first agent registers, those that
     * horizon.nodes declared. Lost nodes are out of the cluster, and so are nodes waiting for an admin's approval.
     */
    public List<Node> planned() {
        return planned(registered());
    }

    /** The planned ones among registered nodes ({@link #registered}), for a reader that needs both from one read. */
    public static List<Node> planned(List<Node> registered) {
        return registered.stream().filter(n -> !Node.LOST.equals(n.health()) && !n.pendingApproval()).toList();
    }

    /**
     * The nodes a job may ever run on: those planned on, and those out for now (lost, or waiting for approval), which come
     * back. A job only they can hold waits, saying so, as one accepted before they went out does.
     */
    public List<Node> registered() {
        List<Node> all = all();
        boolean agents = all.stream().anyMatch(n -> Node.FROM_AGENT.equals(n.source()));
        String source = agents ? Node.FROM_AGENT : Node.FROM_CONFIG;
        return all.stream().filter(n -> n.source().equals(source) && !n.gpus().isEmpty()).toList();
    }

    /**
     * Marks a node as enrolled by a token that requires approval, before its inventory is first written, so no plan ever
     * sees it schedulable; enrolledBy: the enrollment token's id.
     */
    public void awaitApproval(String node, String enrolledBy, long now) {
        try {
            db.update("INSERT INTO pending_nodes (node, enrolled_by, since) VALUES (?, ?, ?)", ps -> {
                ps.setString(1, node);
                ps.setString(2, enrolledBy);
                ps.setLong(3, now);
            });
        } catch (StoreException e) {
            // an earlier attempt of this enrollment marked it already, and it still waits
            if (!e.duplicateKey()) throw e;
        }
    }

    /** Whether the node waits for an admin's approval (enrolled by a token that requires one, not approved yet). */
    public boolean awaitsApproval(String node) {
        return !db.query("SELECT 1 FROM pending_nodes WHERE node = ?", ps -> ps.setString(1, node), rs -> true).isEmpty();
    }

    /** Makes a node waiting for approval schedulable; false when it was not waiting. */
    public boolean approve(String node) {
        return db.update("DELETE FROM pending_nodes WHERE node = ?", ps -> ps.setString(1, node)) == 1;
    }

    /** Drains a node (see {@link Node#drainReason()}), or gives a drained one a new reason; now: when, in epoch milliseconds. */
    public void drain(String node, String reason, long now) {
        try {
            db.update("INSERT INTO drained_nodes (node, reason, since) VALUES (?, ?, ?)", ps -> {
                ps.setString(1, node);
                ps.setString(2, reason);
                ps.setLong(3, now);
            });
        } catch (StoreException e) {
            // drained before (or by a request racing this one): it stays drained since then, for the newest reason
            if (!e.duplicateKey()) throw e;
            db.update("UPDATE drained_nodes SET reason = ? WHERE node = ?", ps -> {
                ps.setString(1, reason);
                ps.setString(2, node);
            });
        }
    }

    /** Gives a drained node new work again; false when it was not drained. */
    public boolean undrain(String node) {
        return db.update("DELETE FROM drained_nodes WHERE node = ?", ps -> ps.setString(1, node)) == 1;
    }

    /** How many nodes have each health. */
    public Map<String, Integer> countByHealth() {
        Map<String, Integer> counts = new LinkedHashMap<>();
        db.query("SELECT health, COUNT(*) FROM nodes GROUP BY health", ps -> { }, rs -> counts.put(rs.getString(1), rs.getInt(2)));
        return counts;
    }

    /** How many nodes an admin drained. */
    public int countDrained() {
        return db.query("SELECT COUNT(*) FROM drained_nodes", ps -> { }, rs -> rs.getInt(1)).get(0);
    }

    /** One node, or every node when name is null. */
    private List<Node> select(String name) {
        Db.Binder bind = ps -> {
            if (name != null) ps.setString(1, name);
        };
        List<NodeRow> rows = db.query("SELECT name, gpu_model, gpu_memory_mib, nvlink_domain, source, health, health_reason, last_seen FROM nodes"
                + (name == null ? "" : " WHERE name = ?") + " ORDER BY name", bind, rs -> new NodeRow(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getString(4),
                        rs.getString(5), rs.getString(6), rs.getString(7), rs.getLong(8)));
        Map<String, List<Gpu>> gpus = new LinkedHashMap<>();
        for (var e : db.query("SELECT node, idx, uuid, model, memory_mib, mig_mode, mig_devices, health, utilization, memory_used_mib, processes,"
                + " last_event FROM gpus" + (name == null ? "" : " WHERE node = ?") + " ORDER BY node, idx", bind, rs -> Map.entry(rs.getString(1),
                        new Gpu(rs.getInt(2), rs.getString(3), rs.getString(4), rs.getLong(5), rs.getString(6), StoredJson.read(rs.getString(7), MIG_LIST),
                                rs.getString(8), (Double) rs.getObject(9), rs.getObject(10) == null ? null : rs.getLong(10),
                                rs.getString(11) == null ? List.of() : StoredJson.read(rs.getString(11), PROCESS_LIST), rs.getString(12))))) {
            gpus.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(e.getValue());
        }
        java.util.Set<String> pending = new java.util.HashSet<>(db.query("SELECT node FROM pending_nodes" + (name == null ? "" : " WHERE node = ?"),
                bind, rs -> rs.getString(1)));
        Map<String, String> drained = new HashMap<>();
        db.query("SELECT node, reason FROM drained_nodes" + (name == null ? "" : " WHERE node = ?"), bind, rs -> drained.put(rs.getString(1), rs.getString(2)));
        List<Node> out = new ArrayList<>();
        rows.sort(Comparator.comparing(NodeRow::name, NodeStore::naturalOrder));
        for (NodeRow r : rows) {
            out.add(new Node(r.name(), r.model(), r.memory(), r.domain(), r.source(), r.health(), r.healthReason(), r.lastSeen(),
                    gpus.getOrDefault(r.name(), List.of()), pending.contains(r.name()), drained.get(r.name())));
        }
        return out;
    }

    /** Writes a node and replaces its GPU inventory in one transaction; returns true if anything the planner sees changed. */
    public boolean upsert(Node node) {
        try {
            return replace(node);
        } catch (StoreException e) {
            // replicas starting together declare the same nodes at once: the one that lost the race finds the other's rows;
            // or two agents registered one GPU uuid at once, both passing the check before either wrote (index
            // gpus_uuid_unique, V29): the retry's check finds the winner's GPU and refuses naming it (GpuClaimed)
            if (!e.duplicateKey()) throw e;
            return replace(node);
        }
    }

    private boolean replace(Node node) {
        Optional<Node> before = find(node.name());
        if (before.isPresent() && sameInventory(before.get(), node)) {
            db.update("UPDATE nodes SET last_seen = ? WHERE name = ?", ps -> {
                ps.setLong(1, node.lastSeen());
                ps.setString(2, node.name());
            });
            return false;
        }
        db.inTransaction(c -> {
            if (Node.FROM_AGENT.equals(node.source())) refuseClaimed(c, node);
            Db.update(c, "DELETE FROM gpus WHERE node = ?", ps -> ps.setString(1, node.name()));
            Db.update(c, "DELETE FROM nodes WHERE name = ?", ps -> ps.setString(1, node.name()));
            Db.update(c, "INSERT INTO nodes (name, gpu_model, gpu_memory_mib, nvlink_domain, source, health, health_reason, last_seen)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", ps -> {
                        ps.setString(1, node.name());
                        ps.setString(2, node.gpuModel());
                        ps.setLong(3, node.gpuMemoryMiB());
                        ps.setString(4, node.nvlinkDomain());
                        ps.setString(5, node.source());
                        ps.setString(6, node.health());
                        ps.setString(7, node.healthReason());
                        ps.setLong(8, node.lastSeen());
                    });
            for (Gpu g : node.gpus()) {
                Db.update(c, "INSERT INTO gpus (node, idx, uuid, model, memory_mib, mig_mode, mig_devices, health, processes)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", ps -> {
                            ps.setString(1, node.name());
                            ps.setInt(2, g.index());
                            ps.setString(3, g.uuid());
                            ps.setString(4, g.model());
                            ps.setLong(5, g.memoryMiB());
                            ps.setString(6, g.migMode());
                            ps.setString(7, StoredJson.write(g.migDevices()));
                            ps.setString(8, g.health());
                            ps.setString(9, StoredJson.write(g.processes()));
                        });
            }
            return null;
        });
        return true;
    }

    /**
     * Bounds what a node registers by what it first registered under this credential: the first registration with a
     * credential (its enrollment, an admin's re-enrollment, a store from before bounds) sets the bound, every later one
     * may name no more GPUs and no model outside it (BeyondEnrollment, before anything is written).
     */
    public void bound(Node node, String credential) {
        List<String> models = node.gpus().stream().map(Gpu::model).distinct().sorted().toList();
        db.inTransactionRetrying(c -> {
            List<Map.Entry<Integer, List<String>>> bound = Db.query(c, "SELECT gpus, models FROM node_bounds WHERE node = ? AND credential = ?", ps -> {
                ps.setString(1, node.name());
                ps.setString(2, credential);
            }, rs -> Map.entry(rs.getInt(1), StoredJson.read(rs.getString(2), STRINGS)));
            if (bound.isEmpty()) {
                Db.update(c, "DELETE FROM node_bounds WHERE node = ?", ps -> ps.setString(1, node.name()));
                Db.update(c, "INSERT INTO node_bounds (node, credential, gpus, models) VALUES (?, ?, ?, ?)", ps -> {
                    ps.setString(1, node.name());
                    ps.setString(2, credential);
                    ps.setInt(3, node.gpus().size());
                    ps.setString(4, StoredJson.write(models));
                });
            } else if (node.gpus().size() > bound.get(0).getKey() || !bound.get(0).getValue().containsAll(models)) {
                throw new BeyondEnrollment("gpus: node " + node.name() + " enrolled with " + bound.get(0).getKey() + " GPUs " + bound.get(0).getValue()
                        + " under credential " + credential + "; this registration names " + node.gpus().size() + " " + models + ". A node reports"
                        + " no more GPUs and no other models than it enrolled with; after a hardware change an admin re-enrolls it:"
                        + " ./horizon token create --role agent --node " + node.name());
            }
            return null;
        });
    }

    /**
     * GpuClaimed when one of node's GPU uuids is registered on another node: checked before an enrollment takes a use of
     * its token or marks the node pending, and again inside the inventory's write.
     */
    public void refuseClaimed(Node node) {
        db.inTransaction(c -> {
            refuseClaimed(c, node);
            return null;
        });
    }

    /**
     * GpuClaimed when one of node's GPU uuids is registered on another node. The unique index on gpus.uuid holds it
     * when registrations race; this check names the holder.
     */
    private static void refuseClaimed(Connection c, Node node) throws SQLException {
        for (int i = 0; i < node.gpus().size(); i++) {
            String uuid = node.gpus().get(i).uuid();
            List<String> holders = Db.query(c, "SELECT node FROM gpus WHERE uuid = ? AND node <> ?", ps -> {
                ps.setString(1, uuid);
                ps.setString(2, node.name());
            }, rs -> rs.getString(1));
            if (!holders.isEmpty()) throw new GpuClaimed("gpus[" + i + "].uuid", uuid, holders.get(0));
        }
    }

    /** The uuids of the GPUs a node registered. */
    public java.util.Set<String> gpuUuids(String node) {
        return new java.util.HashSet<>(db.query("SELECT uuid FROM gpus WHERE node = ?", ps -> ps.setString(1, node), rs -> rs.getString(1)));
    }

    /**
     * Records the latest utilization, memory and processes of a node's GPUs; readings for GPUs it does not have are ignored.
     * Returns true when the node was LOST and is back: it takes the health its GPUs last reported.
     */
    public boolean telemetry(String node, List<Reading> readings, long now) {
        return db.inTransaction(c -> {
            for (Reading r : readings) {
                Db.update(c, "UPDATE gpus SET utilization = ?, memory_used_mib = ?, processes = ? WHERE node = ? AND uuid = ?", ps -> {
                    if (r.utilization() == null) ps.setNull(1, Types.DOUBLE);
                    else ps.setDouble(1, r.utilization());
                    ps.setLong(2, r.memoryUsedMiB());
                    ps.setString(3, StoredJson.write(r.processes()));
                    ps.setString(4, node);
                    ps.setString(5, r.uuid());
                });
            }
            Db.update(c, "UPDATE nodes SET last_seen = ? WHERE name = ?", ps -> {
                ps.setLong(1, now);
                ps.setString(2, node);
            });
            // only the heartbeat check sets a node LOST; a GPU that went bad meanwhile keeps the node drained, with its event as the reason
            Db.Binder nodeTwice = ps -> {
                ps.setString(1, node);
                ps.setString(2, node);
            };
            int healthy = Db.update(c, "UPDATE nodes SET health = 'HEALTHY', health_reason = NULL WHERE name = ? AND health = 'LOST'"
                    + " AND NOT EXISTS (SELECT 1 FROM gpus WHERE node = ? AND health <> 'HEALTHY')", nodeTwice);
            int drained = Db.update(c, "UPDATE nodes SET health = 'UNHEALTHY', health_reason = (SELECT COALESCE(MIN(last_event),"
                    + " 'GPU ' || MIN(uuid) || ' is ' || MIN(health)) FROM gpus WHERE node = ? AND health <> 'HEALTHY')"
                    + " WHERE name = ? AND health = 'LOST'", nodeTwice);
            return healthy + drained > 0;
        });
    }

    /**
     * Marks LOST every agent node not heard from (registration or telemetry) since {@code silentSince}, saying since when;
     * returns their names. A node heard from while this runs keeps its health: the update is guarded by the last_seen it read.
     */
    public List<String> markSilentLost(long silentSince) {
        List<Map.Entry<String, Long>> silent = db.query("SELECT name, last_seen FROM nodes WHERE source = ? AND health <> ? AND last_seen < ?", ps -> {
            ps.setString(1, Node.FROM_AGENT);
            ps.setString(2, Node.LOST);
            ps.setLong(3, silentSince);
        }, rs -> Map.entry(rs.getString(1), rs.getLong(2)));
        List<String> lost = new ArrayList<>();
        for (Map.Entry<String, Long> n : silent) {
            int changed = db.update("UPDATE nodes SET health = ?, health_reason = ? WHERE name = ? AND last_seen = ? AND health <> ?", ps -> {
                ps.setString(1, Node.LOST);
                ps.setString(2, "nothing heard from its agent since " + ApiTime.ofMillis(n.getValue()));
                ps.setString(3, n.getKey());
                ps.setLong(4, n.getValue());
                ps.setString(5, Node.LOST);
            });
            if (changed == 1) lost.add(n.getKey());
        }
        return lost;
    }

    /**
     * Records a health event on one GPU. With a gpuHealth (the GPU is lost or broken) the GPU takes that health and the
     * node is drained with the event as its reason; returns true when the node was healthy until now. An event for a GPU
     * the node does not have changes nothing.
     */
    public boolean healthEvent(String node, String uuid, String gpuHealth, String event) {
        return db.inTransaction(c -> {
            int onNode = Db.update(c, "UPDATE gpus SET last_event = ?, health = COALESCE(?, health) WHERE node = ? AND uuid = ?", ps -> {
                ps.setString(1, event);
                ps.setString(2, gpuHealth);
                ps.setString(3, node);
                ps.setString(4, uuid);
            });
            // a GPU that is not the node's never drains it
            return gpuHealth != null && onNode == 1 && drainHealthy(c, node, event);
        });
    }

    /** Names compared with each run of digits by its value, so node-2 comes before node-10. */
    static int naturalOrder(String a, String b) {
        int i = 0, j = 0;
        while (i < a.length() && j < b.length()) {
            char x = a.charAt(i), y = b.charAt(j);
            if (Character.isDigit(x) && Character.isDigit(y)) {
                int ei = i, ej = j;
                while (ei < a.length() && Character.isDigit(a.charAt(ei))) ei++;
                while (ej < b.length() && Character.isDigit(b.charAt(ej))) ej++;
                int c = new java.math.BigInteger(a.substring(i, ei)).compareTo(new java.math.BigInteger(b.substring(j, ej)));
                if (c != 0) return c;
                i = ei;
                j = ej;
            } else {
                if (x != y) return Character.compare(x, y);
                i++;
                j++;
            }
        }
        return Integer.compare(a.length() - i, b.length() - j) != 0 ? Integer.compare(a.length() - i, b.length() - j) : a.compareTo(b);
    }

    /** Drains a healthy node for a reason found outside its agent; returns true when it was healthy until now. */
    public boolean drain(String node, String reason) {
        return db.inTransaction(c -> drainHealthy(c, node, reason));
    }

    private static boolean drainHealthy(Connection c, String node, String reason) throws SQLException {
        return Db.update(c, "UPDATE nodes SET health = ?, health_reason = ? WHERE name = ? AND health = ?", ps -> {
            ps.setString(1, Node.UNHEALTHY);
            ps.setString(2, reason);
            ps.setString(3, node);
            ps.setString(4, Node.HEALTHY);
        }) == 1;
    }

    /** Undrains a node drained for a reason starting with reasonPrefix (and for no other); returns true when it did. */
    public boolean undrain(String node, String reasonPrefix) {
        return db.update("UPDATE nodes SET health = ?, health_reason = NULL WHERE name = ? AND health = ? AND health_reason LIKE ?", ps -> {
            ps.setString(1, Node.HEALTHY);
            ps.setString(2, node);
            ps.setString(3, Node.UNHEALTHY);
            ps.setString(4, reasonPrefix.replace("%", "\\%").replace("_", "\\_") + "%");
        }) == 1;
    }

    private static boolean sameInventory(Node a, Node b) {
        return a.gpuModel().equals(b.gpuModel()) && a.gpuMemoryMiB() == b.gpuMemoryMiB() && a.nvlinkDomain().equals(b.nvlinkDomain())
                && a.source().equals(b.source()) && a.health().equals(b.health()) && a.gpus().size() == b.gpus().size()
                && a.gpus().stream().map(NodeStore::inventory).toList().equals(b.gpus().stream().map(NodeStore::inventory).toList());
    }

    /** What registration sets on a GPU, as opposed to what telemetry updates. */
    private static List<Object> inventory(Gpu g) {
        return Arrays.asList(g.uuid(), g.model(), g.memoryMiB(), g.migMode(), g.migDevices(), g.health());
    }
}
