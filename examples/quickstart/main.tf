# The quickstart: one Git state store and two labelled destinations, each a folder that a
# worker cluster's GitOps agent reads. `make demo` applies it to a local repository.

terraform {
  required_version = ">= 1.5"
  required_providers {
    kratix = {
      source = "promise-platform/kratix"
    }
  }
}

variable "repository_url" {
  description = "Git repository holding the destinations' folders, e.g. file:///tmp/gitops.git or https://github.com/acme/gitops.git."
  type        = string
}

provider "kratix" {}

resource "kratix_state_store" "gitops" {
  name = "gitops"
  git = {
    url    = var.repository_url
    branch = "main"
  }
}

locals {
  # Destination name => environment label.
  workers = {
    worker-1 = "dev"
    worker-2 = "prod"
  }
}

resource "kratix_destination" "workers" {
  for_each = local.workers

  name        = each.key
  path        = each.key
  labels      = { environment = each.value }
  state_store = kratix_state_store.gitops
}

output "destination_folders" {
  description = "Each destination's folder in the repository."
  value       = { for name, d in kratix_destination.workers : name => d.root }
}

# A promise for dev clusters: its dependencies go to every destination labelled environment=dev.
# The plan shows where, and every file with its hash, before anything is written.
resource "kratix_promise" "namespace" {
  name                  = "team-namespace"
  destination_selectors = [{ match_labels = { environment = "dev" } }]
  dependencies          = <<-EOT
    apiVersion: v1
    kind: Namespace
    metadata:
      name: team-a
  EOT
  destinations          = values(kratix_destination.workers)
}

# The same decision, explained for every destination.
data "kratix_placement" "namespace" {
  destinations          = values(kratix_destination.workers)
  destination_selectors = [{ match_labels = { environment = "dev" } }]
}

output "placement" {
  description = "Why each destination is, or is not, scheduled."
  value       = { for d in data.kratix_placement.namespace.decisions : d.destination => d.reason }
}

output "promise_destinations" {
  value = kratix_promise.namespace.scheduled_destinations
}

# One request for the promise's service: it lands on exactly one matching destination, chosen
# during plan (rendezvous hashing of namespace/promise/name) and kept afterwards.
resource "kratix_resource_request" "team_a" {
  promise   = kratix_promise.namespace
  name      = "team-a-quota"
  documents = <<-EOT
    apiVersion: v1
    kind: ResourceQuota
    metadata:
      name: team-a-quota
      namespace: team-a
    spec:
      hard:
        pods: "20"
  EOT
}

output "request_destination" {
  value = kratix_resource_request.team_a.destination
}
