# A promise is imported by name. The next plan, which has the pool, records what each
# destination's folder already holds of the promise (a destination that holds it but no longer
# matches is kept as misscheduled), so a configuration that matches the store plans no file change
# and its apply writes nothing.
terraform import kratix_promise.jenkins jenkins
