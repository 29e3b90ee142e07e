package dev.horizon.kubeflow;

import dev.horizon.kit.manifest.KindsRead;
import dev.horizon.kit.manifest.TranslateSource;
import java.io.PrintStream;

/** {@code translate kubeflow}: the Kubeflow jobs and the batch kinds, for {@code translate FILE}. */
public final class KubeflowTranslateSource implements TranslateSource {
    @Override
    public String name() {
        return "kubeflow";
    }

    @Override
    public KindsRead reads() {
        return TranslateCommand.READ;
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) {
        return TranslateCommand.run(args, out, err);
    }
}
