package dev.horizon.tests;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/layout.md's promise: dependencies between Horizon's packages point one way. Maven already refuses a cycle of
 * modules; this reads every module's compiled main classes (the reactor builds them before this module) and fails on a
 * cycle of packages, inside a module or across modules, naming the classes that close it.
 */
class LayoutTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void noPackageDependsBackOnAPackageThatDependsOnIt() {
        slices().matching("dev.horizon.(**)").should().beFreeOfCycles().check(mainClasses());
    }

    private static JavaClasses mainClasses() {
        List<Path> folders = moduleClassFolders();
        assertTrue(folders.size() >= 10, "every module compiled before the tests module, found only " + folders);
        return new ClassFileImporter().importPaths(folders);
    }

    /** Each module's target/classes below the repository root, but this module's own. */
    private static List<Path> moduleClassFolders() {
        try (Stream<Path> paths = Files.walk(ROOT, 5)) {
            return paths.filter(p -> p.endsWith(Path.of("target", "classes")) && Files.isDirectory(p.resolve("dev/horizon")))
                    .filter(p -> !p.getParent().getParent().equals(ROOT.resolve("tests")))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
