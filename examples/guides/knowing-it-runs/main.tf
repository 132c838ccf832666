# The configuration of the guide "Knowing it runs": three destinations in one Git repository,
# whose clusters report their health into folder "health" of the same repository, and a promise
# whose next wave waits until the clusters of the last one report it healthy.

terraform {
  required_version = ">= 1.5"
  required_providers {
    kratix = {
      source = "promise-platform/kratix"
    }
  }
}

variable "repository_url" {
  description = "Git repository holding the destinations' folders and the health records."
  type        = string
  default     = "https://git.example.com/acme/gitops.git"
}

variable "release" {
  description = "The release the dependencies carry; changing it starts a rollout."
  type        = string
  default     = "1.4.0"
}

# A private repository also needs `secret_ref` and the provider's credentials (see the provider page).
resource "kratix_state_store" "gitops" {
  name = "gitops"
  git = {
    url = var.repository_url
  }
}

# The same repository, at the folder the clusters write their HealthRecords to: one folder per
# destination, health/<destination>/.
resource "kratix_state_store" "health" {
  name = "health"
  path = "health"
  git = {
    url = var.repository_url
  }
}

locals {
  fleet = {
    canary-1 = { env = "canary" }
    dev-1    = { env = "dev" }
    dev-2    = { env = "dev" }
  }
}

resource "kratix_destination" "fleet" {
  for_each = local.fleet

  name        = each.key
  path        = each.key
  labels      = each.value
  state_store = kratix_state_store.gitops
}

resource "kratix_promise" "agent" {
  name         = "log-agent"
  destinations = values(kratix_destination.fleet)
  dependencies = <<-EOT
    apiVersion: v1
    kind: Namespace
    metadata:
      name: log-agent
    ---
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: log-agent-release
      namespace: log-agent
    data:
      release: "${var.release}"
  EOT

  # Every refresh reads the records into `health`; nothing is written there.
  observe = {
    state_store = kratix_state_store.health
    max_age     = "30m"
  }

  rollout = {
    waves = [
      { name = "canary", destination_selectors = [{ match_labels = { env = "canary" } }] },
      { name = "dev", destination_selectors = [{ match_labels = { env = "dev" } }] },
    ]
    # The dev wave waits until the canary reports healthy, from a check run at least a minute
    # after its files were written. If it has not within an hour, the canary gets the previous
    # release back.
    gate = {
      states     = ["healthy"]
      settle     = "1m"
      timeout    = "1h"
      on_failure = "rollback"
    }
    # No wave on a weekend (times in London).
    windows = [
      { kind = "deny", schedule = "0 0 * * 6", duration = "48h", time_zone = "Europe/London" },
    ]
  }
}

# Every plan says whether the destinations holding the release run it. A failed check is a
# warning: it stops nothing, and tells whoever reads the plan.
check "fleet_healthy" {
  assert {
    condition = alltrue([
      for name, h in kratix_promise.agent.health : h.state == "healthy" && h.fresh
    ])
    error_message = "Not every destination reports log-agent healthy: ${jsonencode({
      for name, h in kratix_promise.agent.health : name => (h.fresh ? h.state : "${h.state} (stale)")
      if !(h.state == "healthy" && h.fresh)
    })}."
  }
}
