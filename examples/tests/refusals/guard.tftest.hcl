# The blast-radius guard, with a real prior state: the first run applies the module of ../guard
# to a local Git repository; the next plan narrowing the selector to team = "a" would take the
# promise's files from worker-2 and worker-3, more than max_destinations_removed = 1.

run "fleet" {
  command = apply
  module {
    source = "./guard"
  }
}

# The acknowledgement printed for exactly that change (worker-2 and worker-3 lose everything)
# lets it through. The value is the first 16 hex digits of
#   printf 'kratix_promise\tteam-namespace\nworker-2\tremoved\nworker-3\tremoved\n' | sha256sum
run "acknowledged_change_plans" {
  command = plan
  module {
    source = "./guard"
  }
  variables {
    promise_selector = { team = "a" }
    acknowledge      = "ack-7230e2b2c5ed2987"
  }
  assert {
    condition     = kratix_promise.namespace.scheduled_destinations == tolist(["worker-1"])
    error_message = "Only worker-1 stays scheduled."
  }
}

# The teardown destroys the promise, which takes its files from all three workers: the guard
# judges a destroy like any change, so the acknowledgement of exactly that is applied first (it
# changes no file; the refused plan below leaves the state as it is). The value is the first 16
# hex digits of
#   printf 'kratix_promise\tteam-namespace\nworker-1\tremoved\nworker-2\tremoved\nworker-3\tremoved\n' | sha256sum
run "acknowledge_teardown" {
  command = apply
  module {
    source = "./guard"
  }
  variables {
    acknowledge = "ack-d9ed30642ac6f034"
  }
}

# Without the narrowing's acknowledgement the plan is refused, naming the destinations.
run "unscheduling_two_is_refused" {
  command = plan
  module {
    source = "./guard"
  }
  variables {
    promise_selector = { team = "a" }
  }
}
