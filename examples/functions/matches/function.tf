# Provider functions need Terraform 1.8 or later (OpenTofu 1.7 or later).
terraform {
  required_version = ">= 1.8"
  required_providers {
    kratix = {
      source = "promise-platform/kratix"
    }
  }
}

variable "labels" {
  type    = map(string)
  default = { environment = "dev", zone = "eu-west" }
}

output "is_dev" {
  value = provider::kratix::matches([{ match_labels = { environment = "dev" } }], var.labels)
}

# Guard a configuration with the same matcher the promises use.
check "gpu_destination" {
  assert {
    condition = !provider::kratix::matches(
      [{ match_expressions = [{ key = "accelerator", operator = "Exists" }] }],
      var.labels,
    )
    error_message = "This workspace's destination must not be a GPU destination."
  }
}
