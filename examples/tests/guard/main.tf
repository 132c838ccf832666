# A module for the guard runs of ../refusals/guard.tftest.hcl. A guard refuses a change that
# takes files away, and nothing is taken away before something was written, so these runs apply
# first, online, to a local Git repository (a bare repository whose file:// URL `make test` passes
# as TF_VAR_repository_url), then plan the dangerous change.

terraform {
  required_version = ">= 1.5"
  required_providers {
    kratix = {
      source = "promise-platform/kratix"
    }
  }
}

variable "repository_url" {
  description = "file:// URL of a bare Git repository with a main branch."
  type        = string
}

variable "promise_selector" {
  description = "The labels the promise's destinations must carry."
  type        = map(string)
  default     = { env = "dev" }
}

variable "acknowledge" {
  description = "The value a guard refusal printed, to let exactly that change through."
  type        = string
  default     = null
}

provider "kratix" {}

resource "kratix_state_store" "local" {
  name = "local"
  git = {
    url    = var.repository_url
    branch = "main"
  }
}

resource "kratix_destination" "workers" {
  for_each = {
    worker-1 = { env = "dev", team = "a" }
    worker-2 = { env = "dev", team = "b" }
    worker-3 = { env = "dev", team = "b" }
  }

  name        = each.key
  path        = each.key
  labels      = each.value
  state_store = kratix_state_store.local
}

resource "kratix_promise" "namespace" {
  name                  = "team-namespace"
  destination_selectors = [{ match_labels = var.promise_selector }]
  destinations          = values(kratix_destination.workers)
  on_unschedule         = "delete"
  dependencies          = <<-EOT
    apiVersion: v1
    kind: Namespace
    metadata:
      name: team-a
  EOT

  # Taking the files away from more than one destination needs an acknowledgement.
  guard = {
    max_destinations_removed = 1
    acknowledge              = var.acknowledge
  }
}
