# A state store is imported by name. The next plan fills in the rest from the configuration as
# an in-place update; nothing is written to the store.
terraform import kratix_state_store.minio minio
