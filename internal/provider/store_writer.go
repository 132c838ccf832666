package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	tfpath "github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/memo"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/storeconfig"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// storeRefs finds the store object of a location, from every pool a resource knows (the one it
// has now and the one it had), so that files can be taken from where a destination was.
type storeRefs map[string]storeconfig.Ref

func (r storeRefs) add(pool ...poolMember) storeRefs {
	for _, m := range pool {
		if _, ok := r[m.Location.String()]; !ok {
			r[m.Location.String()] = m.Store
		}
	}
	return r
}

// writeOps makes every operation of a plan, one write per store location, and returns the
// locations that failed. A failing store does not stop the others: each is tried, and every
// failure is reported. kind names the object in summaries ("Promise", "Request", "Destination"),
// who names the resource in details. writer, unless "", is the token the write log notes the
// paths under (writelog.go): every path a location was made to hold, or, when its write failed,
// those it reported written.
func (d *providerData) writeOps(ctx context.Context, kind, who, message, writer string, ops []placement.Op, refs storeRefs, diags *diag.Diagnostics) map[string]bool {
	failed := map[string]bool{}
	for _, op := range ops {
		key := op.Location.String()
		if op.Change.Empty() {
			continue
		}
		store, err := d.openRef(refs, key, op.Member.Store)
		if err != nil {
			diags.Append(storeNotUsable(who, op.Member.Store, err))
			failed[key] = true
			continue
		}
		// The write itself says which files it replaced, from the content it found: no read
		// before it, which would cost a round trip and, on git, a turn on the repository.
		change, err := spareListed(ctx, store, op.Member.Target.StorePath, who, op.Change, diags)
		if err != nil {
			addStoreError(diags, "Cannot Write "+kind, fmt.Sprintf("%s: reading the index files of destinations %s failed", who, strings.Join(op.Destinations, ", ")), err)
			failed[key] = true
			continue
		}
		change.Message = message
		res, err := applyWithStakes(ctx, store, op.Member.Target.StorePath, who, change, diags)
		warnTakeOver(store, who, op.Fresh, res.Replaced, diags)
		warnUnseen(store, who, res.Unseen, diags)
		var refused *stakeRefused
		if errors.As(err, &refused) {
			diags.Append(refusedWrite(tfpath.Empty(), who, refused, store.Describe()))
			failed[key] = true
			continue
		}
		if err != nil {
			d.writes.record(key, writer, res.Written)
			addStoreError(diags, "Cannot Write "+kind,
				fmt.Sprintf("%s: writing to destinations %s failed", who, strings.Join(op.Destinations, ", ")), err)
			failed[key] = true
			continue
		}
		d.writes.record(key, writer, opPaths(change))
		tflog.Debug(ctx, "store written", map[string]any{
			"who": who, "store": store.Describe(), "destinations": strings.Join(op.Destinations, ","),
			"written": len(res.Written), "deleted": len(res.Deleted), "revision": res.Revision,
		})
	}
	return failed
}

// writeMove is writeOps for a request that leaves the destinations from in this plan (drained, or
// past its replicas): make before break. The operations that only take its files away from them
// run once every other has been written, and not at all when one of those failed, so that the
// request is never in neither place; their locations then count as failed, which keeps the
// request's record where it was, and the next plan finishes the move. When both destinations
// share a location the store does it in one write, its puts before its deletes (one commit on
// git). Whatever failed first (the writes where it goes, or the removal where it was), a move
// left half done says so: "Move Not Finished", naming the destinations it stays on.
func (d *providerData) writeMove(ctx context.Context, kind, who, message, writer string, ops []placement.Op, from []string, refs storeRefs, diags *diag.Diagnostics) map[string]bool {
	var first, leaving []placement.Op
	for _, op := range ops {
		if onlyLeaving(op.Destinations, from) {
			leaving = append(leaving, op)
		} else {
			first = append(first, op)
		}
	}
	failed := d.writeOps(ctx, kind, who, message, writer, first, refs, diags)
	firstFailed := len(failed) > 0
	if !firstFailed {
		maps.Copy(failed, d.writeOps(ctx, kind, who, message, writer, leaving, refs, diags))
	} else {
		for _, op := range leaving {
			failed[op.Location.String()] = true
		}
	}
	if stays := unfinished(ops, from, failed); len(stays) > 0 {
		why := "its files are removed from there only once they are written where it goes, which failed"
		if !firstFailed {
			why = "its files are written where it goes, but removing them from there failed"
		}
		diags.AddWarning("Move Not Finished", fmt.Sprintf("%s stays on %s: %s. The next plan shows the move again, "+
			"and the next apply finishes it.", who, destinationsText(stays), why))
	}
	return failed
}

