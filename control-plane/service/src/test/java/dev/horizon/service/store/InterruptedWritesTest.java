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
import java.util.concurrent.CountDownLatch;
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
        // held open throughout, as the service's pool holds its connections: the store stays open while the writer's ends
        try (Connection held = DriverManager.getConnection(url, "horizon", "")) {
            held.createStatement().execute("CREATE TABLE rows_written (id INT AUTO_INCREMENT PRIMARY KEY, payload VARCHAR(1000))");
            AtomicReference<String> failure = new AtomicReference<>();
            CountDownLatch written = new CountDownLatch(1);
            Thread writer = new Thread(() -> writeRows(url, failure, written), "interrupted-writer");
            writer.start();
            while (written.getCount() > 0) {
                writer.interrupt();
                Thread.sleep(2);
            }
            writer.join();
            assertNull(failure.get(), "an interrupted write failed");
            try (ResultSet count = held.createStatement().executeQuery("SELECT COUNT(*) FROM rows_written")) {
                count.next();
                assertEquals(ROWS, count.getInt(1));
            }
        }
    }

    private static void writeRows(String url, AtomicReference<String> failure, CountDownLatch written) {
        try (Connection c = DriverManager.getConnection(url, "horizon", "");
             PreparedStatement insert = c.prepareStatement("INSERT INTO rows_written (payload) VALUES (?)")) {
            for (int i = 0; i < ROWS; i++) {
                insert.setString(1, "x".repeat(500));
                insert.executeUpdate();
            }
            written.countDown(); // the interrupts stop before the connection closes
        } catch (SQLException e) {
            failure.set(e.getMessage());
        } finally {
            written.countDown();
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
