package dev.horizon.service.teams;

import com.fasterxml.jackson.annotation.JsonInclude;

/** A node of the budget tree (org -> program -> team); share is its budgeted fraction of the cluster's GPU time. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Team(String name, String parent, double share) {
}