// unfinished lists, in from's order, the destinations a resource leaves whose removal is in an
// operation that failed (or was not tried).
func unfinished(ops []placement.Op, from []string, failed map[string]bool) []string {
	var out []string
	for _, dest := range from {
		for _, op := range ops {
			if failed[op.Location.String()] && slices.Contains(op.Destinations, dest) {
				out = append(out, dest)
				break
			}
		}
	}
	return out
}

// onlyLeaving reports whether every destination of an op is one the resource leaves.
func onlyLeaving(dests, from []string) bool {
	for _, d := range dests {
		if !slices.Contains(from, d) {
			return false
		}
	}
	return len(dests) > 0
}

// destinationsText names destinations as messages do: destination "a", or destinations "a", "b".
func destinationsText(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	if len(names) == 1 {
		return "destination " + quoted[0]
	}
	return "destinations " + strings.Join(quoted, ", ")
}

func (d *providerData) openRef(refs storeRefs, key, name string) (statestore.Store, error) {
	if d == nil {
		return nil, fmt.Errorf("the provider is not configured")
	}
	ref, ok := refs[key]
	if !ok {
		return nil, fmt.Errorf("store %q (%s) is not known to this resource", name, key)
	}
	return d.open(ref, false)
}

// observed is a placement to refresh: its record, where it is and how it is laid out.
type observed struct {
	member poolMember
	files  layout.Files
	record placement.Record
	// hashKey, for a record of keyed hashes, is the key to hash what the store holds with.
	hashKey []byte
}

// refresh reads what each placement's location holds now, one pass per location, and returns
// the records as the store holds them (see placement.Refresh). Failures other than "not found"
// are errors, never "gone".
func (d *providerData) refresh(ctx context.Context, kind, who string, placements map[string]observed, diags *diag.Diagnostics) map[string]placement.Record {
	return d.refreshWith(ctx, kind, who, placements, nil, diags)
}

// readRefresh is refresh for an object's Read: a store that cannot be read at all is reported
// once per run for every object on it (see outages), and the objects that did not report it
// keep their records.
func (d *providerData) readRefresh(ctx context.Context, kind, who string, placements map[string]observed, diags *diag.Diagnostics) map[string]placement.Record {
	return d.refreshWith(ctx, kind, who, placements, &d.outages, diags)
}

func (d *providerData) refreshWith(ctx context.Context, kind, who string, placements map[string]observed, down *outages, diags *diag.Diagnostics) map[string]placement.Record {
	out := map[string]placement.Record{}
	byLocation := map[string][]string{}
	refs := storeRefs{}
	for dest, o := range placements {
		key := o.member.Location.String()
		byLocation[key] = append(byLocation[key], dest)
		refs.add(o.member)
	}
	for _, key := range tfvalue.SortedKeys(byLocation) {
		dests := byLocation[key]
		store, err := d.openRef(refs, key, placements[dests[0]].member.Member.Store)
		if errors.Is(err, storeconfig.ErrSecretsUnknown) || errors.Is(err, errOffline) {
			// The credentials are known only after apply (a rotated password, say), or the
			// provider is offline: the store cannot be read in this plan, so state stands, and
			// the apply writes what is planned (or, offline, refuses).
			for _, dest := range dests {
				out[dest] = placements[dest].record
			}
			continue
		}
		if err != nil {
			diags.Append(storeNotUsable(who, placements[dests[0]].member.Member.Store, err))
			return nil
		}
		for _, dest := range dests {
			o := placements[dest]
			q := placement.Observe(o.files, o.record)
			view := sharedView(store, o.member.Target.StorePath)
			obs, err := observe(ctx, view, q)
			if err == nil && o.hashKey != nil {
				err = rekey(ctx, view, q, &obs, o.hashKey)
			}
			if err != nil && down != nil && storeWide(err) {
				first, reported := down.join(key, outageLabel(kind, who, dests))
				if first {
					diags.Append(storeUnreadable(reported(), err))
					return nil
				}
				for _, dest := range dests {
					if _, done := out[dest]; !done {
						out[dest] = placements[dest].record // reported by the object that found out first
					}
				}
				break
			}
			if err != nil {
				addStoreError(diags, "Cannot Read "+kind, fmt.Sprintf("%s: reading destination %q failed", who, dest), err)
				return nil
			}
			out[dest] = placement.Refresh(o.record, q, obs)
		}
	}
	return out
}

