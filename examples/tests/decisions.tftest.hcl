# The reason kratix_placement gives for every destination of the pool.

run "reasons_of_the_promise" {
  command = plan

  assert {
    condition     = data.kratix_placement.namespace.names == tolist(["worker-1", "worker-3"])
    error_message = "The data source selects what the promise schedules."
  }
  assert {
    condition     = { for d in data.kratix_placement.namespace.decisions : d.destination => d.reason }["worker-1"] == "matches env=dev"
    error_message = "worker-1 matches."
  }
  assert {
    condition     = { for d in data.kratix_placement.namespace.decisions : d.destination => d.reason }["worker-2"] == "env=dev but destination has env=prod"
    error_message = "worker-2 has another env."
  }
  assert {
    condition     = { for d in data.kratix_placement.namespace.decisions : d.destination => d.reason }["preview"] == "labelled kratix.io/dry-run=true: dry-run destinations get no placements"
    error_message = "preview is a dry-run destination."
  }
}

run "reasons_with_two_labels" {
  command = plan

  variables {
    promise_selector = { env = "dev", team = "a" }
  }

  assert {
    condition     = length(data.kratix_placement.namespace.names) == 0
    error_message = "No destination is labelled team=a."
  }
  assert {
    condition     = { for d in data.kratix_placement.namespace.decisions : d.destination => d.reason }["worker-1"] == "missing label team=a"
    error_message = "worker-1 lacks the team label."
  }
  assert {
    condition     = { for d in data.kratix_placement.namespace.decisions : d.destination => d.reason }["worker-2"] == "env=dev but destination has env=prod; missing label team=a"
    error_message = "worker-2 fails both labels, and the reason names both."
  }
}

run "reasons_of_the_request" {
  command = plan

  assert {
    condition     = { for d in data.kratix_placement.quota.decisions : d.destination => d.reason }["worker-3"] == "zone=eu but destination has zone=us"
    error_message = "The request's own selector leaves worker-3 out."
  }
  assert {
    condition     = data.kratix_placement.quota.names == tolist(["worker-1"])
    error_message = "The request's candidates are worker-1 alone."
  }
}

run "reason_of_the_destination_not_chosen" {
  command = plan

  variables {
    request_selector = {}
  }

  assert {
    condition = startswith(
      [for d in data.kratix_placement.quota.decisions : d.reason if d.destination != kratix_resource_request.quota.destination && d.destination != "preview" && d.destination != "worker-2"][0],
      "matches, but mode = \"one\" chose ${kratix_resource_request.quota.destination} for request team-namespace/default/team-a-quota"
    )
    error_message = "The match not chosen says which destination was chosen instead."
  }
}
