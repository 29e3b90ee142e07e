package dev.horizon.service.store;

import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The embedded H2 file holds every token's hash, every team's usage and every job: the data directory is made readable
 * by its owner only (700, its files 600) at every start, whatever umask created it. The launcher also starts the
 * control plane under umask 077, so files H2 creates later are owner-only from the start.
 */
@ApplicationScoped
public class OwnerOnlyStore {
    private static final Logger LOG = Logger.getLogger(OwnerOnlyStore.class);
    static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

    @Inject
    Db db;
    @ConfigProperty(name = "horizon.data-dir")
    String dataDir;

    void restrict(@Observes @Priority(5) StartupEvent event) {
        if (!"h2".equals(db.kind())) return;
        try {
            List<Path> changed = restrict(Path.of(dataDir));
            if (!changed.isEmpty()) LOG.infof("made the store owner-only (directory 700, files 600): %s", changed);
        } catch (IOException | UnsupportedOperationException e) {
            LOG.warnf("could not make the data directory %s owner-only (%s); restrict it by hand (chmod -R go-rwx)", dataDir, e.getMessage());
        }
    }

    /** Sets dir to 700 and every file directly in it to 600; the paths it changed. Nothing on a file system without POSIX modes. */
    static List<Path> restrict(Path dir) throws IOException {
        if (!Files.isDirectory(dir) || Files.getFileAttributeView(dir, PosixFileAttributeView.class) == null) return List.of();
        List<Path> changed = new java.util.ArrayList<>();
        if (!Files.getPosixFilePermissions(dir).equals(DIRECTORY)) {
            Files.setPosixFilePermissions(dir, DIRECTORY);
            changed.add(dir);
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                if (!Files.getPosixFilePermissions(f).equals(FILE)) {
                    Files.setPosixFilePermissions(f, FILE);
                    changed.add(f);
                }
            }
        }
        return changed;
    }
}
