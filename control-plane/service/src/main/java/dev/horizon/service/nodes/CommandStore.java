package dev.horizon.service.nodes;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.horizon.service.leadership.Leadership;
import dev.horizon.service.store.Db;
import dev.horizon.service.store.StoredJson;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/** Commands queued for agents and what became of them. */
@ApplicationScoped
public class CommandStore {
    private static final TypeReference<CommandRequest> ACTION = new TypeReference<>() {
    };
    private static final String COLUMNS = "id, node, action, state, created_at, sent_at, finished_at, error, leader_epoch";
    /** How many of a node's commands its view shows: the newest ones. */
    private static final int SHOWN = 50;

    @Inject
    Db db;
    @Inject
    Leadership leadership;

    /** Stored only while this replica still leads in epoch (checked in the same transaction), stamped with that epoch. */
    public NodeCommand insert(String node, CommandRequest action, long now, long epoch) {
        return db.inTransaction(conn -> {
            leadership.fence(conn, epoch);
            return insert(conn, node, action, now, epoch);
        });
    }

    /** Inside a transaction the caller has fenced (a plan's commit, an admin's command). */
    public static NodeCommand insert(Connection conn, String node, CommandRequest action, long now, long epoch) throws SQLException {
        NodeCommand c = new NodeCommand(UUID.randomUUID().toString(), node, action, NodeCommand.QUEUED, now, null, null, null, epoch);
        Db.update(conn, "INSERT INTO node_commands (id, node, action, state, created_at, leader_epoch) VALUES (?, ?, ?, ?, ?, ?)", ps -> {
            ps.setString(1, c.id());
            ps.setString(2, node);
            ps.setString(3, StoredJson.write(action));
            ps.setString(4, c.state());
            ps.setLong(5, now);
            ps.setLong(6, epoch);
        });
        return c;
    }

    /**
     * Fails every command queued or sent before createdBeforeMillis that no agent answered, saying so; returns how many.
     * A layout its agent never applied then no longer holds its GPU, which the next plan places again.
     */
    public int expireUnanswered(long createdBeforeMillis, long ttlSeconds, long now) {
        return db.update("UPDATE node_commands SET state = ?, finished_at = ?, error = ? WHERE created_at < ? AND state IN (?, ?)", ps -> {
            ps.setString(1, NodeCommand.FAILED);
            ps.setLong(2, now);
            ps.setString(3, "expired: no agent answered within " + ttlSeconds + " s (horizon.agents.command-ttl-seconds); the GPU is planned again");
            ps.setLong(4, createdBeforeMillis);
            ps.setString(5, NodeCommand.QUEUED);
            ps.setString(6, NodeCommand.SENT);
        });
    }

    /** Commands without a result, oldest first; with includeSent also those already streamed once (for a reconnecting agent). */
    public List<NodeCommand> unanswered(String node, boolean includeSent) {
        return select(" WHERE node = ? AND state IN (?, ?) ORDER BY created_at, id", node, NodeCommand.QUEUED,
                includeSent ? NodeCommand.SENT : NodeCommand.QUEUED);
    }

    /** The node's newest commands, newest first. */
    public List<NodeCommand> recent(String node) {
        return select(" WHERE node = ? ORDER BY created_at DESC, id FETCH FIRST " + SHOWN + " ROWS ONLY", node);
    }

    /**
     * Per GPU of the node, the newest SetSharing its agent did not fail, whatever its age (until retention folds it into
     * the node's events): how the control plane last told the agent to share the GPU. Matched in the stored JSON, where a
     * SetSharing begins with its GPU's UUID.
     */
    public Map<String, CommandRequest.SetSharing> sharingByGpu(String node) {
        Map<String, CommandRequest.SetSharing> out = new HashMap<>();
        for (NodeCommand c : select(" WHERE node = ? AND state <> ? AND action LIKE ? ORDER BY created_at DESC, id", node, NodeCommand.FAILED,
                "%\"setSharing\":{\"gpuUuid\":%")) {
            out.putIfAbsent(c.action().setSharing().gpuUuid(), c.action().setSharing());
        }
        return out;
    }

    /** Every node's commands created at or after sinceMillis or still unanswered, newest first: one query per plan. */
    public List<NodeCommand> recentOrUnanswered(long sinceMillis) {
        return db.query("SELECT " + COLUMNS + " FROM node_commands WHERE created_at >= ? OR state IN (?, ?) ORDER BY created_at DESC, id", ps -> {
            ps.setLong(1, sinceMillis);
            ps.setString(2, NodeCommand.QUEUED);
            ps.setString(3, NodeCommand.SENT);
        }, ROW);
    }

    public Optional<NodeCommand> find(String node, String id) {
        return select(" WHERE node = ? AND id = ?", node, id).stream().findFirst();
    }

    public void markSent(String id, long now) {
        db.update("UPDATE node_commands SET state = ?, sent_at = ? WHERE id = ? AND state = ?", ps -> {
            ps.setString(1, NodeCommand.SENT);
            ps.setLong(2, now);
            ps.setString(3, id);
            ps.setString(4, NodeCommand.QUEUED);
        });
    }

    /** Records the agent's answer; an answer repeated after a lost acknowledgement leaves the first one in place. */
    public void finish(String id, boolean success, String error, long now) {
        db.update("UPDATE node_commands SET state = ?, finished_at = ?, error = ? WHERE id = ? AND state IN (?, ?)", ps -> {
            ps.setString(1, success ? NodeCommand.SUCCEEDED : NodeCommand.FAILED);
            ps.setLong(2, now);
            ps.setString(3, success ? null : error);
            ps.setString(4, id);
            ps.setString(5, NodeCommand.QUEUED);
            ps.setString(6, NodeCommand.SENT);
        });
    }

    private List<NodeCommand> select(String where, String... params) {
        return db.query("SELECT " + COLUMNS + " FROM node_commands" + where, ps -> {
            for (int i = 0; i < params.length; i++) ps.setString(i + 1, params[i]);
        }, ROW);
    }

    private static final Db.RowMapper<NodeCommand> ROW = rs -> new NodeCommand(rs.getString(1), rs.getString(2),
            StoredJson.read(rs.getString(3), ACTION), rs.getString(4), rs.getLong(5), rs.getObject(6) == null ? null : rs.getLong(6),
            rs.getObject(7) == null ? null : rs.getLong(7), rs.getString(8), rs.getLong(9));
}
