# One promise written to two stores: a bucket (kratix_state_store.bucket) and a git repository
# (kratix_state_store.git), each with a destination at path "w" and no canaries, so that the
# promise's file is the only one it writes. The repository's destination comes first in write
# order. The provider block and the two stores are the test's own (store.tf).

terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}

resource "kratix_destination" "on_bucket" {
  name           = "on-bucket"
  path           = "w"
  init_workloads = false
  state_store    = kratix_state_store.bucket
}

resource "kratix_destination" "on_git" {
  name           = "on-git"
  path           = "w"
  init_workloads = false
  state_store    = kratix_state_store.git
}

resource "kratix_promise" "p" {
  name         = "app"
  destinations = [kratix_destination.on_git, kratix_destination.on_bucket]
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n"
}
