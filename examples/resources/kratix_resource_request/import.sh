# A request is imported as <promise>/<namespace>/<name>. The next plan, which has the promise's
# pool, looks in every destination's folder and keeps the request where its files already are
# (Kratix chose at random): nothing moves, and when the configuration matches the store the apply
# writes nothing. Found on several destinations, the plan fails and lists them; found on none, it
# is placed by the rendezvous choice and the plan warns.
terraform import kratix_resource_request.dev_instance jenkins/default/dev-instance

# <promise>/<namespace>/<name>@<destination> keeps it on the destination named.
terraform import kratix_resource_request.dev_instance jenkins/default/dev-instance@worker-2

# Or, from Terraform 1.5, in the configuration:
#
# import {
#   to = kratix_resource_request.dev_instance
#   id = "jenkins/default/dev-instance@worker-2"
# }
