package dev.horizon.service.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatabaseSelectionTest {
    private static final String URL = "jdbc:postgresql://db:5432/horizon";

    @Test
    void withoutAUrlTheH2FileStays() {
        assertTrue(new DatabaseSelection(Map.of("HORIZON_DB_USER", "x")).getProperties().isEmpty());
    }

    @Test
    void theUrlAndCredentialsSelectPostgres() {
        Map<String, String> p = new DatabaseSelection(Map.of("HORIZON_DB_URL", URL, "HORIZON_DB_USER", "sched", "HORIZON_DB_PASSWORD", "pw"))
                .getProperties();
        assertEquals("true", p.get("quarkus.datasource.pg.active"));
        assertEquals("false", p.get("quarkus.datasource.active"));
        assertEquals(URL, p.get("quarkus.datasource.pg.jdbc.url"));
        assertEquals("sched", p.get("quarkus.datasource.pg.username"));
        assertEquals("pw", p.get("quarkus.datasource.pg.password"));
    }

    @Test
    void theOlderPostgresNamesStillWork() {
        Map<String, String> p = new DatabaseSelection(Map.of("HORIZON_POSTGRES_URL", URL, "HORIZON_POSTGRES_USER", "old",
                "HORIZON_POSTGRES_PASSWORD", "oldpw")).getProperties();
        assertEquals(URL, p.get("quarkus.datasource.pg.jdbc.url"));
        assertEquals("old", p.get("quarkus.datasource.pg.username"));
        assertEquals("oldpw", p.get("quarkus.datasource.pg.password"));
    }

    @Test
    void thePasswordComesFromAFileWithoutItsNewline(@TempDir Path dir) throws Exception {
        Path secret = Files.writeString(dir.resolve("password"), "s3cret\n");
        Map<String, String> p = new DatabaseSelection(Map.of("HORIZON_DB_URL", URL, "HORIZON_DB_PASSWORD_FILE", secret.toString())).getProperties();
        assertEquals("s3cret", p.get("quarkus.datasource.pg.password"));
    }

    @Test
    void badSettingsNameTheVariableAndTheFix(@TempDir Path dir) {
        String notPostgres = assertThrows(IllegalArgumentException.class,
                () -> new DatabaseSelection(Map.of("HORIZON_DB_URL", "jdbc:mysql://db/horizon"))).getMessage();
        assertTrue(notPostgres.contains("HORIZON_DB_URL") && notPostgres.contains("jdbc:postgresql://"), notPostgres);
        String missing = assertThrows(IllegalArgumentException.class, () -> new DatabaseSelection(Map.of("HORIZON_DB_URL", URL,
                "HORIZON_DB_PASSWORD_FILE", dir.resolve("absent").toString()))).getMessage();
        assertTrue(missing.contains("HORIZON_DB_PASSWORD_FILE") && missing.contains("absent"), missing);
        String both = assertThrows(IllegalArgumentException.class, () -> new DatabaseSelection(Map.of("HORIZON_DB_URL", URL,
                "HORIZON_DB_PASSWORD", "a", "HORIZON_DB_PASSWORD_FILE", dir.toString()))).getMessage();
        assertTrue(both.contains("not both"), both);
    }
}
