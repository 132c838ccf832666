// Package schemautil holds the schema parts that several of the provider's resources and data
// sources share and that know nothing of a store, a pool or a promise: string, label and selector
// validators (StringCheck and its instances), the replace-if plan modifiers, and the `timeouts`
// block with the deadline an operation runs under (TimeoutsBlock, StartOp).
//
// They live apart from internal/provider so that the glue's files hold what each Kratix object
// means, and so that each rule here reads, and is tested, on its own: a validator is a function of
// one value, a plan modifier of its prior and planned values, and StartOp of a plan or a state.
// Validators that know a store (a Git URL, an S3 endpoint, an STS endpoint) live with the store
// configuration, in internal/provider/storeconfig.
package schemautil
