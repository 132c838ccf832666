# A promise on one destination of the test's store (kratix_state_store.s and the provider block
# are the test's own, store.tf), which its guard protects; no canaries. TestAccSavedPlan* change
# var.deps, save the plan, let another writer change the promise's folder, then apply the plan.

terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}

variable "deps" {
  type = string
}

resource "kratix_destination" "w1" {
  name           = "w1"
  path           = "w1"
  labels         = { tier = "prod" }
  init_workloads = false
  state_store    = kratix_state_store.s
}

resource "kratix_promise" "p" {
  name         = "p"
  destinations = [kratix_destination.w1]
  dependencies = var.deps
  guard = {
    protect = [{ match_labels = { tier = "prod" } }]
  }
}
