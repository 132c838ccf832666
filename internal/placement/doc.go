// Package placement decides what every resource that writes to a State Store puts there and
// deletes: a destination's canaries, a promise's dependencies, a resource request's files.
//
// Given the scheduling result, the layout of each target, what the resource placed before (its
// records, from state) and the pool it saw then, it returns one Change per store location and
// the records to keep when those changes are made, or when some of them fail. It is the only
// place that says what a writer may put and delete, and it is pure: no Terraform, no I/O.
//
// Store locations are normalised identities (see Location), never a destination's name: a
// destination that moves to another store takes its files with it, and a cosmetic edit of a
// store (a path of "." for none, a ".git" suffix) moves nothing.
//
// The Changes are declarative: every file the placement must hold, the folders and files it owns
// (whatever is there and not wanted goes), and the aggregates to rebuild. The store realises a
// Change against what it holds at the moment of the write, so an apply never trusts state for
// what is in the store: a destination replaced or cleaned up earlier in the same apply still ends
// with every planned file.
//
// The design notes below say how this package keeps the rules of DESIGN.md.
//
// # Store identity is normalised
//
// Placements are keyed by `placement.Location` (bucket endpoint in lower case without a default
// port; git URL without `.git` or a trailing `/`, scp-like as `ssh://`, branch `main` when unset)
// and a cleaned store path, never by a store's or destination's name. A cosmetic edit (path `.`
// for none, a `.git` suffix, endpoint case, author, `secret_ref`) changes nothing in the store; a
// real move replaces the destination, and the promises and requests on it take their files from
// the old location and write them at the new one. Two destinations whose folders are equal, or
// nested where the outer one may not hold the inner one (`layout.Holds`: only modes none and
// aggregatedYAML may, whose writes, refreshes and cleanups are files they name; Kratix's root
// destination), however their stores are spelled, are refused at plan, wherever the plan sees
// them: within a pool (`layout.FindOverlaps`), and across the resources of the plan through
// `layout.Claims`, which each destination, promise and request adds its destinations to in
// `ModifyPlan`. Terraform plans a configuration in one provider process, so the second resource to
// see one of two overlapping destinations is refused.
//
// # Sticky choices live in state
//
// A request's destination is chosen once by rendezvous hashing and then read back from prior
// state; a promise's earlier placements are what makes a destination "misscheduled".
//
// # Taints decide in scheduling, moves are made before they break
//
// Taints, tolerations and weights are Kubernetes' rules (`scheduling.Tolerates` agrees with
// `corev1.ToleratesTaint` on every pair of a generated vocabulary; k8s.io/api is a test dependency
// only) and weighted rendezvous hashing (`scheduling.Rank`: score -w/ln(u) on the same SHA-256 as
// before, so equal weights choose what `Choose` chose and no request moves on upgrade).
// `scheduling.Pick` says where a request goes (replicas and spread included, not wired yet),
// `PromiseTaintVerdict` whether a promise stays. A request moves only when its destination is
// drained (an untolerated `NoExecute`): `PlanRequest` places it on its best remaining choice and
// removes it from the drained one (`RequestPlan.MovedFrom`), and `writeMove` writes every other
// location first and removes the old files only when all of those succeeded; otherwise the old
// location counts as failed, the record stays there, and the next plan moves it again. A drain
// with nowhere to go leaves the request where it is and says so. Weights, cordons and removed
// taints move nothing placed: requests are sticky, as in Kratix.
//
// # A request's several placements live beside its first
//
// `replicas` and `spread` go to `scheduling.Pick` through `placement.PlanRequest`, which keeps the
// destinations a request is on as candidates while they stay in the pool (matching or not:
// misscheduled, as one destination is), so Pick's sticky rule keeps them; a drained one with
// nowhere to go stays (one per missing replica). The first destination keeps the single attributes
// (`destination`, `location`, `root`, `written_files`), so a request without replicas reads and
// plans as before; `destinations` lists all of them, the ones kept first in the order they were
// placed, so that raising replicas never changes `destination`; `placements` holds every one by
// destination (the promise's shape) when the configuration asks for replicas or spread, or while a
// lowered `replicas` has a removal left to make. Every destination the request leaves while it
// stays in the pool (drained, or past its replicas) is in `RequestPlan.Leaving`, removed by
// `writeMove` only after the rest is written. Adding `destinations` bumped the request's schema to
// version 1: its upgrader edits the saved JSON (the one destination, or none), so the first plan
// after an upgrade shows no change even with `-refresh=false`
// (`TestAccTimeouts_stateSavedBeforeTheBlock`).
//
// # A workload group is a request plan of its own
//
// `internal/layout` lays out Kratix's workload groups (a group's id is the MD5 of its cleaned
// folder, its five-digit prefix names the placement; `SplitGroups`, `ValidateGroups`,
// `RequestFiles` with `Request.Group`). The provider splits a request's files by its `groups` and
// runs `placement.PlanRequest` once for the default group and once per group (the group's own
// selectors, the promise's not added, on `placement.GroupKey`: the request's key and the folder),
// then merges their operations per store location (`placement.MergeOps`) so each location still
// gets one write. Records stay keyed by destination within each plan; state keeps the default
// group in the request's own attributes and each group in `group_placements`, by cleaned folder.
// The owners check keys a group's records `<destination>#<group>` (no destination name holds `#`).
// A group no longer configured is removed (`RemoveRequest` with its group), and while that removal
// fails it stays listed. Import adopts the default group only.
//
// # One spelling per identity
//
// A request is `<promise>/<namespace>/<name>` in its id, import id, messages and commit messages
// (`placement.RequestID`); the rendezvous key, which keeps its historical order so that no request
// moves, is never shown (`placement.RequestKey`).
//
// # Drift through observation
//
// State records what each placement holds as path => MD5. `placement.Observe` says what Read must
// look at: owned folders are listed whole (a stray file there is drift), claimed files are hashed,
// and an aggregatedYAML file is compared with the join of its parts (recorded as `part:<md5>`
// while current, `stale` when not). `placement.Refresh` turns the answer into the record the store
// holds; the next plan shows the difference, the apply repairs it. Buckets are read through
// listings and ETags; only aggregate parts are downloaded. An ETag is the MD5 only when the object
// is not encrypted with SSE-KMS or SSE-C: MinIO's listings say how each object is encrypted;
// elsewhere the bucket's default encryption decides, and on an SSE-KMS bucket each object is asked
// with a HEAD (`md5s` in `internal/statestore/bucket.go`).
//
// # Partial failure settles per destination
//
// Every store location of an operation is tried even when one fails. `Plan.Settle` keeps the new
// record of each destination whose changes were all made and the old record of the others, so
// state says exactly what was written and the next plan shows, and the next apply finishes, the
// rest. A move (another store, folder or layout) whose removal from the old place failed keeps its
// old record, but state's pool says only where the destination is now: the promise or request
// keeps the pool element as it was in private state (`left_behind`, `placement.LeftBehind`,
// `internal/provider/left_behind.go`) and gives it back to that placement's prior while the record
// is there (`placement.RecordedAt`), so Read refreshes the old place and the next plan moves it
// again. A request's move left half done says "Move Not Finished" whatever failed first
// (`writeMove`).
//
// # An update touches only what changes
//
// A placement held on the same instance of a destination (`Member.Instance`, the pool's
// `instance_id`), laid out in the same place the same way, whose record (what the refresh saw) is
// what the plan records gets no `Op` (`placement.Unchanged`); a destination updated in place with
// its canaries as recorded has none either (`placement.UpdateCanaries`). So a change of labels,
// weight or taints sends nothing to any store (`TestAccTaintsWeightLabels_touchNoStore` applies
// one with the stores down), and a drain with the drained store down fails only the requests that
// move. A request that leaves a destination still writes the ones it keeps, so the store confirms
// them before the files leave.
//
// # Guards compare records, not operations
//
// `placement.Losses` compares what each destination held with what the plan's records say it will
// hold; an acknowledgement hashes the exact set of losses, so it can never let a different change
// through.
//
// # One file, one owner
//
// Kratix lets the last writer overwrite a file two placements write; we refuse the second at plan
// (`placement/owners.go`, `provider/owners.go`). Every plan records in the process
// (`processState.owners`, process_state.go) the paths its records claim, per normalised location;
// a second owner's claim is an error naming both, at the attribute that makes the path, while the
// same owner planned again replaces its own claims. A path an owner does not hold yet is also
// looked up in the index files of a destination in mode none (the shared listing, each index file
// read once per process): an index of another placement listing it is an error too. An apply never
// deletes a file another placement's index lists (`placement.KeepListed`, read at the moment of
// the write, only when the change deletes files where index files live): it warns and leaves it.
package placement
