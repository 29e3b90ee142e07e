package dev.horizon.service.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A data directory created under a loose umask is made owner-only at start: its H2 file holds every token's hash. */
class OwnerOnlyStoreTest {
    @TempDir
    Path dir;

    @Test
    void theDataDirectoryAndItsFilesBecomeOwnerOnly() throws Exception {
        Path data = Files.createDirectory(dir.resolve("data"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Path store = Files.createFile(data.resolve("horizon.mv.db"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")));
        assertEquals(List.of(data, store), OwnerOnlyStore.restrict(data));
        assertEquals(OwnerOnlyStore.DIRECTORY, Files.getPosixFilePermissions(data));
        assertEquals(OwnerOnlyStore.FILE, Files.getPosixFilePermissions(store));
        assertEquals(List.of(), OwnerOnlyStore.restrict(data), "nothing left to change the next time");
    }
}
