resource "kratix_state_store" "gitops" {
  name       = "gitops"
  secret_ref = "github"
  git = {
    url = "git@github.com:acme/gitops.git"
  }
}

# The same repository, at the folder where an agent on each cluster writes its HealthRecords
# (health/<destination>/); see the guide "Knowing it runs".
resource "kratix_state_store" "health" {
  name       = "health"
  path       = "health"
  secret_ref = "github"
  git = {
    url = "git@github.com:acme/gitops.git"
  }
}

resource "kratix_destination" "workers" {
  for_each = {
    worker-1 = { environment = "dev" }
    worker-2 = { environment = "prod", zone = "eu-west" }
  }

  name        = each.key
  path        = each.key
  labels      = each.value
  state_store = kratix_state_store.gitops
}

# The Jenkins operator goes to every dev destination. The plan lists them, and every file with
# its hash, before anything is written.
resource "kratix_promise" "jenkins" {
  name = "jenkins"
  destination_selectors = [
    { match_labels = { environment = "dev" } },
  ]
  dependencies = <<-EOT
    apiVersion: v1
    kind: Namespace
    metadata:
      name: jenkins-operator
    ---
    apiVersion: v1
    kind: ServiceAccount
    metadata:
      name: jenkins-operator
      namespace: jenkins-operator
  EOT
  destinations = values(kratix_destination.workers)
}

# Set-based selectors, changes rolled out dev first, and files removed from destinations that
# stop matching, behind a guard.
resource "kratix_promise" "monitoring" {
  name = "monitoring"
  destination_selectors = [{
    match_expressions = [
      { key = "environment", operator = "In", values = ["dev", "prod"] },
    ]
  }]
  dependencies  = <<-EOT
    apiVersion: v1
    kind: Namespace
    metadata:
      name: monitoring
  EOT
  destinations  = values(kratix_destination.workers)
  on_unschedule = "delete"

  # Every refresh reads what the clusters report into `health`.
  observe = {
    state_store = kratix_state_store.health
    max_age     = "30m"
  }

  # A change of the dependencies goes to dev first; prod gets it at a later apply, an hour later
  # at the earliest, once dev reports it healthy, and never on a weekend. The plan shows which
  # destinations change now, which wait, and what for.
  rollout = {
    waves = [
      { name = "dev", destination_selectors = [{ match_labels = { environment = "dev" } }] },
      { name = "prod", destination_selectors = [{ match_labels = { environment = "prod" } }] },
    ]
    min_wait = "1h"
    gate     = { states = ["healthy"], timeout = "4h", on_failure = "rollback" }
    windows  = [{ kind = "deny", schedule = "0 0 * * 6", duration = "48h", time_zone = "Europe/London" }]
  }

  # A plan that would take files from more than one destination, or delete anything on a prod
  # destination, stops with an error that lists them and prints the acknowledge value that lets
  # exactly that change through.
  guard = {
    max_destinations_removed = 1
    protect                  = [{ match_labels = { environment = "prod" } }]
  }
}

output "jenkins_destinations" {
  value = kratix_promise.jenkins.scheduled_destinations
}
