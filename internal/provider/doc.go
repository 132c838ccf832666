// Package provider is the Terraform glue of the kratix provider: schemas, models, lifecycles and
// diagnostics. Every decision lives in the pure packages (scheduling: which destinations match;
// placement: what each resource puts, prunes and records per store location; rollout: which
// revision each destination holds; layout: Kratix's folder layout; manifest: YAML in canonical
// form) and every store operation in statestore. This package turns Terraform values into their
// inputs, and their results and errors back into state, private state and diagnostics.
//
// Files: one <object>_resource.go (schema and lifecycle, in lifecycle order) and one
// <object>_model.go (conversion) per object; shared helpers in files named for their job
// (pool.go for the pool's one reader, store_writer.go for store access and writes,
// diagnostics.go, the private state of each concern in its own file: writelog.go,
// left_behind.go, adopt.go). Rooms of the glue stand apart, each of one concern, with its own
// doc: the state_store object and the provider's secrets (storeconfig), the schema parts every
// resource shares (schemautil), the value conversions (tfvalue), the manifests attribute type and
// its caches (manifestattr), the selector, taint, toleration and weight attributes (schedattr),
// the rollout gate's and windows' attributes (rolloutattr), and the private-state keys with the
// successor, written-labels and left-behind records (privstate). None imports this package.
//
// The design notes below say how this package keeps the rules of DESIGN.md.
//
// # Health is refreshed state, verdicts are the plan's
//
// `observe` folders are read in Read (`internal/provider/observe.go`: one `ReadUnder` per folder
// and process, shared by every object observing it; on git one `SameFolders` question per
// repository and reported revision), and `health` changes only there, like drift: a record never
// plans a write. ModifyPlan keeps what the refresh found, marks the destinations it rewrites not
// fresh, and hands it to `rollout.Stage`, which decides gate, windows, rollback and revert on the
// injected clock; the apply replays the plan's `revisions`. The write times freshness is judged by
// live in private state (`written_at`), read by the steady-state Read too.
//
// # Decide in ModifyPlan, redo in apply
//
// Destinations, promises and requests run the placement engine in `ModifyPlan` from plan values
// and, for promises and requests, prior state (the records of what they placed and the pool they
// saw then), so the plan shows destinations and files with hashes. The apply runs the same pure
// function on the same inputs and hands its `placement.Op`s, one per store location, to
// `store_writer.go`. Nothing computed at plan time depends on local files, so plan and apply may
// run on different machines.
//
// # Import adopts, never moves
//
// Import has no configuration, so it only marks the resource (private state); the first plan,
// which has the pool, looks in each member's folder (`placement.Probe`/`Holds`) and plans from
// what it finds as if it were prior state, and passes it to the apply in private state
// (`internal/provider/adopt.go`). A saved plan file holds that private state, so a request with
// write-only content records what it found as keyed hashes, like its `written_files`, never as
// MD5s. That first plan also compares the import id with the configuration (`checkImportedName`, `adopt.go`): an
// id naming another object fails it, naming both, instead of planning a replacement. Kratix's own
// names are recognised as Kratix builds them (`internal/layout/kratix.go` cites the source): an
// index file of mode none that Kratix wrote becomes the placement's own (`layout.Request.Kept`,
// `layout.Dependencies.Kept`), so that adopting adds nothing it does not list in the plan, and an
// imported state store is not probed with a write.
//
// # The framework's cost is per value, so a promise's steady state bypasses it
//
// terraform-plugin-framework walks every resource's whole value several times per request, looking
// each node's schema up from the root, and a promise's value holds its pool; those walks were most
// of the provider's CPU time in a large plan, while the same plan answered with no work costs
// Terraform 0.8x its fair floor (README, Performance). So the steady-state server
// (`internal/tfserver`, registered in `fast_path.go`) answers the three requests of a no-change plan of `kratix_promise`
// and `kratix_resource_request` itself (state upgrade at the current version, read, and a plan
// whose proposed state, with the schema's one default applied, equals the prior state and which
// ModifyPlan leaves alone), calling the resource's own Read and ModifyPlan with the values decoded
// once. The create of a destination, promise or request is answered there too (`internal/tfserver/direct_plan.go`):
// its plan (defaults, computed attributes unknown, the top-level plan modifiers called as the
// framework calls them, ModifyPlan with a private state of the framework's own type) and its apply
// (Create, the framework's semantic equality for string types, write-only attributes null); a
// schema with a nested default, plan modifier or computed value, or semantic equality inside a
// collection, goes to the framework instead. The validation of a destination, promise or request
// is answered there too (`internal/tfserver/validate_direct.go`: one walk through the value doing what the framework
// does per attribute, custom types' own validation, read-only, required and write-only checks,
// validators with the same requests; what it cannot take goes to the framework with the pool taken
// out). Every other request (updates, deletes, imports) goes to the framework. In the acceptance
// tests each direct plan, validation and steady-state answer is also asked of the framework and
// any difference fails the test (a check the tests set; the served binary has none); a direct
// apply cannot be asked twice, so it is checked by what every apply step checks (the state read
// back, the empty plan after it). Tests list the schemas' defaults, plan modifiers, computed and
// write-only attributes, semantic-equality paths and the private-state keys, which the direct
// answers must know. A value's attributes are edited on a copy of its map (`tfvalue.AttrsCopy`): tftypes
// hands out the value's own, and a plan edited in place compares equal to the value it came from
// (a request's hand-edited file once planned no repair that way). Models go in and out of plans
// and states without the framework's reflection, which compiled a regular expression per field per
// call (`internal/tfserver/codec.go`, checked against Get and Set on random values). What no provider can go
// under is measured too: `bench/noop` serves the same schemas and does no work, and an apply with
// it (the protocol floor) is 1.2x the fair floor in B2 and B3, which is why an apply with nothing
// scheduled stays above 1.3x its fair floor. Besides: computed collections that are only read
// (`placements`) are maps of objects, pools are read straight from the objects
// (`pool.go`), a Read or ModifyPlan that changes nothing writes nothing back, `main.go`
// turns the plugin SDK's logs off unless a `TF_LOG` variable asks for them (Terraform throws them
// away otherwise) and runs the collector at GOGC 200 under a 2 GiB soft limit. Tried and dropped:
// the pool as a dynamic attribute (B4 2.75x against 2.27x, measured one after the other: every
// value then carries its type on the wire).
//
// # A replacement never deletes what it writes again
//
// Terraform replaces by deleting first (a create that failed somewhere is tainted, then replaced).
// The plan of every new promise, request or destination records in private state what it will
// write (`placement.Successor`); Terraform hands the planned private state of the replacement to
// the delete, which spares those paths (`Plan.Spare`), so a GitOps agent never sees them go
// (`internal/provider/privstate/successor.go`). A destination replaced in its folder keeps the canaries its
// successor writes again (`Successor.SpareFiles`). Under `create_before_destroy` the old object is
// destroyed after its successor wrote: its delete spares every path another object wrote earlier
// in the apply (the process's write log, `writelog.go`), so a destination's `cleanup = "all"`
// keeps what the promises and requests on its successor wrote there. When that apply stops before
// the old object's destroy, the next apply destroys the deposed object in a process with an empty
// log, and its files go until the apply after writes them back (issue 37, finding 1, open).
//
// # Configure dials nothing
//
// It may run with unknown values; stores are opened on first use.
//
// # Changing a schema's shape
//
// Every resource states its schema `Version` (`state_upgrade.go`; all 0 today). Adding an optional
// or computed attribute or block needs no bump: a state saved without it reads as null, and a null
// that keeps its meaning plans no change (the `timeouts` block was added that way;
// `TestAccTimeouts_stateSavedBeforeTheBlock` checks it with the real CLI). Anything that a saved
// state cannot be read as (an attribute renamed, removed or retyped, or a value whose meaning
// changes) bumps the version by one and, in the same commit: freezes a copy of the previous schema
// as `<object>SchemaV<N>`; implements `UpgradeState` (the state store shows the skeleton) with an
// upgrader keyed by every earlier version, each going straight to the current shape, since
// Terraform calls only the one for the saved version; updates `schemaVersions` in
// `state_upgrade_test.go` and adds to `upgradeCases` a state JSON as version N saved it, with the
// state it must read as now. `TestUpgradeState` fails until both are there.
package provider
