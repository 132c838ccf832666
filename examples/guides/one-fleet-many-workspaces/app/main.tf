# An application workspace of the guide "One fleet, many workspaces": it requests a database of
# promise postgres, published by the platform workspaces, without a copy of their pool.

terraform {
  required_version = ">= 1.5"
  required_providers {
    kratix = {
      source = "promise-platform/kratix"
    }
  }
}

variable "repository_url" {
  type    = string
  default = "https://git.example.com/acme/fleet.git"
}

# The owner is the workspace's (TFC_WORKSPACE_NAME on HCP Terraform, else KRATIX_OWNER).

resource "kratix_state_store" "fleet" {
  name = "fleet"
  git = {
    url    = var.repository_url
    branch = "main"
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
