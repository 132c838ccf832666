# A destination is imported by name. The next plan fills in the rest from the configuration as
# an in-place update, and the apply writes any canary file that is missing.
terraform import kratix_destination.worker_1 worker-1
