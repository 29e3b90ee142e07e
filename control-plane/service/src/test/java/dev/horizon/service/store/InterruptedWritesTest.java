package dev.horizon.service.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.InputStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped H2 URL keeps the store open when a writing thread is interrupted: on a plain file: URL the interrupt closes
 * the file channel and H2 closes the database for every thread, which is how a stop that interrupted the lease renewal
 * lost the lease release (and the last plan) to "The database has been closed".
 */
class InterruptedWritesTest {
    private static final int ROWS = 3000;

    @TempDir
    Path dir;

    @Test
    void writesGoOnThroughInterrupts() throws Exception {
        String url = shippedUrl().replace("${horizon.data-dir}", dir.toString());
        try (Connection c = DriverManager.getConnection(url, "horizon", "")) {
            c.createStatement().execute("CREATE TABLE rows_written (id INT AUTO_INCREMENT PRIMARY KEY, payload VARCHAR(1000))");
        }
        AtomicReference<String> failure = new AtomicReference<>();
        Thread writer = new Thread(() -> writeRows(url, failure), "interrupted-writer");
        writer.start();
        while (writer.isAlive()) {
            writer.interrupt();
            Thread.sleep(2);
        }
        assertNull(failure.get(), "an interrupted write failed");
        try (Connection c = DriverManager.getConnection(url, "horizon", "");
             ResultSet count = c.createStatement().executeQuery("SELECT COUNT(*) FROM rows_written")) {
            count.next();
            assertEquals(ROWS, count.getInt(1));
        }
    }

    private static void writeRows(String url, AtomicReference<String> failure) {
        try (Connection c = DriverManager.getConnection(url, "horizon", "");
             PreparedStatement insert = c.prepareStatement("INSERT INTO rows_written (payload) VALUES (?)")) {
            for (int i = 0; i < ROWS; i++) {
                insert.setString(1, "x".repeat(500));
                insert.executeUpdate();
            }
        } catch (SQLException e) {
            failure.set(e.getMessage());
        }
    }

    private static String shippedUrl() throws Exception {
        Properties shipped = new Properties();
        try (InputStream in = InterruptedWritesTest.class.getResourceAsStream("/application.properties")) {
            shipped.load(in);
        }
        return shipped.getProperty("quarkus.datasource.jdbc.url");
    }
}
