# An application team's workspace: the platform team's workspace manages promise postgres, and
# publishes it in the store it writes to (see the promise's registration). This workspace reads
# it back and places a request exactly as the platform workspace would.
resource "kratix_state_store" "fleet" {
  name       = "fleet"
  secret_ref = "minio"
  bucket = {
    endpoint    = "minio.platform.internal:9000"
    bucket_name = "kratix"
  }
}

data "kratix_promise" "postgres" {
  name         = "postgres"
  state_stores = [kratix_state_store.fleet]
}

resource "kratix_resource_request" "orders_db" {
  promise   = data.kratix_promise.postgres
  name      = "orders-db"
  namespace = "orders"
  documents = <<-EOT
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: orders-db
    data:
      size: small
  EOT
}

output "orders_db_destination" {
  value = kratix_resource_request.orders_db.destination
}
