# Destination w1, cleanup = "all", with create_before_destroy. The provider block and
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
  lifecycle {
    create_before_destroy = true
  }
}
