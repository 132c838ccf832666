# The platform team's workspace: the fleet team's workspaces register destinations in this
# bucket (each kratix_destination publishes a record there); this workspace reads them.
resource "kratix_state_store" "fleet" {
  name       = "fleet"
  secret_ref = "minio"
  bucket = {
    endpoint    = "minio.platform.internal:9000"
    bucket_name = "kratix"
  }
}

# Every registered destination a promise selecting env = prod would select. A destination the
# fleet registers later appears in the next plan here; one it destroys leaves the pool.
data "kratix_destinations" "prod" {
  state_stores          = [kratix_state_store.fleet]
  destination_selectors = [{ match_labels = { env = "prod" } }]
}

resource "kratix_promise" "postgres" {
  name                  = "postgres"
  destinations          = data.kratix_destinations.prod.destinations
  destination_selectors = [{ match_labels = { env = "prod" } }]
  dependencies          = <<-EOT
    apiVersion: v1
    kind: Namespace
    metadata:
      name: postgres-operator
  EOT
}

output "prod_destinations" {
  value = data.kratix_destinations.prod.destinations[*].name
}
