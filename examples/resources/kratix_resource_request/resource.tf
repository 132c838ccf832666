# Write-only content (db_credentials below) needs Terraform 1.11 or later; the rest works from 1.5.
terraform {
  required_version = ">= 1.11"
}

resource "kratix_state_store" "minio" {
  name       = "minio"
  secret_ref = "minio"
  bucket = {
    endpoint    = "minio.platform.internal:9000"
    bucket_name = "kratix"
    insecure    = true
  }
}

resource "kratix_destination" "workers" {
  for_each = {
    worker-1 = { environment = "dev", pvCapacity = "large", zone = "a" }
    worker-2 = { environment = "dev", zone = "b" }
  }

  name        = each.key
  path        = each.key
  labels      = each.value
  state_store = kratix_state_store.minio
}

resource "kratix_promise" "jenkins" {
  name                  = "jenkins"
  destination_selectors = [{ match_labels = { environment = "dev" } }]
  dependencies          = <<-EOT
    apiVersion: v1
    kind: Namespace
    metadata:
      name: jenkins-operator
  EOT
  destinations          = values(kratix_destination.workers)
}

# One Jenkins instance. It lands on one dev destination, chosen during plan and kept afterwards;
# the selector narrows the promise's placement to destinations with large volumes.
resource "kratix_resource_request" "dev_instance" {
  promise               = kratix_promise.jenkins
  name                  = "dev-instance"
  namespace             = "default"
  destination_selectors = [{ match_labels = { pvCapacity = "large" } }]
  documents = templatefile("${path.module}/jenkins.yaml.tftpl", {
    name = "dev-instance"
  })
}

# Files exactly as a pipeline would leave them in /kratix/output. It tolerates the maintenance
# taint: a destination cordoned or drained for maintenance keeps it, and may be chosen for it.
resource "kratix_resource_request" "team_a" {
  promise     = kratix_promise.jenkins
  name        = "team-a"
  tolerations = [{ key = "maintenance", operator = "Exists" }]
  files = {
    "jenkins.yaml"     = "apiVersion: jenkins.io/v1alpha2\nkind: Jenkins\nmetadata:\n  name: team-a\n"
    "notes/README.txt" = "Owned by team A.\n"
  }
}

# Two copies, in two zones: one destination per zone label first. Raising replicas adds
# destinations and moves none; lowering it removes the lowest-ranked.
resource "kratix_resource_request" "shared_cache" {
  promise  = kratix_promise.jenkins
  name     = "shared-cache"
  replicas = 2
  spread   = { topology_key = "zone" }
  documents = templatefile("${path.module}/jenkins.yaml.tftpl", {
    name = "shared-cache"
  })
}

# A Kubernetes Secret. Write-only content (Terraform 1.11 or later) reaches the store but never
# state or plan; written_files records keyed hashes of it (the provider needs content_hash_key, or
# KRATIX_CONTENT_HASH_KEY). An ephemeral variable is not saved in the plan either.
variable "db_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "kratix_resource_request" "db_credentials" {
  promise = kratix_promise.jenkins
  name    = "db-credentials"
  documents_wo = yamlencode({
    apiVersion = "v1"
    kind       = "Secret"
    metadata   = { name = "db-credentials", namespace = "default" }
    stringData = { password = var.db_password }
  })
  # Bump to write the content again, e.g. after rotating the password outside Terraform.
  content_wo_version = 1
}

output "dev_instance_destination" {
  value = kratix_resource_request.dev_instance.destination
}