// sharedView is the store as a refresh reads it: a bucket answers the reads under the store's
// path from one listing shared by every resource of the provider process (see
// statestore.SharedReader), so that a plan lists each store once, not each destination's folders
// once per resource. Writes have their own shared listing (writingView).
func sharedView(store statestore.Store, storePath string) statestore.Store {
	sr, ok := store.(statestore.SharedReader)
	if !ok {
		return store
	}
	return sr.Observed(layout.Prefix(storePath))
}

// writingView is the store as the writes of an apply use it: a bucket finds what each write
// replaces under the store's path from one listing shared by the writes of the provider process
// and kept up to date by them (see statestore.SharedWriter), so that an apply lists each store
// once, not each destination's folder once per resource.
func writingView(store statestore.Store, storePath string) statestore.Store {
	sw, ok := store.(statestore.SharedWriter)
	if !ok {
		return store
	}
	return sw.Writing(layout.Prefix(storePath))
}

// observe answers a query: listings of the owned folders, hashes of the single files, and
// whether the aggregate holds exactly the join of its parts.
func observe(ctx context.Context, store statestore.Store, q placement.Query) (placement.Observation, error) {
	obs := placement.Observation{Found: map[string]string{}}
	for _, prefix := range q.Prefixes {
		found, err := store.List(ctx, prefix)
		if err != nil {
			return obs, err
		}
		for p, sum := range found {
			obs.Found[p] = sum
		}
	}
	if len(q.Files) > 0 {
		found, err := store.Hashes(ctx, q.Files)
		if err != nil {
			return obs, err
		}
		for p, sum := range found {
			obs.Found[p] = sum
		}
	}
	if q.Aggregate != nil {
		fresh, parts, err := aggregateFresh(ctx, store, *q.Aggregate)
		if err != nil {
			return obs, err
		}
		obs.AggregateFresh = fresh
		for p, sum := range parts {
			obs.Found[p] = sum
		}
	}
	return obs, nil
}

// aggregateFresh reports whether an aggregate file holds the join of its parts (and is absent
// when there are none), and returns the parts' hashes. A file whose hash differs from the join's
// is read: the join's pieces in another order (as Kratix orders them, see layout.SameAggregate)
// are fresh too, as the writers leave such a file as it is.
func aggregateFresh(ctx context.Context, store statestore.Store, a layout.Aggregate) (bool, map[string]string, error) {
	parts, err := store.List(ctx, a.Dir)
	if err != nil {
		return false, nil, err
	}
	contents := map[string][]byte{}
	for _, p := range tfvalue.SortedKeys(parts) {
		c, err := store.Read(ctx, p)
		if statestore.IsNotFound(err) {
			delete(parts, p)
			continue
		}
		if err != nil {
			return false, nil, err
		}
		contents[p] = c
	}
	have, err := store.Hashes(ctx, []string{a.File})
	if err != nil {
		return false, nil, err
	}
	sum, exists := have[a.File]
	if len(contents) == 0 {
		return !exists, parts, nil
	}
	if !exists {
		return false, parts, nil
	}
	joined := layout.JoinAggregate(contents)
	if sum == memo.MD5(joined) {
		return true, parts, nil
	}
	current, err := store.Read(ctx, a.File)
	if statestore.IsNotFound(err) {
		return false, parts, nil
	}
	if err != nil {
		return false, nil, err
	}
	return layout.SameAggregate(current, joined), parts, nil
}

// rekey replaces the MD5s of what a refresh keeps by keyed hashes of the content, read back
// from the store (a bucket's objects are downloaded, a git tree is in memory): a record of
// write-only content never holds an MD5 (see placement.KeyedMark).
func rekey(ctx context.Context, store statestore.Store, q placement.Query, obs *placement.Observation, key []byte) error {
	paths := q.Kept(*obs)
	kept := map[string]string{}
	for _, p := range paths {
		kept[p] = obs.Found[p]
	}
	if err := rekeyFiles(ctx, store, kept, key); err != nil {
		return err
	}
	for _, p := range paths {
		if sum, ok := kept[p]; ok {
			obs.Found[p] = sum
		} else {
			delete(obs.Found, p) // gone since it was listed
		}
	}
	return nil
}

// rekeyFiles replaces, in found (store path => MD5), every MD5 by the keyed hash of the content
// the store holds there, and drops the files that are gone since they were listed.
func rekeyFiles(ctx context.Context, store statestore.Store, found map[string]string, key []byte) error {
	for _, p := range tfvalue.SortedKeys(found) {
		content, err := store.Read(ctx, p)
		if statestore.IsNotFound(err) {
			delete(found, p)
			continue
		}
		if err != nil {
			return err
		}
		found[p] = placement.Keyed(key, p, content)
	}
	return nil
}

