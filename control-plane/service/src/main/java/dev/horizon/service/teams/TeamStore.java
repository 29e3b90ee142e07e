package dev.horizon.service.teams;

import dev.horizon.service.clock.ServiceClock;
import dev.horizon.service.store.Db;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;

@ApplicationScoped
public class TeamStore {
    @Inject
    ServiceClock clock;
    @Inject
    Db db;

    public List<Team> all() {
        return db.query("SELECT name, parent, share FROM teams ORDER BY name", ps -> { },
                rs -> new Team(rs.getString(1), rs.getString(2), rs.getDouble(3)));
    }

    public Optional<Team> find(String name) {
        return db.query("SELECT name, parent, share FROM teams WHERE name = ?", ps -> ps.setString(1, name),
                rs -> new Team(rs.getString(1), rs.getString(2), rs.getDouble(3))).stream().findFirst();
    }

    /** The teams whose parent is name, by name. */
    public List<String> subTeams(String name) {
        return db.query("SELECT name FROM teams WHERE parent = ? ORDER BY name", ps -> ps.setString(1, name), rs -> rs.getString(1));
    }

    public void insert(Team team) {
        db.update("INSERT INTO teams (name, parent, share, created_at) VALUES (?, ?, ?, ?)", ps -> {
            ps.setString(1, team.name());
            ps.setString(2, team.parent());
            ps.setDouble(3, team.share());
            ps.setLong(4, clock.millis());
        });
    }

    public void setShare(String name, double share) {
        db.update("UPDATE teams SET share = ? WHERE name = ?", ps -> {
            ps.setDouble(1, share);
            ps.setString(2, name);
        });
    }
}
