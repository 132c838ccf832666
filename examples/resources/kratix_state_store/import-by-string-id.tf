# A state store is imported by name; the next plan fills in the rest from the configuration and
# writes nothing to the store.
import {
  to = kratix_state_store.minio
  id = "minio"
}
