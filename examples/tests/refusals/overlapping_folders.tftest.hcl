# A plan the provider refuses: two destinations of the promise's pool in one folder. The run errors
# (expect_failures cannot catch a provider's error); make test checks the message.

run "two_destinations_in_one_folder" {
  command = plan

  variables {
    workers = {
      worker-1 = { labels = { env = "dev" }, store = "gitops" }
      worker-2 = { labels = { env = "dev" }, store = "gitops", path = "worker-1" }
    }
  }
}
