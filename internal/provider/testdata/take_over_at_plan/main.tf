# A promise and two requests on one destination of a bucket (kratix_state_store.s and the
# provider block are the test's own, store.tf), no canaries: TestAccTakeOverWarningAtPlan puts
# files at their paths by hand before their first plans.

terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}

resource "kratix_destination" "w" {
  name           = "w"
  path           = "w"
  init_workloads = false
  state_store    = kratix_state_store.s
}

resource "kratix_promise" "p" {
  name         = "p"
  destinations = [kratix_destination.w]
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p\n"
}

resource "kratix_resource_request" "taken" {
  promise = kratix_promise.p
  name    = "taken"
  files   = { "taken.yaml" = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: taken\n" }
}

resource "kratix_resource_request" "kept" {
  promise = kratix_promise.p
  name    = "kept"
  files   = { "kept.yaml" = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kept\n" }
}
