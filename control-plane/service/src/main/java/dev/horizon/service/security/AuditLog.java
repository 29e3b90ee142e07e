package dev.horizon.service.security;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import dev.horizon.service.store.Db;
import dev.horizon.service.web.ApiTime;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Types;
import java.util.List;

/** Who changed what and when: every admin change through the API, and every node enrollment, kept in the store. */
@ApplicationScoped
public class AuditLog {
    private static final int MAX_TARGET = 1000;
    private static final int MAX_DETAIL = 2000;

    /** One entry: actor is the token's id (GET /api/v1/tokens lists it), action the HTTP method or ENROLL, target the path. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Entry(long id, @JsonSerialize(using = ApiTime.Millis.class) long at, String actor, String actorRole, String actorLabel, String action, String target, int status,
                        String detail) {
    }

    @Inject
    Db db;

    public void record(Tokens.Grant actor, String action, String target, int status, String detail) {
        db.update("INSERT INTO audit_log (occurred_at, actor, actor_role, actor_label, action, target, status, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                ps -> {
                    ps.setLong(1, System.currentTimeMillis());
                    ps.setString(2, actor.id());
                    ps.setString(3, actor.role().name().toLowerCase(java.util.Locale.ROOT));
                    ps.setString(4, actor.label());
                    ps.setString(5, action);
                    ps.setString(6, cut(target, MAX_TARGET));
                    ps.setInt(7, status);
                    if (detail == null) ps.setNull(8, Types.VARCHAR);
                    else ps.setString(8, cut(detail, MAX_DETAIL));
                });
    }

    /** Newest first: at most limit entries older than the entry id before (null: from the newest). */
    public List<Entry> list(int limit, Long before) {
        return db.query("SELECT id, occurred_at, actor, actor_role, actor_label, action, target, status, detail FROM audit_log"
                + (before == null ? "" : " WHERE id < ?") + " ORDER BY id DESC LIMIT ?", ps -> {
                    int i = 1;
                    if (before != null) ps.setLong(i++, before);
                    ps.setInt(i, limit);
                }, rs -> new Entry(rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getString(4), rs.getString(5), rs.getString(6),
                        rs.getString(7), rs.getInt(8), rs.getString(9)));
    }

    private static String cut(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }
}
