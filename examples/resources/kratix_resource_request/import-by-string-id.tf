# A request is imported as <promise>/<namespace>/<name>. The first plan keeps the destination of
# the promise's pool that already holds its files, wherever Kratix put them.
import {
  to = kratix_resource_request.dev_instance
  id = "jenkins/default/dev-instance"
}

# When copies are found on several destinations, name the one to keep after an @.
import {
  to = kratix_resource_request.team_a
  id = "jenkins/default/team-a@worker-1"
}