// warnTakeOverAtPlan warns, while planning, about the files the plan would take over (the fresh
// files of its operations: see placement.Op) that already hold other content, written by Kratix
// or another workspace: the plan says it before the apply overwrites them (the apply says it
// again, from what its write found: warnTakeOver). One warning per store location, at the
// attribute that makes the first such file (attr).
//
// Only buckets are looked at, and only for files a resource does not hold yet, from the listing
// the process's writes use (statestore.SharedWriter): a plan lists a bucket's store path once for
// it, and in an apply's process the writes then use that listing, so the warning costs them no
// request. A repository is left to the apply's warning: reading it at plan is a fetch, and in an
// apply's process, where Terraform plans each resource again just before applying it, those
// fetches queue behind the pushes (50 promises on one repository, B5: 4.47 s against 3.97 s). A
// store that cannot be read now (offline, secrets not known yet, unreachable) is left to the
// apply too: its write finds what it replaces, and a store that is down fails there.
func (d *providerData) warnTakeOverAtPlan(ctx context.Context, who string, ops []placement.Op, refs storeRefs, attr func(string) tfpath.Path) diag.Diagnostics {
	var diags diag.Diagnostics
	if d == nil || d.isOffline() {
		return diags
	}
	for _, op := range ops {
		if len(op.Fresh) == 0 {
			continue
		}
		store, err := d.openRef(refs, op.Location.String(), op.Member.Store)
		if err != nil {
			tflog.Debug(ctx, "take-over check skipped", map[string]any{"who": who, "store": op.Member.Store, "error": err.Error()})
			continue
		}
		sw, ok := store.(statestore.SharedWriter)
		if !ok {
			continue // a repository: see above
		}
		found, err := sw.Writing(layout.Prefix(op.Member.Target.StorePath)).Hashes(ctx, tfvalue.SortedKeys(op.Fresh))
		if err != nil {
			tflog.Debug(ctx, "take-over check skipped", map[string]any{"who": who, "store": store.Describe(), "error": err.Error()})
			continue
		}
		var held []string
		for _, p := range tfvalue.SortedKeys(found) {
			if want, ok := op.Fresh[p]; ok && found[p] != want {
				held = append(held, p)
			}
		}
		if len(held) > 0 {
			diags.AddAttributeWarning(attr(held[0]), "Taking Over Existing File", takeOverText(who, held, store.Describe()))
		}
	}
	return diags
}

// takeOverText says which files a plan takes over in a store, naming the first few.
func takeOverText(who string, held []string, store string) string {
	const named = 3
	if len(held) == 1 {
		return fmt.Sprintf("%s will replace %s in %s, which holds different content (written by Kratix or another workspace?). "+
			"Applying this plan overwrites it; importing the resource instead records what is there.", who, held[0], store)
	}
	files := strings.Join(held[:min(len(held), named)], ", ")
	if len(held) > named {
		files += fmt.Sprintf(" and %d more", len(held)-named)
	}
	return fmt.Sprintf("%s will replace %d files in %s (%s), which hold different content (written by Kratix or another workspace?). "+
		"Applying this plan overwrites them; importing the resource instead records what is there.", who, len(held), store, files)
}

// warnUnseen warns about the files a write left in a folder it clears because the plan did not
// see them there (statestore.Result.Unseen): another writer added them after the plan was made,
// as when a saved plan is applied later. The apply deletes only what its plan showed; the next
// plan shows them, and the guard judges their removal.
func warnUnseen(store statestore.Store, who string, unseen []string, diags *diag.Diagnostics) {
	for _, p := range unseen {
		diags.AddWarning("File Not In The Plan Left",
			fmt.Sprintf("%s left %s in %s: the file is in a folder it owns, but the plan being applied did not show it "+
				"(another writer added it after the plan was made, as when a saved plan is applied later), so this apply did not delete it. "+
				"Run terraform plan to see it: the next plan deletes it from the folder, and a guard that protects the destination asks for an acknowledgement first. "+
				"Move the file out of the folder if it must stay.",
				who, p, store.Describe()))
	}
}

// warnTakeOver warns about the files a write replaced (see statestore.Result.Replaced) that the
// resource did not hold before (fresh): they held other content, written by Kratix or another
// workspace.
func warnTakeOver(store statestore.Store, who string, fresh map[string]string, replaced []string, diags *diag.Diagnostics) {
	for _, p := range replaced {
		if _, ok := fresh[p]; ok {
			diags.AddWarning("Taking Over Existing File",
				fmt.Sprintf("%s replaces %s in %s, which held different content (written by Kratix or another workspace?).",
					who, p, store.Describe()))
		}
	}
}

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
