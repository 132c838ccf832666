# A fleet workspace of the guide "One fleet, many workspaces": it registers one region's
# destinations. Each kratix_destination publishes its record in the store, where the platform
# workspaces find it with data.kratix_destinations.

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

variable "region" {
  type    = string
  default = "eu"
}

variable "clusters" {
  description = "Cluster name => environment."
  type        = map(string)
  default = {
    eu-1 = "prod"
    eu-2 = "prod"
    eu-3 = "prod"
    eu-4 = "dev"
  }
}

# The owner is the workspace's (TFC_WORKSPACE_NAME on HCP Terraform, else KRATIX_OWNER).

resource "kratix_state_store" "fleet" {
  name = "fleet"
  git = {
    url    = var.repository_url
    branch = "main"
  }
}

resource "kratix_destination" "cluster" {
  for_each = var.clusters

  name        = each.key
  path        = each.key
  labels      = { env = each.value, region = var.region }
  state_store = kratix_state_store.fleet
}
