package provider

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

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

// storeWide reports whether err says the whole store cannot be read (unreachable, refused
// credentials or certificates, plain HTTP where TLS was expected, no such bucket, repository or branch), as opposed to a failure
// of one path.
func storeWide(err error) bool {
	var se *statestore.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Kind {
	case statestore.KindNetwork, statestore.KindTimeout, statestore.KindAuth, statestore.KindTLS,
		statestore.KindHostKey, statestore.KindPlainHTTP, statestore.KindMissingBucket, statestore.KindMissingBranch,
		statestore.KindMissingRepo:
		return true
	}
	return false
}

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

// outageLabel names an object that could not be refreshed, with its destinations on the store
// unless it is a destination itself.
func outageLabel(kind, who string, dests []string) string {
	if kind == "Destination" {
		return who
	}
	sorted := append([]string(nil), dests...)
	sort.Strings(sorted)
	return fmt.Sprintf("%s (on %s)", who, strings.Join(sorted, ", "))
}
