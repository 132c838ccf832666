# The configuration of the guide "Taking a destination out of service": three destinations in one
# Git repository, a promise on all of them, six resource requests and one that tolerates the
# maintenance taint. `maintenance` takes destinations out of service: NoSchedule cordons one,
# NoExecute drains it, and removing the entry brings it back.

terraform {
  required_version = ">= 1.5"
  required_providers {
    kratix = {
      source = "promise-platform/kratix"
    }
  }
}

variable "repository_url" {
  description = "Git repository holding the destinations' folders."
  type        = string
  default     = "https://git.example.com/acme/gitops.git"
}

variable "maintenance" {
  description = "Destinations under maintenance: name => taint effect (NoSchedule, PreferNoSchedule or NoExecute)."
  type        = map(string)
  default     = {}
}

# A private repository also needs `secret_ref` and the provider's credentials (see the provider page).
resource "kratix_state_store" "gitops" {
  name = "gitops"
  git = {
    url    = var.repository_url
    branch = "main"
  }
}

resource "kratix_destination" "workers" {
  for_each = toset(["worker-1", "worker-2", "worker-3"])

  name        = each.key
  path        = each.key
  labels      = { env = "prod" }
  state_store = kratix_state_store.gitops

  # One taint while the destination is under maintenance, none otherwise.
  taints = contains(keys(var.maintenance), each.key) ? [
    { key = "maintenance", effect = var.maintenance[each.key] },
  ] : null
}

resource "kratix_promise" "postgres" {
  name         = "postgres"
  destinations = values(kratix_destination.workers)
  dependencies = <<-EOT
    apiVersion: v1
    kind: Namespace
    metadata:
      name: postgres
  EOT
}

# Six databases, each on the one destination rendezvous hashing chooses for it.
resource "kratix_resource_request" "db" {
  for_each = toset(["orders", "billing", "search", "users", "audit", "events"])

  promise   = kratix_promise.postgres
  name      = each.key
  documents = <<-EOT
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: ${each.key}
    data:
      database: ${each.key}
  EOT
}

# A database that may stay on a destination under maintenance, whatever the effect.
resource "kratix_resource_request" "metrics" {
  promise     = kratix_promise.postgres
  name        = "metrics"
  tolerations = [{ key = "maintenance", operator = "Exists" }]
  documents   = <<-EOT
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: metrics
    data:
      database: metrics
  EOT
}

# Where a new request would land now, and why not elsewhere: the same choice
# kratix_resource_request makes, with the taints counted.
data "kratix_placement" "next" {
  destinations = values(kratix_destination.workers)
  mode         = "one"
  request      = "postgres/default/catalog"
}

output "placement" {
  description = "Each request's destination."
  value = merge(
    { for name, r in kratix_resource_request.db : name => r.destination },
    { metrics = kratix_resource_request.metrics.destination },
  )
}

output "next_request" {
  description = "Where a new request named catalog would go, and why each other destination is not chosen."
  value = {
    destination = one(data.kratix_placement.next.names)
    why_not     = [for d in data.kratix_placement.next.decisions : "${d.destination}: ${d.reason}" if !d.selected]
  }
}

# Fails the plan's checks while a request that does not tolerate the maintenance taint is still on
# a drained destination (one with nowhere else to go stays there).
check "drained" {
  assert {
    condition = alltrue([
      for r in kratix_resource_request.db : lookup(var.maintenance, r.destination, "") != "NoExecute"
    ])
    error_message = "A request is still on a destination tainted NoExecute."
  }
}
