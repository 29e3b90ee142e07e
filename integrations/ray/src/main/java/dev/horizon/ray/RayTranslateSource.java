package dev.horizon.ray;

import dev.horizon.kit.manifest.KindsRead;
import dev.horizon.kit.manifest.TranslateSource;
import dev.horizon.ray.translate.RayKind;
import java.io.PrintStream;

/** {@code translate ray}: the KubeRay kinds, for {@code translate FILE}. */
public final class RayTranslateSource implements TranslateSource {
    @Override
    public String name() {
        return "ray";
    }

    @Override
    public KindsRead reads() {
        return RayKind.READ;
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) {
        return TranslateCommand.run(args, out, err);
    }
}
