// Package statestore reads and writes the files of a Kratix State Store: an S3-compatible bucket
// (minio-go) or a Git repository (go-git). Paths are relative to the bucket or repository root;
// the store's own path prefix is joined in by the caller (see package layout).
//
// A Store is safe for concurrent use. Every Apply is one operation in Kratix's sense: for git it
// becomes one commit (or none when nothing changed), for a bucket a set of parallel PUTs and
// DELETEs.
//
// The design notes below say how this package keeps the rules of DESIGN.md.
//
// # One Store interface
//
// `statestore.Store.Apply` takes one `Change` (files to put, files and prefixes to delete, folders
// to prune, aggregates to rebuild) and makes it one operation: one commit for git, parallel PUTs
// that skip unchanged objects (ETag = MD5) for buckets. Clients live in a `statestore.Pool` for
// the life of the provider process: one minio client per endpoint and credentials, one shallow
// in-memory clone per repository and branch. Writes to a clone take turns; those queued while a
// push is in flight are committed one commit per operation, each on the previous, and go out in
// one push (group commit), so history stays per operation while many promises applied at once
// share pushes. A batch commits on the tip the process last fetched or pushed, and its push only
// lands if the branch is still there (a compare-and-swap); otherwise it fetches and commits again.
// Reads waiting for the clone share the next fetch or push that started after they were asked, so
// none sees the remote as of before its call. A write reports which files it replaced
// (`Result.Replaced`), from which the apply's "Taking Over Existing File" warning is made: no read
// before a write. On a bucket the plan's warning asks the same question of the listing the
// process's writes use (`writingBucket.Hashes`), and only for the files a resource does not hold
// yet, so it costs a plan one listing per store and the apply's writes nothing; a repository is
// not read at plan for it (in an apply's process each resource is planned again just before its
// write, and those fetches queued behind the pushes: B5 4.47 s against 3.97 s).
//
// # A git clone holds what the provider owns, not the repository
//
// A state store's repository may hold tens of thousands of files of other teams. The first fetch
// is shallow (depth 1) and of the branch alone; later fetches send the last tip as a have, without
// deepening (git's upload-pack, protocol v0, resends the whole tree of a deepened tip). When the
// server serves partial clones, that is advertises `filter` and `allow-reachable-sha1-in-want`
// (GitHub, GitLab, Gitea; for plain git, `uploadpack.allowFilter` and
// `uploadpack.allowReachableSHA1InWant` or `allowAnySHA1InWant`), fetches leave blobs out (`filter
// blob:none`): commits and trees are enough to list, edit and rewrite a tree, and a push sends
// only the objects it creates. The blobs an operation reads (an aggregate's contributions, what
// Read, Hashes and List report on) are fetched by hash, in one request per operation
// (`internal/statestore/git_fetch.go`). Other servers get the whole tip, as a shallow clone always
// did. A branch rewritten by force is fetched back to where it meets the last tip (trees only with
// partial clones).
//
// # Apply compares with the store, not with old state
//
// A `placement.Change` is declarative: every file a placement must hold, the folders it owns
// outright, the single files it claims. The store realises it against what it holds at the moment
// of the write (git: the tip, as the push proves it, then diff; buckets: list the owned prefixes),
// so a destination replaced, moved or cleaned up earlier in the same apply still ends with every
// planned file. State is used only to know where a placement was and which loose files it wrote,
// so that what it no longer writes goes (and only inside the destination's folder, never a
// canary).
//
// # One listing per store per plan
//
// A plan runs every resource's Read in one provider process. Reads of a bucket go through
// `Observed(<store path>/)` (`internal/statestore/bucket_snapshot.go`): the first lists the
// store's path once, recursively, and every later List, Hashes and `kratix_state_store` existence
// check under it is answered from that listing, with the same MD5 rules. The listing is only for
// reads that report drift, never for what an apply skips; any write of the process drops it; it
// lives at most 60 s; a failed listing is not kept; past 100,000 objects (a store path of "" on a
// crowded bucket) reads list folder by folder. A hand edit made after the listing shows in the
// next plan, a new process. Git needs none: the tree is in memory.
//
// # One listing per store per apply
//
// Writes have a listing of their own (`Writing(<store path>/)`,
// `internal/statestore/bucket_write_snapshot.go`): the first write under a store path lists it,
// and from then on every write looks up what it replaces there and records each PUT and DELETE it
// makes, so that the listing stays what the process knows the store holds (aggregates rebuilt
// included). A store path holding more than one page of objects (999: a path of "" on a bucket of
// other teams' files) is listed whole only at the third write, so that a destination's two
// canaries list their own folders rather than a crowded bucket. A PUT or DELETE that fails drops
// the listing, as does the access probe. It lasts as long as the process, which serves one
// Terraform operation: it only decides what a write may skip or must remove, never what a plan
// reports. A change another writer makes in a folder of ours during the apply can be missed (a PUT
// skipped as current, a file they added left in place), as a change made just after a write's own
// listing always could; the next plan's refresh sees it and the apply after writes again. A new
// store's read check at plan (one page of its path) is that listing too when the path holds no
// more than a page, and the write probe of its create keeps it up to date as writes do: an apply
// that creates a store and writes to it lists once. (A store with `create_bucket = true` is a
// separate client from its destinations', so there the writes list once more.)
// `TestAccBucketStore_oneListingPerApply` and `TestAccBucketStore_oneListingForASetUp` count the
// LISTs on the wire.
//
// # A new store is read at plan, written at apply
//
// The first plan of a `kratix_state_store`, and of one whose location changes, reads it
// (`statestore.ReadChecker`: one listing of at most one key; a git fetch advertisement, closed
// without fetching) when its settings and credentials are known and the provider is online, so a
// missing bucket, repository or branch, refused credentials or an unreachable server fail the plan
// at the attribute to fix. Plans of a store that stays where it is ask nothing (the steady state
// stays free); write access is the apply's probe. Transport failures are classified by type
// (`classifyTransportError`), never by their words.
//
// # One deadline per operation
//
// Each Create, Read, Update and Delete that talks to a store starts with `schemautil.StartOp`
// (`internal/provider/schemautil/timeouts.go`): its context ends at the resource's `timeouts`
// value for that operation, 10 minutes when unset. Store calls, retries and waits take no deadline of their own (only a TCP
// dial does: 10 s for buckets, 30 s for SSH), so the user's limit is what bounds them; a race lost
// to another writer (a push that finds the branch moved, an aggregate rebuild whose
// compare-and-swap fails) is retried until that deadline, with full-jitter backoff from 50 ms up
// to 2 s (`statestore/retry.go`), never a fixed number of times, and the error that ends it counts
// the lost races and, for git, names the commits that won them; an operation that runs out adds an
// "Operation Timed Out" error on `timeouts.<operation>` beside the store's own, whose kind is then
// "timed out" (`statestore.KindTimeout`) rather than a network failure. go-git opens SSH
// connections without the context; each SSH fetch, push and listing therefore names a private
// proxy scheme whose dialer ties the connection to the operation's context
// (`git_ssh_deadline.go`), so the dial, the handshake and the session end with it.
package statestore
