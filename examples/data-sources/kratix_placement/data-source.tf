locals {
  pool = [
    { name = "prod", labels = { env = "prod" }, path = "prod", state_store = { name = "gitops" } },
    { name = "dev", labels = { env = "dev" }, path = "dev", state_store = { name = "gitops" } },
  ]
}

# Which destinations would a promise selecting env=dev go to, and why not the others?
data "kratix_placement" "dev" {
  destinations          = local.pool
  destination_selectors = [{ match_labels = { env = "dev" } }]
}

# KubeStellar-style: any entry selects.
data "kratix_placement" "either" {
  destinations = local.pool
  match        = "any"
  destination_selectors = [
    { match_labels = { env = "dev" } },
    { match_labels = { env = "prod" } },
  ]
}

# Where would one resource request land?
data "kratix_placement" "one" {
  destinations = local.pool
  mode         = "one"
  request      = "jenkins/default/dev-instance" # the request's id: <promise>/<namespace>/<name>
}

output "dev_names" {
  value = data.kratix_placement.dev.names # ["dev"]
}

output "why_not" {
  value = [for d in data.kratix_placement.dev.decisions : "${d.destination}: ${d.reason}" if !d.selected]
}
