resource "kratix_state_store" "minio" {
  name       = "minio"
  secret_ref = "minio"
  bucket = {
    endpoint    = "minio.platform.internal:9000"
    bucket_name = "kratix"
    insecure    = true
  }
}

# A worker cluster whose Flux reads the bucket folder "dev/worker-1".
resource "kratix_destination" "worker_1" {
  name        = "worker-1"
  path        = "dev/worker-1"
  state_store = kratix_state_store.minio
  labels = {
    environment = "dev"
    zone        = "eu-west"
  }
}

# A destination that takes only work aimed at it: promises without selectors skip it.
resource "kratix_destination" "gpu" {
  name                = "gpu-1"
  path                = "gpu-1"
  state_store         = kratix_state_store.minio
  labels              = { accelerator = "gpu" }
  strict_match_labels = true
}

# A destination read by a tool that wants one file, with no canaries; destroying it removes what
# the provider wrote there (the aggregate and its parts) and keeps anything else.
resource "kratix_destination" "edge" {
  name           = "edge"
  path           = "edge"
  state_store    = kratix_state_store.minio
  filepath_mode  = "aggregatedYAML"
  init_workloads = false
  cleanup        = "all"
}

# A bigger cluster, in maintenance: it takes three times the new requests of a weight-1
# destination, but while the NoSchedule taint is on nothing new is placed on it (what is there
# stays). Change the effect to NoExecute to drain it: each request moves to its next choice.
resource "kratix_destination" "big" {
  name        = "big-1"
  path        = "big-1"
  state_store = kratix_state_store.minio
  labels      = { environment = "dev" }
  weight      = 3
  taints      = [{ key = "maintenance", value = "2026-12-01", effect = "NoSchedule" }]
}
