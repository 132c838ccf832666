# The configuration of the guide "Getting started": Kratix's "Scheduling Promises" story with
# this provider. Two workers, a promise for environment=dev, a request that also needs
# pvCapacity=large; the guide changes worker_labels and on_unschedule between applies.

terraform {
  required_version = ">= 1.5"
  required_providers {
    kratix = {
      source = "promise-platform/kratix"
    }
  }
}

variable "repository_url" {
  description = "Git repository holding the destinations' folders, e.g. file:///tmp/gitops.git."
  type        = string
  default     = "https://git.example.com/acme/gitops.git"
}

variable "worker_labels" {
  description = "Each worker destination's labels: what `kubectl label destination` sets in Kratix."
  type        = map(map(string))
  default = {
    worker-1 = {}
    worker-2 = {}
  }
}

variable "on_unschedule" {
  description = "What happens to the promise's files on a destination that stops matching: keep or delete."
  type        = string
  default     = "keep"
}

# A local repository needs no provider block. A private repository also needs `secret_ref` and
# the provider's credentials (see the provider page).
resource "kratix_state_store" "gitops" {
  name = "gitops"
  git = {
    url    = var.repository_url
    branch = "main"
  }
}

resource "kratix_destination" "worker" {
  for_each = var.worker_labels

  name        = each.key
  path        = each.key
  labels      = each.value
  state_store = kratix_state_store.gitops # the whole resource, not its id
}

# The promise goes only to development clusters, as in Kratix's
# `destinationSelectors: [{matchLabels: {environment: dev}}]`.
resource "kratix_promise" "elastic_cloud" {
  name                  = "elastic-cloud"
  destination_selectors = [{ match_labels = { environment = "dev" } }] # a list of objects
  on_unschedule         = var.on_unschedule
  destinations          = values(kratix_destination.worker)
  dependencies          = <<-EOT
    apiVersion: v1
    kind: Namespace
    metadata:
      name: elastic-system
  EOT
}

# A request that collects data needs a large volume as well: its own selector adds to the
# promise's (Kratix's /kratix/metadata/destination-selectors.yaml); it cannot override them.
resource "kratix_resource_request" "example" {
  promise               = kratix_promise.elastic_cloud
  name                  = "example"
  destination_selectors = [{ match_labels = { pvCapacity = "large" } }]
  documents             = <<-EOT
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: example-elastic
      namespace: elastic-system
    data:
      enableDataCollection: "true"
  EOT
}

output "promise_destinations" {
  description = "Where the promise's dependencies are written."
  value       = kratix_promise.elastic_cloud.scheduled_destinations
}

output "promise_misscheduled" {
  description = "Destinations written earlier that no longer match."
  value       = kratix_promise.elastic_cloud.misscheduled_destinations
}

output "request_destination" {
  description = "The one destination the request is written to; null while none matches."
  value       = kratix_resource_request.example.destination
}
