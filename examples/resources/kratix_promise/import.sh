# A promise is imported by name. The next plan computes its placements from the configuration;
# the apply rewrites nothing that is already in place.
terraform import kratix_promise.jenkins jenkins
