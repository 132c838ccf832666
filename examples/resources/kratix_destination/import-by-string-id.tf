# A destination is imported by name; the next apply writes a canary only if one is missing.
import {
  to = kratix_destination.worker_1
  id = "worker-1"
}
