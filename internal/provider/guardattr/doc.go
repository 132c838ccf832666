// Package guardattr is how the blast-radius guard is written in Terraform: the `guard` attribute
// of kratix_promise and kratix_resource_request (PromiseSchema, RequestSchema) and the provider
// block's `destroy_acknowledgements` (DestroyAcksSchema), their readers (From, into
// placement.Guard; DestroyAcksFrom), and the checks a plan makes once its losses are known:
// Check for a change, CheckDestroy for a destroy, each an error on `guard` that lists the
// destinations and prints the acknowledgement, or a warning when the change was acknowledged.
//
// It is Terraform glue of one concern: which destinations lose what is placement.Losses', and
// what the guard refuses is placement.Guard's; the promise's and the request's plans
// (internal/provider) compute the losses and call the checks here.
package guardattr
