# A platform planned offline, for `terraform test`: `terraform test` in this folder runs the
# *.tftest.hcl files beside it, whose runs only plan (command = plan). No store is reachable (the
# hosts are under .invalid) and the provider has none of the secrets the stores name:
# offline = true plans without either, and an apply of this configuration is refused.
#
# scheduling.tftest.hcl asserts where the promise and the request go, with their files and
# hashes; decisions.tftest.hcl asserts the reason kratix_placement gives for every destination.
# The runs of refusals/*.tftest.hcl are plans the provider refuses with an error: `expect_failures`
# catches only custom conditions, not a provider's errors, so `make test` runs those files with
# `terraform test -json` and checks each refusal's message (internal/provider/tftest_test.go).
# rollout.tftest.hcl asserts which wave each destination belongs to. Guard refusals need a prior
# state, so refusals/guard.tftest.hcl applies the module in guard/ to a local Git repository
# first, then plans the refused change.

terraform {
  required_version = ">= 1.6"
  required_providers {
    kratix = {
      source = "promise-platform/kratix"
    }
  }
}

variable "workers" {
  description = "Destination name => its labels and the store it is on (\"gitops\" or \"objects\")."
  type = map(object({
    labels = map(string)
    store  = string
    path   = optional(string) # the destination's name when unset
  }))
  default = {
    worker-1 = { labels = { env = "dev", zone = "eu" }, store = "gitops" }
    worker-2 = { labels = { env = "prod", zone = "eu" }, store = "gitops" }
    worker-3 = { labels = { env = "dev", zone = "us" }, store = "objects" }
    # Kratix never schedules ordinary placements to a dry-run destination.
    preview = { labels = { env = "dev", zone = "eu", "kratix.io/dry-run" = "true" }, store = "objects" }
  }
}

variable "promise_selector" {
  description = "The labels the promise's destinations must carry."
  type        = map(string)
  default     = { env = "dev" }
}

variable "request_selector" {
  description = "The labels the request adds to the promise's selector."
  type        = map(string)
  default     = { zone = "eu" }
}

provider "kratix" {
  offline = true
}

resource "kratix_state_store" "gitops" {
  name       = "gitops"
  secret_ref = "gitops" # not in the provider's secrets: an offline plan needs none
  git = {
    url    = "https://git.example.invalid/acme/gitops.git"
    branch = "main"
  }
}

resource "kratix_state_store" "objects" {
  name       = "objects"
  secret_ref = "minio"
  bucket = {
    endpoint    = "minio.example.invalid:9000"
    bucket_name = "kratix"
  }
}

locals {
  stores = {
    gitops  = kratix_state_store.gitops
    objects = kratix_state_store.objects
  }
  # The destinations as kratix_placement takes them, built from the variable rather than from the
  # resources: Terraform reads a data source that refers to resources with changes pending only
  # at apply, and an offline plan never applies.
  pool = [for name, w in var.workers : { name = name, labels = w.labels, path = coalesce(w.path, name), state_store = { name = w.store } }]
  # A change of the promise's dependencies goes to one us destination first, then to the rest.
  waves = [
    { name = "canary", destination_selectors = [{ match_labels = { zone = "us" } }], max_destinations = 1 },
    { name = "everywhere", destination_selectors = [] },
  ]
}

resource "kratix_destination" "workers" {
  for_each = var.workers

  name        = each.key
  path        = coalesce(each.value.path, each.key)
  labels      = each.value.labels
  state_store = local.stores[each.value.store]
}

resource "kratix_promise" "namespace" {
  name                  = "team-namespace"
  destination_selectors = [{ match_labels = var.promise_selector }]
  destinations          = values(kratix_destination.workers)
  dependencies          = <<-EOT
    apiVersion: v1
    kind: Namespace
    metadata:
      name: team-a
  EOT
  rollout               = { waves = local.waves }
}

resource "kratix_resource_request" "quota" {
  promise               = kratix_promise.namespace
  name                  = "team-a-quota"
  destination_selectors = length(var.request_selector) == 0 ? [] : [{ match_labels = var.request_selector }]
  documents             = <<-EOT
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

# The promise's decision, explained for every destination.
data "kratix_placement" "namespace" {
  destinations          = local.pool
  destination_selectors = [{ match_labels = var.promise_selector }]
  rollout_waves         = local.waves
}

# Where the request may land: the promise's selector plus the request's, one destination chosen
# as the request with that id (<promise>/<namespace>/<name>) is placed.
data "kratix_placement" "quota" {
  destinations          = local.pool
  destination_selectors = [{ match_labels = var.promise_selector }]
  resource_selectors    = length(var.request_selector) == 0 ? [] : [{ match_labels = var.request_selector }]
  mode                  = "one"
  request               = "team-namespace/default/team-a-quota"
}

output "reasons" {
  description = "Why each destination is, or is not, scheduled for the promise."
  value       = { for d in data.kratix_placement.namespace.decisions : d.destination => d.reason }
}
