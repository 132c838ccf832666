# Destination w1, cleanup = "all", a promise with create_before_destroy on it, and a request for
# the promise. The provider block and kratix_state_store.s are the test's own (store.tf).

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

resource "kratix_promise" "p" {
  name         = "p"
  destinations = [kratix_destination.w1]
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p\n"
  lifecycle {
    create_before_destroy = true
  }
}

resource "kratix_resource_request" "r" {
  promise = kratix_promise.p
  name    = "r"
  files   = { "r.yaml" = "kind: R\n" }
}
