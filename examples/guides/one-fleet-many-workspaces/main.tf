# The guide "One fleet, many workspaces": a platform workspace managing one shard of promise
# postgres. Run it once per shard, each with its own var.shard and its own owner: the shards split
# the fleet without overlap, and together cover it. The fleet
# workspaces (fleet/) register the destinations; the application workspaces (app/) request the
# promise. Provider functions need Terraform 1.8 or later (OpenTofu 1.7 or later).

terraform {
  required_version = ">= 1.8"
  required_providers {
    kratix = {
      source = "promise-platform/kratix"
    }
  }
}

variable "repository_url" {
  description = "The Git repository every workspace of the fleet shares."
  type        = string
  default     = "https://git.example.com/acme/fleet.git"
}

variable "shard" {
  description = "This workspace's shard, from 0 to shards - 1."
  type        = number
  default     = 0
}

variable "shards" {
  description = "How many platform workspaces share the promise."
  type        = number
  default     = 2
}

# Each workspace writes as its own owner: on HCP Terraform the workspace's name
# (TFC_WORKSPACE_NAME), elsewhere KRATIX_OWNER or the provider's `owner`. One per workspace,
# never derived from the shard: a mistyped shard must meet another owner's placements.

resource "kratix_state_store" "fleet" {
  name = "fleet"
  git = {
    url    = var.repository_url
    branch = "main"
  }
}

# Every production destination any fleet workspace registered.
data "kratix_destinations" "prod" {
  state_stores          = [kratix_state_store.fleet]
  destination_selectors = [{ match_labels = { env = "prod" } }]
}

resource "kratix_promise" "postgres" {
  name                  = "postgres"
  destination_selectors = [{ match_labels = { env = "prod" } }]
  # This shard's destinations only: another shard's are another owner's.
  destinations = [for d in data.kratix_destinations.prod.destinations : d if provider::kratix::shard(d.name, var.shards) == var.shard]
  dependencies = <<-EOT
    apiVersion: v1
    kind: Namespace
    metadata:
      name: postgres-operator
  EOT
}

output "shard_destinations" {
  value = kratix_promise.postgres.scheduled_destinations
}
