# A promise and a request with create_before_destroy on three destinations, one for each shape a
# removal takes: an owned folder (w1, nested), loose files with their index (flat, mode none) and a
# part of a shared file (agg, aggregatedYAML). The provider block and kratix_state_store.s are the
# test's own (store.tf).

terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}

resource "kratix_destination" "w1" {
  name        = "w1"
  path        = "w1"
  cleanup     = "all"
  state_store = kratix_state_store.s
}

resource "kratix_destination" "flat" {
  name          = "flat"
  path          = "flat"
  filepath_mode = "none"
  labels        = { flat = "yes" }
  state_store   = kratix_state_store.s
}

resource "kratix_destination" "agg" {
  name          = "agg"
  path          = "agg"
  filepath_mode = "aggregatedYAML"
  state_store   = kratix_state_store.s
}

resource "kratix_promise" "p" {
  name         = "p"
  destinations = [kratix_destination.w1, kratix_destination.flat, kratix_destination.agg]
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p\n"
  lifecycle {
    create_before_destroy = true
  }
}

resource "kratix_resource_request" "r" {
  promise               = kratix_promise.p
  name                  = "r"
  destination_selectors = [{ match_labels = { flat = "yes" } }]
  files                 = { "r.yaml" = "kind: R\n" }
  lifecycle {
    create_before_destroy = true
  }
}
