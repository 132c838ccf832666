# The configuration of the guide "Rolling out a change safely": a fleet of eight destinations and
# a promise whose changes go out in four waves, canary, dev, then prod in two halves, one wave per
# apply, behind a blast-radius guard.

terraform {
  required_version = ">= 1.5"
  required_providers {
    kratix = {
      source = "promise-platform/kratix"
    }
  }
}

variable "repository_url" {
  description = "Git repository holding the destinations' folders."
  type        = string
  default     = "https://git.example.com/acme/gitops.git"
}

variable "release" {
  description = "The release the dependencies carry; changing it starts a rollout."
  type        = string
  default     = "1.4.0"
}

# A private repository also needs `secret_ref` and the provider's credentials (see the provider page).
resource "kratix_state_store" "gitops" {
  name = "gitops"
  git = {
    url    = var.repository_url
    branch = "main"
  }
}

locals {
  # Destination name => labels.
  fleet = {
    canary-1 = { env = "canary", region = "eu" }
    dev-1    = { env = "dev", region = "eu" }
    dev-2    = { env = "dev", region = "us" }
    dev-3    = { env = "dev", region = "us" }
    prod-1   = { env = "prod", region = "eu" }
    prod-2   = { env = "prod", region = "eu" }
    prod-3   = { env = "prod", region = "us" }
    prod-4   = { env = "prod", region = "us" }
  }
}

resource "kratix_destination" "fleet" {
  for_each = local.fleet

  name        = each.key
  path        = each.key
  labels      = each.value
  state_store = kratix_state_store.gitops
}

resource "kratix_promise" "agent" {
  name         = "log-agent"
  destinations = values(kratix_destination.fleet)
  dependencies = <<-EOT
    apiVersion: v1
    kind: Namespace
    metadata:
      name: log-agent
    ---
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: log-agent-release
      namespace: log-agent
    data:
      release: "${var.release}"
  EOT

  # A change of the dependencies goes to one wave per apply. The destinations waiting for their
  # wave keep what they hold.
  rollout = {
    waves = [
      { name = "canary", destination_selectors = [{ match_labels = { env = "canary" } }] },
      { name = "dev", destination_selectors = [{ match_labels = { env = "dev" } }] },
      # Half of prod (rounded up), the first by name; the last wave takes the rest.
      { name = "prod-a", destination_selectors = [{ match_labels = { env = "prod" } }], max_percent = 50 },
      { name = "prod-b", destination_selectors = [{ match_labels = { env = "prod" } }] },
    ]
  }

  # A plan that would take files from more than one destination, or delete anything on a prod
  # destination, stops with an error until that exact change is acknowledged.
  on_unschedule = "delete"
  guard = {
    max_destinations_removed = 1
    protect                  = [{ match_labels = { env = "prod" } }]
  }
}

output "rollout" {
  description = "Where the rollout stands: the next wave and the destinations still waiting."
  value = {
    next_wave = kratix_promise.agent.rollout_status.next_wave
    waiting   = kratix_promise.agent.rollout_status.waiting
  }
}
