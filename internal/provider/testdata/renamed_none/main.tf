# A promise and a request on one destination in filepath_mode "none" of the test's store
# (kratix_state_store.s and the provider block are the test's own, store.tf), no canaries.
# TestAccRenamedDestinationModeNone renames the destination (var.name) and keeps its path.

terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}

variable "name" {
  type = string
}

resource "kratix_destination" "w" {
  name           = var.name
  path           = "w"
  filepath_mode  = "none"
  init_workloads = false
  state_store    = kratix_state_store.s
}

resource "kratix_promise" "p" {
  name         = "p"
  destinations = [kratix_destination.w]
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p\n"
}

resource "kratix_resource_request" "r" {
  promise   = kratix_promise.p
  name      = "r"
  documents = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: r\n"
}
