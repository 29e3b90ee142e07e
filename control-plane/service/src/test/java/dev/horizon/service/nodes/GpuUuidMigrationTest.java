package dev.horizon.service.nodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/** V29 makes GPU uuids unique on a store that already holds one uuid on two nodes (possible before V24): neither keeps it. */
class GpuUuidMigrationTest {
    private static final String URL = "jdbc:h2:mem:gpu-uuid-migration;DB_CLOSE_DELAY=-1";

    @Test
    void aUuidOnTwoNodesIsDroppedFromBothAndTheIndexHoldsAfter() throws Exception {
        migrate("28");
        try (Connection c = DriverManager.getConnection(URL, "sa", ""); Statement s = c.createStatement()) {
            insertGpu(s, "real", 0, "GPU-shared");
            insertGpu(s, "copycat", 0, "GPU-shared");
            insertGpu(s, "real", 1, "GPU-own");
            migrate("29");
            List<String> left = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT node, uuid FROM gpus ORDER BY node, idx")) {
                while (rs.next()) left.add(rs.getString(1) + " " + rs.getString(2));
            }
            assertEquals(List.of("real GPU-own"), left, "the uuid the store cannot attribute is on no node until one registers it again");
            assertThrows(SQLException.class, () -> insertGpu(s, "copycat", 1, "GPU-own"));
        }
    }

    private static void migrate(String target) {
        Flyway.configure().dataSource(URL, "sa", "").locations("classpath:db/migration").target(target).load().migrate();
    }

    private static void insertGpu(Statement s, String node, int index, String uuid) throws SQLException {
        s.executeUpdate("INSERT INTO gpus (node, idx, uuid, model, memory_mib, mig_devices, health) VALUES ('" + node + "', " + index + ", '" + uuid
                + "', 'H100-80GB', 81559, '[]', 'HEALTHY')");
    }
}
