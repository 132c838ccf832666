# Provider functions need Terraform 1.8 or later (OpenTofu 1.7 or later).
terraform {
  required_version = ">= 1.8"
  required_providers {
    kratix = {
      source = "promise-platform/kratix"
    }
  }
}

# This workspace manages shard var.shard of a fleet split over var.shards workspaces. Growing
# var.shards by one moves only the destinations the new shard takes, about 1/(shards + 1) of them.
variable "shard" {
  type    = number
  default = 0
}

variable "shards" {
  type    = number
  default = 4
}

locals {
  fleet = ["eu-west-1", "eu-west-2", "us-east-1", "us-east-2", "ap-south-1"]
}

output "my_destinations" {
  value = [for name in local.fleet : name if provider::kratix::shard(name, var.shards) == var.shard]
}

# With the registry: the destinations of this shard, as a pool for this workspace's promises.
# destinations = [for d in data.kratix_destinations.all.destinations : d if provider::kratix::shard(d.name, var.shards) == var.shard]
