# Which wave each scheduled destination belongs to, planned offline. The waves (main.tf,
# local.waves): "canary" takes one destination in zone us (the first by name), "everywhere" the
# rest. kratix_promise reports it in rollout_status.waves, kratix_placement in decisions[].wave.

run "one_us_destination_goes_first" {
  command = plan

  assert {
    condition     = kratix_promise.namespace.rollout_status.waves == tomap({ "worker-1" = "everywhere", "worker-3" = "canary" })
    error_message = "worker-3 (zone us) is the canary; worker-1 goes with the rest."
  }
  assert {
    condition     = { for d in data.kratix_placement.namespace.decisions : d.destination => d.wave if d.selected } == { "worker-1" = "everywhere", "worker-3" = "canary" }
    error_message = "kratix_placement reports the same waves as the promise."
  }
  assert {
    condition     = length(kratix_promise.namespace.rollout_status.waiting) == 0
    error_message = "A new promise is written everywhere at once: nothing waits."
  }
}

run "the_canary_wave_takes_one_destination" {
  command = plan

  variables {
    workers = {
      worker-1 = { labels = { env = "dev", zone = "eu" }, store = "gitops" }
      worker-3 = { labels = { env = "dev", zone = "us" }, store = "objects" }
      worker-4 = { labels = { env = "dev", zone = "us" }, store = "objects" }
    }
  }

  assert {
    condition     = kratix_promise.namespace.rollout_status.waves == tomap({ "worker-1" = "everywhere", "worker-3" = "canary", "worker-4" = "everywhere" })
    error_message = "max_destinations = 1: worker-3 alone is the canary; worker-4 waits for the last wave."
  }
}
