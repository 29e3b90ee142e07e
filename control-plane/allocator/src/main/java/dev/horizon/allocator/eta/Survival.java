package dev.horizon.allocator.eta;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.DoubleBinaryOperator;

/**
 * The Kaplan-Meier estimate of how long runs take, from runs that ended and runs still going (each known to take at least
 * as long as it has run so far): the runs that end first are the short ones, so ended runs alone say runs are shorter than
 * they are. What the estimate leaves beyond the last ended run belongs to the runs still going past it, each expected to
 * run on as one that outlived every run it is compared with.
 */
final class Survival {
    /** How many points the part of a run still going beyond every ended run is spread over. */
    static final int TAIL_POINTS = 9;

    /** A run: how long it took (ended) or has taken so far (not ended), and how many runs it stands for. */
    record Run(double seconds, double weight, boolean ended) {
    }

    private record Atom(double seconds, double mass) {
    }

    private Survival() {
    }

    /**
     * n durations at evenly spaced quantiles of the estimate, shortest first. onFrom(age, u): the u-quantile of what a run
     * still going at age runs on when no ended run is longer. Runs must hold at least one ended run.
     */
    static List<Long> quantiles(List<Run> runs, int n, DoubleBinaryOperator onFrom) {
        List<Atom> atoms = atoms(runs, onFrom);
        List<Long> out = new ArrayList<>(n);
        double cumulative = 0;
        int a = 0;
        for (int i = 0; i < n; i++) {
            double q = (i + 0.5) / n;
            while (a < atoms.size() - 1 && cumulative + atoms.get(a).mass() < q) cumulative += atoms.get(a++).mass();
            out.add(Math.max(1, Math.round(atoms.get(a).seconds())));
        }
        return out;
    }

    /** The estimate as point masses: one per ended run, and the tail left beyond them spread over the runs still going there. */
    private static List<Atom> atoms(List<Run> runs, DoubleBinaryOperator onFrom) {
        List<Run> sorted = new ArrayList<>(runs);
        // at one length, ended runs come first: a run still going at that length outlived them
        sorted.sort(Comparator.comparingDouble(Run::seconds).thenComparing(r -> !r.ended()));
        double atRisk = 0;
        for (Run r : sorted) atRisk += r.weight();
        double surviving = 1;
        int lastEnded = -1;
        List<Atom> atoms = new ArrayList<>();
        for (int i = 0; i < sorted.size(); i++) {
            Run r = sorted.get(i);
            if (r.ended()) {
                double mass = surviving * r.weight() / atRisk;
                atoms.add(new Atom(r.seconds(), mass));
                surviving -= mass;
                lastEnded = i;
            }
            atRisk -= r.weight();
        }
        if (lastEnded < 0) throw new IllegalArgumentException("a survival estimate needs at least one ended run");
        List<Run> tail = sorted.subList(lastEnded + 1, sorted.size());
        double beyond = 0;
        for (Run r : tail) beyond += r.weight();
        for (Run r : tail) {
            double mass = surviving * r.weight() / beyond / TAIL_POINTS;
            for (int k = 0; k < TAIL_POINTS; k++) atoms.add(new Atom(r.seconds() + onFrom.applyAsDouble(r.seconds(), (k + 0.5) / TAIL_POINTS), mass));
        }
        atoms.sort(Comparator.comparingDouble(Atom::seconds));
        return atoms;
    }
}
