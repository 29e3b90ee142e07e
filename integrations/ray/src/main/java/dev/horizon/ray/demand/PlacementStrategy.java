package dev.horizon.ray.demand;

/** Ray's placement-group strategies, as ray.util.placement_group names them. */
public enum PlacementStrategy {
    /** Bundles on as few nodes as possible, spread when they do not fit: a gang, anywhere. */
    PACK,
    /** Bundles on as many nodes as possible, packed when there are too few: a gang, anywhere. */
    SPREAD,
    /** Every bundle on one node: a gang on the same node. */
    STRICT_PACK,
    /** Every bundle on its own node, which Horizon's topologies cannot yet say: refused. */
    STRICT_SPREAD
}
