package provider

import (
	"sort"
	"sync"
	"time"

	"github.com/promise-platform/terraform-provider-kratix/internal/health"
	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// processState is everything one provider process keeps beyond a single resource operation:
// registries that let the operations of one Terraform command see one another. Terraform starts
// the provider for each command (validate, plan, apply) and configures it once there, so each
// registry holds one command's knowledge and starts empty with the next; a process that serves
// several commands (a debug server reattached through TF_REATTACH_PROVIDERS) is configured again
// by each and starts empty too (providerData is built by Configure). Nothing here is kept on
// disk or reaches state: what must cross commands goes through private state (privstate/keys.go).
//
// Each registry answers one question that a single resource cannot answer from its own inputs,
// and so makes one operation depend on others of the same command. The fields say why each
// exists, who writes it and who reads it; every registry is safe for concurrent use, since
// Terraform runs independent operations side by side, and every reader copes with an empty
// registry (the order of independent operations is not fixed).
type processState struct {
	// pool: the stores' clients, one minio client per endpoint and credentials, one in-memory
	// clone per git repository and branch, with the listings every refresh and write share
	// (sharedView and writingView in store_writer.go). Why: a fleet's plan would otherwise
	// connect, clone and list once per resource. Made by Configure; its clients' listings and
	// clones are written and read by every operation that opens a store (providerData.open).
	pool *statestore.Pool
	// owners: which owner's plan claims each store path, and the index files read at plan.
	// Why: two resources of one configuration must not write one path, and neither plan alone
	// can see the other. Written by every promise's and request's ModifyPlan (claim, through
	// checkOwners in owners.go); read by the same calls: the second claimant is refused.
	owners ownerRegistry
	// folders: the destination folders the plans of this process have seen. Why: two pools
	// (two promises, each with its own members) may name destinations whose folders overlap.
	// Written and read by claimFolders (pool.go) during every pool read; owners.go reads it
	// to find the destination that holds a path.
	folders layout.Claims
	// writes: per store location and path, the instance that last wrote it in this command.
	// Why: a destroy that runs after a successor's create (create_before_destroy, -replace)
	// must spare what the successor, or any other object of the apply, wrote at its paths.
	// Written by every store write (store_writer.go); read by every delete (writtenByOthers,
	// writelog.go explains the instance tokens).
	writes writeLog
	// outages: the stores the refreshes of this command could not read. Why: a store down
	// fails every object on it, and one error per store reads better than one per object.
	// Written and read by refreshWith (store_writer.go) through join.
	outages outages
	// healthReads: each observe folder's records, read once per command. Why: every promise
	// and request observing a folder needs the same records, and a fleet would otherwise list
	// it once per object. Written and read by healthRecords (observe.go).
	healthReads healthReads
}

// ownerRegistry is the claims of every plan made in this provider process: every resource of one
// plan is planned by one process, so the second plan that claims a path sees the first.
type ownerRegistry struct {
	mu     sync.Mutex
	claims placement.Claims
	// indexes caches what each index file read at plan lists, by location, path and MD5: the
	// plans of every request on one destination read the same index files.
	indexes map[string][]string
}

// writeLog is the process's log of writes: location => path => writer token.
type writeLog struct {
	mu      sync.Mutex
	written map[string]map[string]string
}

// record notes that writer's write made the location hold paths.
func (l *writeLog) record(location, writer string, paths []string) {
	if writer == "" || len(paths) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.written == nil {
		l.written = map[string]map[string]string{}
	}
	at := l.written[location]
	if at == nil {
		at = map[string]string{}
		l.written[location] = at
	}
	for _, p := range paths {
		at[p] = writer
	}
}

// byOthers lists, per location, the paths written by any writer other than the given one, in
// the shape of a successor list so that a removal can be spared them (placement.Plan.Spare).
func (l *writeLog) byOthers(writer string) placement.Successor {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := placement.Successor{}
	for loc, at := range l.written {
		var paths []string
		for p, w := range at {
			if w != writer {
				paths = append(paths, p)
			}
		}
		if len(paths) > 0 {
			sort.Strings(paths)
			out[loc] = paths
		}
	}
	return out
}

// A store that cannot be reached fails the refresh of every object on it, each with the same
// error. outages turns that into one error per store and run: the first object whose refresh
// finds the store unusable reports it, naming every object that found the same within a short
// settling time; the others keep their state and add nothing (the plan fails all the same).
// Only the refresh of Read does this: an import's probe, which decides what is written, always
// fails on its own.
type outages struct {
	mu         sync.Mutex
	byLocation map[string]*outage
}

// outage is what the run knows of one store location that could not be read.
type outage struct {
	objects []string  // who could not be refreshed, in the order they found out
	last    time.Time // when the last of them joined
}

// The settling time: the reporter waits until no object has joined for outageQuiet, and at
// most outageWait. Terraform refreshes independent objects side by side, so those on one
// store all find out within it.
const (
	outageQuiet = 300 * time.Millisecond
	outageWait  = 3 * time.Second
)

// join records that object could not refresh at location. The first object to join reports:
// join returns true for it and, once the others have settled, reported lists every object
// that joined, sorted. The others get false and report nothing.
func (o *outages) join(location, object string) (first bool, reported func() []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.byLocation == nil {
		o.byLocation = map[string]*outage{}
	}
	out, seen := o.byLocation[location]
	if !seen {
		out = &outage{}
		o.byLocation[location] = out
	}
	out.objects = append(out.objects, object)
	out.last = time.Now()
	if seen {
		return false, nil
	}
	return true, func() []string { return o.settle(out) }
}

// settle waits until no object has joined out for outageQuiet (at most outageWait) and lists
// its objects.
func (o *outages) settle(out *outage) []string {
	deadline := time.Now().Add(outageWait)
	for {
		o.mu.Lock()
		quiet := time.Until(out.last.Add(outageQuiet))
		o.mu.Unlock()
		if quiet <= 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(min(quiet, time.Until(deadline)))
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	objects := append([]string(nil), out.objects...)
	sort.Strings(objects)
	return objects
}

// healthSnapshot is one observe folder's records, read once per provider process.
type healthSnapshot struct {
	once    sync.Once
	records map[string][]health.Record // by destination
	err     error
}

// healthReads are the snapshots of a process, by store location and folder.
type healthReads struct {
	mu    sync.Mutex
	byKey map[string]*healthSnapshot
}

func (h *healthReads) get(key string) *healthSnapshot {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byKey == nil {
		h.byKey = map[string]*healthSnapshot{}
	}
	s, ok := h.byKey[key]
	if !ok {
		s = &healthSnapshot{}
		h.byKey[key] = s
	}
	return s
}
