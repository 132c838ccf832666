terraform {
  required_version = ">= 1.10" # ephemeral variables
  required_providers {
    kratix = {
      source = "promise-platform/kratix"
    }
  }
}

# Ephemeral variables (Terraform 1.10+, OpenTofu 1.11+) are never written to a saved plan file or
# the state; supply them again to `terraform apply tfplan`. A variable that is only sensitive is
# hidden in output but kept in every saved plan. On older CLIs, leave secrets out of the
# configuration and set KRATIX_SECRET_* environment variables instead.
variable "minio_secret_key" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "content_hash_key" {
  description = "Random and stable (openssl rand -hex 32): the key of the hashes recorded for write-only content."
  type        = string
  sensitive   = true
  ephemeral   = true
}

variable "deploy_key" {
  description = "Private SSH key of a deploy key with write access to the GitOps repository."
  type        = string
  sensitive   = true
  ephemeral   = true
}

# Credential sets are named; state stores refer to them with secret_ref. Any value can instead
# come from the environment: KRATIX_SECRET_<NAME>_<KEY>, e.g. KRATIX_SECRET_MINIO_SECRET_ACCESS_KEY.
provider "kratix" {
  # offline = true would plan placement with no store and no credentials (for terraform test);
  # apply then refuses.

  # Or KRATIX_CONTENT_HASH_KEY in the environment.
  content_hash_key = var.content_hash_key
  secrets = {
    minio = {
      access_key_id     = "platform"
      secret_access_key = var.minio_secret_key
    }
    github = {
      ssh_private_key = var.deploy_key
      known_hosts     = "github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"
    }
  }
}
