# A request is imported as <promise>/<namespace>/<name>. The next plan recomputes its
# destination (the same rendezvous choice) and files from the configuration.
terraform import kratix_resource_request.dev_instance jenkins/default/dev-instance
