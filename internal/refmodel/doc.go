// Package refmodel is the reference model of the model-based acceptance test (TestAccModel_* in
// internal/provider): seeded random configurations, random operations on them, the Terraform
// configuration they render to, and what every destination folder must hold after each apply,
// file by file and byte by byte, with the refusals the plan must make.
//
// It is written from the documented behaviour alone and stays independent of the code it checks: it imports
// nothing from the provider's own packages (internal/layout, placement, scheduling, rollout,
// statestore, provider) and nothing from Terraform, and does no I/O; a depguard rule in
// .golangci.yml holds the line. (Its unit tests use internal/manifest once, to check that the corpus is
// already canonical YAML: a precondition on the corpus, not an expected value.) It reads which
// destinations each request was placed on from the provider's state (`destinations`, in order)
// and checks the whole list against its own computation (Model.SettleAll, replicas.go): the
// destinations it was on while they stay in the pool and no NoExecute taint drains them, the best
// of them by rank (or by spread over the `zone` label) when there are more than its replicas,
// then new ones by weighted rendezvous, which taints.go computes with its own SHA-256 and
// logarithm; every destination in the list must hold the request's files, and one it leaves
// none of them. Each workload group's destination (`group_placements[<folder>].destination`,
// which the runner reads as "<request>#<folder>") is checked the same way (groups.go).
//
// The runner in internal/provider (model_acc_test.go, model_fault_test.go) applies each step
// with the real CLI against real servers, reads the stores back with independent clients and
// compares them with the model through the API in refmodel.go, FolderProblems and FaultKept.
//
// The files:
//
//	model.go    the corpus, the world's objects, the ledger of each folder, Settle and expect
//	world.go    drawing a world and its operations (Op), and rendering the configuration
//	rollout.go  rollout waves: what each destination holds while a rollout is in flight
//	gate.go     gated rollouts: promise pg, its gate, the observe records and the clock, "health"
//	collide.go  "collide": two requests writing one file, refused at plan
//	guard.go    "guard": a guarded promise losing a destination, refused then acknowledged
//	taints.go   taints, tolerations and weights: the rules, the ranking, cordon/drain/untaint/reweight/tolerate
//	replicas.go replicas and spread: a request's destinations, zones, "replicas"
//	groups.go   workload groups: a request's folders placed on their own, "groups"
//	fault.go    a store down during an apply: when, and which files must not be lost
//	lifecycle.go Terraform's lifecycle: create_before_destroy, interrupted applies, saved plans, destroy -target
//	check.go    comparing a snapshot of the stores with the model
//	workspaces.go the model of TestAccModelWorkspaces_*: two or three workspaces (owners) sharing one store
//	refmodel.go what the runner calls
//
// Its unit tests (TestModel*) need no server and run in about a second.
package refmodel
