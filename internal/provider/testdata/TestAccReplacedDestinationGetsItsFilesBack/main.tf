# A destination with cleanup = "all", a promise and a request on it. The provider block and
# kratix_state_store.s are the test's own (store.tf).

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
}

resource "kratix_resource_request" "r" {
  promise = kratix_promise.p
  name    = "r"
  files   = { "r.yaml" = "kind: R\n" }
}
