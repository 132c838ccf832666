# Where the promise and the request go, planned offline, with the files and hashes the plan
# computes. The hashes are MD5s of the documents as main.tf spells them (their canonical form).

run "promise_goes_to_every_dev_destination" {
  command = plan

  assert {
    condition     = kratix_promise.namespace.scheduled_destinations == tolist(["worker-1", "worker-3"])
    error_message = "The promise selects env=dev: worker-1 and worker-3 (preview is a dry-run destination)."
  }
  assert {
    condition = kratix_promise.namespace.placements["worker-1"].files == tomap({
      "worker-1/dependencies/team-namespace/5058f/static/team-namespace-dependencies.yaml" = md5("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n")
    })
    error_message = "worker-1 receives the promise's dependencies file, with its hash."
  }
  assert {
    condition     = kratix_promise.namespace.placements["worker-3"].location == "s3://minio.example.invalid:9000/kratix"
    error_message = "worker-3 is on the bucket store."
  }
  assert {
    condition     = kratix_destination.workers["worker-2"].files != null && length(kratix_destination.workers["worker-2"].files) == 2
    error_message = "Every destination plans its two canary files."
  }
}

run "request_lands_on_the_dev_destination_in_eu" {
  command = plan

  assert {
    condition     = kratix_resource_request.quota.destination == "worker-1"
    error_message = "env=dev (the promise) and zone=eu (the request) select worker-1 alone."
  }
  assert {
    condition = kratix_resource_request.quota.written_files == tomap({
      "worker-1/resources/default/team-namespace/team-a-quota/instance-configure/5058f/team-a-quota.yaml" = md5("apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: team-a-quota\n  namespace: team-a\nspec:\n  hard:\n    pods: \"20\"\n")
    })
    error_message = "The request's file and hash are known during plan."
  }
}

run "relabelled_destination_joins_the_promise" {
  command = plan

  variables {
    workers = {
      worker-1 = { labels = { env = "dev", zone = "eu" }, store = "gitops" }
      worker-2 = { labels = { env = "dev", zone = "eu" }, store = "gitops" }
      worker-3 = { labels = { env = "dev", zone = "us" }, store = "objects" }
    }
  }

  assert {
    condition     = kratix_promise.namespace.scheduled_destinations == tolist(["worker-1", "worker-2", "worker-3"])
    error_message = "worker-2, labelled env=dev now, is scheduled too."
  }
  assert {
    condition     = contains(["worker-1", "worker-2"], kratix_resource_request.quota.destination)
    error_message = "The request lands on one of the two dev destinations in eu."
  }
}

run "request_without_a_selector_of_its_own_is_placed_by_its_key" {
  command = plan

  variables {
    request_selector = {}
  }

  assert {
    condition     = contains(["worker-1", "worker-3"], kratix_resource_request.quota.destination)
    error_message = "The request lands on one of the promise's destinations."
  }
  assert {
    condition     = data.kratix_placement.quota.names == tolist([kratix_resource_request.quota.destination])
    error_message = "kratix_placement with mode = \"one\" and the request's key chooses as the request does."
  }
}

run "promise_for_prod" {
  command = plan

  variables {
    promise_selector = { env = "prod" }
  }

  assert {
    condition     = kratix_promise.namespace.scheduled_destinations == tolist(["worker-2"])
    error_message = "env=prod selects worker-2 alone."
  }
  assert {
    condition     = kratix_resource_request.quota.destination == "worker-2"
    error_message = "worker-2 is also in zone eu."
  }
}

run "nothing_matches" {
  command = plan

  variables {
    promise_selector = { env = "staging" }
  }

  assert {
    condition     = length(kratix_promise.namespace.scheduled_destinations) == 0
    error_message = "No destination is labelled env=staging."
  }
  assert {
    condition     = kratix_resource_request.quota.destination == null
    error_message = "A request with no candidate has no destination (the plan warns)."
  }
}
