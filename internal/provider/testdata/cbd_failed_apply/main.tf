# The destinations of cbd_replace and w2, which the promise moves to while var.moved is true; the
# promise and the request with create_before_destroy; and, while var.fail is true, a resource that
# depends on both and fails at apply. The provider block and kratix_state_store.s are the test's
# own (store.tf).

terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}

variable "fail" {
  type    = bool
  default = false
}

variable "moved" {
  type    = bool
  default = false
}

resource "kratix_destination" "w1" {
  name        = "w1"
  path        = "w1"
  state_store = kratix_state_store.s
}

resource "kratix_destination" "w2" {
  name        = "w2"
  path        = "w2"
  labels      = { flat = "yes" }
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
  destinations = var.moved ? [kratix_destination.w2] : [kratix_destination.w1, kratix_destination.flat, kratix_destination.agg]
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

resource "terraform_data" "later" {
  count      = var.fail ? 1 : 0
  depends_on = [kratix_promise.p, kratix_resource_request.r]
  provisioner "local-exec" {
    command = "echo the later resource fails; exit 1"
  }
}
