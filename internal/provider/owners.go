package provider

// One file, one owner (see placement/owners.go): the plan of a request or a promise refuses a
// store path another owner claims, whether that owner is planned in this provider process or only
// known from the index files of mode none in the destination's folder; a write never deletes a
// file another placement's index lists.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	tfpath "github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/memo"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/storeconfig"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// claim records an owner's planned records and returns the paths another owner claims already.
func (d *providerData) claim(o placement.Owner, records map[string]placement.Record) []placement.Collision {
	d.owners.mu.Lock()
	defer d.owners.mu.Unlock()
	return d.owners.claims.Claim(o, records)
}

// refuseCollisions adds one error per path another owner claims, at the attribute that makes
// the path (attr).
func refuseCollisions(o placement.Owner, dest func(placement.Collision) string, collisions []placement.Collision, attr func(string) tfpath.Path, diags *diag.Diagnostics) {
	for _, c := range collisions {
		diags.Append(fileClaimed(attr(c.Path), o, dest(c), c))
	}
}

// checkOwners refuses what an owner's plan (records, per destination, or per
// "<destination>#<group>" for a request's workload group) would write where another
// owner writes: in this plan (the process's claims), or, for a path it did not hold before
// (prior, per destination), where an index file of another placement lists it in the folder of
// a destination in mode none (another workspace, another state, Kratix). A path the owner held
// already is its own: asking again on every plan would read every index file of every folder.
func (d *providerData) checkOwners(ctx context.Context, o placement.Owner, kind string, records map[string]placement.Record, prior map[string]placement.Record, pool []poolMember, attr func(string) tfpath.Path) diag.Diagnostics {
	var diags diag.Diagnostics
	if d == nil {
		return diags
	}
	destOf := map[string]string{}
	for key, r := range records {
		for p := range r.Files {
			destOf[r.Location+"|"+p] = destinationOf(key)
		}
	}
	named := func(c placement.Collision) string { return destOf[c.Location+"|"+c.Path] }
	refuseCollisions(o, named, d.claim(o, records), attr, &diags)
	byName := map[string]poolMember{}
	for _, m := range pool {
		byName[m.Name] = m
	}
	diags.Append(d.refuseHeldFolders(o, records, byName, attr)...)
	if diags.HasError() || d.isOffline() {
		return diags
	}
	for _, key := range tfvalue.SortedKeys(records) {
		dest := destinationOf(key) // a request's workload group is keyed <destination>#<group>
		m, ok := byName[dest]
		r := records[key]
		if !ok || m.Target.Mode != layout.ModeNone || m.Location.String() != r.Location {
			continue
		}
		var fresh, mine []string
		for _, p := range tfvalue.SortedKeys(r.Files) {
			if placement.IsIndexFile(p) {
				mine = append(mine, p)
				continue
			}
			if before, held := prior[key]; !held || before.Location != r.Location || !hasKey(before.Files, p) {
				fresh = append(fresh, p)
			}
		}
		if len(fresh) == 0 {
			continue
		}
		indexes, err := d.indexesAt(ctx, m, layout.Prefix(m.Target.Root, layout.IndexDir), true)
		if errors.Is(err, storeconfig.ErrSecretsUnknown) || errors.Is(err, errOffline) {
			continue // the store cannot be read in this plan; the apply's writes spare what others list
		}
		if err != nil {
			addStoreError(&diags, "Cannot Read "+kind, fmt.Sprintf("%s: reading the index files of destination %q failed", capitalised(o), dest), err)
			return diags
		}
		listed := placement.ListedBy(indexes, placement.OwnIndex(mine), fresh)
		for _, p := range tfvalue.SortedKeys(listed) {
			other, _ := placement.IndexOwner(listed[p])
			if other == o {
				continue // another placement of the same owner: a request's workload group, or its default group
			}
			c := placement.Collision{Location: r.Location, Path: p, Other: other, Index: listed[p]}
			diags.Append(fileClaimed(attr(p), o, dest, c))
		}
	}
	return diags
}

// refuseHeldFolders refuses a file that a placement on a destination holding others (mode none
// at a store's root, layout.Holds) would write inside the folder of another destination this
// plan sees (layout.Claims.HeldFolder): that one would take it for its own, as a stray file
// to prune, drift to repair or a file to clean up, and the two would undo each other's writes.
func (d *providerData) refuseHeldFolders(o placement.Owner, records map[string]placement.Record, byName map[string]poolMember, attr func(string) tfpath.Path) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, key := range tfvalue.SortedKeys(records) {
		dest := destinationOf(key)
		m, ok := byName[dest]
		r := records[key]
		if !ok || !layout.HoldsOthers(m.Target.Mode) || m.Location.String() != r.Location {
			continue
		}
		for _, p := range tfvalue.SortedKeys(r.Files) {
			other, inside := d.folders.HeldFolder(destinationFolder(m), p)
			if !inside {
				continue
			}
			diags.AddAttributeError(attr(p), "File Inside Another Destination's Folder",
				fmt.Sprintf("%s would write %q on destination %q (filepath_mode %s, folder %q of %s), inside the folder %q of "+
					"destination %q (%s). A destination may hold others' folders only while it writes nothing into them: "+
					"that destination would take the file for its own (a stray file to prune, drift to repair, a file its "+
					"cleanup removes). Give the file a path outside %q, or place it on destination %q.",
					capitalised(o), p, dest, m.Target.Mode, m.Target.Root, m.Location, other.Folder.Root, other.Destination,
					other.Folder.Mode, other.Folder.Root+"/", other.Destination))
		}
	}
	return diags
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

func capitalised(o placement.Owner) string {
	s := string(o)
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// indexesAt reads every index file in a `.kratix/` folder of a member's store: index file =>
// the store paths it lists. A plan reads through the listing shared by the process (shared);
// a write lists at the moment it writes. A file that is not an index file lists nothing.
func (d *providerData) indexesAt(ctx context.Context, m poolMember, dir string, shared bool) (map[string][]string, error) {
	store, err := d.open(m.Store, false)
	if err != nil {
		return nil, err
	}
	return readIndexesFrom(ctx, store, m.Target.StorePath, dir, shared, d.indexCache(m.Location.String()))
}

// indexCache remembers, for one location, what the index files read at plan list.
func (d *providerData) indexCache(location string) indexCache {
	return func(p, sum string, read func() ([]string, bool, error)) ([]string, bool, error) {
		key := location + "|" + p + "|" + sum
		d.owners.mu.Lock()
		files, ok := d.owners.indexes[key]
		d.owners.mu.Unlock()
		if ok {
			return files, true, nil
		}
		files, found, err := read()
		if err == nil && found {
			d.owners.mu.Lock()
			if d.owners.indexes == nil {
				d.owners.indexes = map[string][]string{}
			}
			d.owners.indexes[key] = files
			d.owners.mu.Unlock()
		}
		return files, found, err
	}
}

// indexCache answers what the index file p with MD5 sum lists, reading it when it must; found
// is false when it is gone or is not an index file.
type indexCache func(p, sum string, read func() ([]string, bool, error)) ([]string, bool, error)

func readIndexesFrom(ctx context.Context, store statestore.Store, storePath, dir string, shared bool, cache indexCache) (map[string][]string, error) {
	view := store
	if shared {
		view = sharedView(store, storePath)
	}
	listing, err := view.List(ctx, dir)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, p := range tfvalue.SortedKeys(listing) {
		if !placement.IsIndexFile(p) || path.Dir(p)+"/" != dir {
			continue
		}
		read := func() ([]string, bool, error) {
			content, err := view.Read(ctx, p)
			if statestore.IsNotFound(err) {
				return nil, false, nil
			}
			if err != nil {
				return nil, false, err
			}
			if idx, err := layout.ParseIndex(content); err == nil {
				return layout.IndexedFiles(storePath, idx), true, nil
			}
			return nil, false, nil // not an index file: it lists nothing
		}
		if cache == nil {
			cache = func(_, _ string, read func() ([]string, bool, error)) ([]string, bool, error) { return read() }
		}
		files, found, err := cache(p, listing[p], read)
		if err != nil {
			return nil, err
		}
		if found {
			out[p] = files
		}
	}
	return out, nil
}

// spareListed takes out of a change the deletes of files another placement's index lists,
// read from the store as it is now, and warns about each: the file stays with its other owner.
// storePath is the store's path the index files are relative to.
func spareListed(ctx context.Context, store statestore.Store, storePath, who string, c placement.Change, diags *diag.Diagnostics) (placement.Change, error) {
	deletesFiles := false
	for _, p := range c.Delete {
		if !strings.HasSuffix(p, "/") && !placement.IsIndexFile(p) {
			deletesFiles = true
		}
	}
	dirs := placement.IndexDirs(c)
	if !deletesFiles || len(dirs) == 0 {
		return c, nil
	}
	indexes := map[string][]string{}
	for _, dir := range dirs {
		found, err := readIndexesFrom(ctx, store, storePath, dir, false, nil)
		if err != nil {
			return c, err
		}
		for p, files := range found {
			indexes[p] = files
		}
	}
	out, spared := placement.KeepListed(c, indexes)
	for _, s := range spared {
		other := "another placement"
		if o, ok := placement.IndexOwner(s.Index); ok {
			other = string(o)
		}
		diags.AddWarning("File Kept For Another Owner", fmt.Sprintf(
			"%s no longer writes %q (%s), but index file %q of %s lists it, so it stays: one file has one "+
				"owner, and deleting it would take it from the other. Remove it by hand if nothing uses it.",
			who, s.Path, store.Describe(), s.Index, other))
	}
	return out, nil
}

// owner is the request as an owner of files.
func (m requestModel) owner() placement.Owner {
	return placement.RequestOwner(m.Namespace.ValueString(), m.promiseName(), m.Name.ValueString())
}

// priorRecords is what state says the request held, by destination.
func (m requestModel) priorRecords(ctx context.Context) map[string]placement.Record {
	out := map[string]placement.Record{}
	for dest, pr := range m.allPriors(ctx) {
		out[dest] = pr.Record
	}
	return out
}

// fileAttr is the attribute that makes a store path of the request's: documents (or
// documents_wo) for `<name>.yaml`, the key of files (or files_wo) that names it, name otherwise
// (an index file is named after the request).
func (m requestModel) fileAttr(ctx context.Context, records map[string]placement.Record) func(string) tfpath.Path {
	return func(p string) tfpath.Path {
		for _, r := range records {
			rel, ok := strings.CutPrefix(p, layout.Prefix(r.Root))
			if !ok {
				continue
			}
			for attr, files := range map[string]map[string]string{"files": tfvalue.StringMap(ctx, m.Files), "files_wo": tfvalue.StringMap(ctx, m.FilesWO)} {
				for key := range files {
					if clean, err := layout.NormaliseFileKey(key); err == nil && clean == rel {
						return tfpath.Root(attr).AtMapKey(key)
					}
				}
			}
			if rel == m.Name.ValueString()+".yaml" {
				if !m.DocumentsWO.IsNull() {
					return tfpath.Root("documents_wo")
				}
				return tfpath.Root("documents")
			}
		}
		return tfpath.Root("name")
	}
}

// priorRecordsOf is what a promise held before, by destination.
func priorRecordsOf(prior map[string]placement.Prior) map[string]placement.Record {
	out := make(map[string]placement.Record, len(prior))
	for dest, p := range prior {
		out[dest] = p.Record
	}
	return out
}

// dependenciesAttr: every file a promise writes comes from its dependencies.
func dependenciesAttr(string) tfpath.Path { return tfpath.Root("dependencies") }

// destinationOf is the destination of a key of allRecords.
func destinationOf(key string) string {
	dest, _, _ := strings.Cut(key, "#")
	return dest
}

// Owner records at write time (placement/stakes.go says what they are). Before a write, the
// writer reads the owner record of the object at each location it writes to (one read per record)
// and settles the entries its change holds or gives up (placement.Settle): the record is
// rewritten guarded on what was read, so that of two workspaces racing for one placement exactly
// one writes, and shards of one promise take turns; an entry another owner holds refuses the whole
// write; a placement another instance holds now (a create_before_destroy successor, whichever
// process wrote it) keeps its files. The plan makes the same judgement from the process's shared
// listing (checkStakes), so a refusal shows at plan unless the other owner came in between.

// stakeRefused is a write refused because another owner holds a placement it would write.
type stakeRefused struct {
	placement.Refusal
}

func (e *stakeRefused) Error() string {
	return fmt.Sprintf("owner record %s says %s holds folder %q", e.Stake.File, e.There, e.Stake.Root)
}

// resolveStakes turns the owner records of a change into puts, deletes and guards, settled
// against what the store holds now; it returns a *stakeRefused when another owner holds one.
func resolveStakes(ctx context.Context, store statestore.Store, who string, c placement.Change, diags *diag.Diagnostics) (placement.Change, error) {
	if len(c.Stakes) == 0 {
		return c, nil
	}
	byFile := map[string][]placement.Stake{}
	for _, key := range tfvalue.SortedKeys(c.Stakes) {
		st := c.Stakes[key]
		byFile[st.File] = append(byFile[st.File], st)
	}
	out := c
	out.Stakes = nil
	out.Put = maps.Clone(c.Put)
	if out.Put == nil {
		out.Put = map[string][]byte{}
	}
	out.Guards = maps.Clone(c.Guards)
	if out.Guards == nil {
		out.Guards = map[string]string{}
	}
	for _, file := range tfvalue.SortedKeys(byFile) {
		current, err := store.Read(ctx, file) // one read per object and store location
		if statestore.IsNotFound(err) {
			current, err = nil, nil
		}
		if err != nil {
			return c, err
		}
		settled, err := placement.Settle(current, byFile[file])
		if err != nil {
			return c, fmt.Errorf("%s: %w; move it aside if nothing else reads it, and apply again", file, err)
		}
		if len(settled.Refused) > 0 {
			return c, &stakeRefused{settled.Refused[0]}
		}
		for _, sp := range settled.Spared {
			out = out.WithoutCovered(sp.There.Covering(sp.Stake))
			if !sp.There.Lineage(sp.Stake.Holder) {
				diags.AddWarning("Files Kept For Another Owner", fmt.Sprintf(
					"%s no longer holds folder %q, but owner record %s says %s holds it now, so what it wrote there "+
						"stays: one placement has one owner, and removing it would take it from the other.",
					who, sp.Stake.Root, file, sp.There))
			}
		}
		if !settled.Changed {
			continue
		}
		out.Guards[file] = ""
		if current != nil {
			out.Guards[file] = memo.MD5(current)
		}
		if settled.Content == nil {
			out.Delete = append(out.Delete, file)
		} else {
			out.Put[file] = settled.Content
		}
	}
	return out, nil
}

// applyWithStakes resolves a change's owner records and makes it; a change that lost a race for
// an owner record (statestore.ErrGuard: another workspace wrote it in between) is settled again
// on what the store holds now, a few times.
func applyWithStakes(ctx context.Context, store statestore.Store, storePath, who string, c placement.Change, diags *diag.Diagnostics) (statestore.Result, error) {
	const attempts = 8
	for attempt := 1; ; attempt++ {
		resolved, err := resolveStakes(ctx, store, who, c, diags)
		if err != nil {
			return statestore.Result{}, err
		}
		res, err := writingView(store, storePath).Apply(ctx, resolved)
		if !errors.Is(err, statestore.ErrGuard) || attempt == attempts || ctx.Err() != nil {
			return res, err
		}
	}
}

// refusedWrite is the error of a write refused by an owner record: at apply, when the other
// owner took the placement after this plan was made (a race of two first applies), or at plan.
func refusedWrite(at tfpath.Path, who string, r *stakeRefused, store string) diag.Diagnostic {
	detail := fmt.Sprintf("%s would write in folder %q of %s, but %s holds that placement (owner record %s). "+
		"One placement has one owner, across workspaces: nothing was written there.\n\n"+
		"If the other owner should keep it, remove it from this configuration, or place it on other destinations. "+
		"To take it over on purpose, have the other owner drop it from its state (terraform state rm), then import "+
		"it here (terraform import), which makes this workspace its owner. This workspace writes as %s.",
		who, r.Stake.Root, store, r.There, r.Stake.File, ownerNamed(r.Stake.Holder.Owner))
	if at.Equal(tfpath.Empty()) {
		return diag.NewErrorDiagnostic("Placement Held By Another Owner", detail)
	}
	return diag.NewAttributeErrorDiagnostic(at, "Placement Held By Another Owner", detail)
}

// ownerNamed spells the owner this workspace writes as: owner "fleet", or the unnamed owner.
func ownerNamed(owner string) string {
	if owner == "" {
		return "the unnamed owner (set owner in the provider block to name it)"
	}
	return fmt.Sprintf("owner %q", owner)
}

// checkStakes refuses, at plan, the placements an owner's plan would take that another owner
// holds: for each placement new to its folder (not held there before), the entry of its folder
// in the object's owner record, found through the listing the process shares and read once per
// content. takeOver: an import's first apply, which takes over on purpose.
func (d *providerData) checkStakes(ctx context.Context, who string, ops []placement.Op, pool []poolMember, takeOver bool, attr tfpath.Path) diag.Diagnostics {
	var diags diag.Diagnostics
	if d == nil || d.isOffline() || takeOver {
		return diags
	}
	for _, op := range ops {
		var fresh []placement.Stake
		for _, key := range tfvalue.SortedKeys(op.Change.Stakes) {
			if st := op.Change.Stakes[key]; !st.Release && freshUnder(op.Fresh, st.Root) {
				st.Holder.Owner = d.owner
				fresh = append(fresh, st)
			}
		}
		if len(fresh) == 0 {
			continue // asked only for a placement new to its folder: one held already is ours
		}
		i := slices.IndexFunc(pool, func(m poolMember) bool { return m.Location.String() == op.Location.String() })
		if i < 0 {
			continue
		}
		store, err := d.open(pool[i].Store, false)
		if err != nil {
			continue // the plan's credential checks report it
		}
		read := map[string][]byte{}
		for _, st := range fresh {
			content, ok := read[st.File]
			if !ok {
				// One read per object and store location; none at all is there yet on a first
				// apply, which then costs a GET that finds nothing, where a listing of the
				// registry would cost a LIST.
				if content, err = store.Read(ctx, st.File); err != nil {
					read[st.File] = nil
					continue // absent, or unreadable now: the apply judges again
				}
				read[st.File] = content
			}
			if content == nil {
				continue
			}
			settled, err := placement.Settle(content, []placement.Stake{st})
			if err != nil {
				continue // the apply says what is wrong with it
			}
			for _, r := range settled.Refused {
				diags.Append(refusedWrite(attr, who, &stakeRefused{r}, store.Describe()))
			}
		}
	}
	return diags
}

// freshUnder reports whether an operation takes over a file in the folder root.
func freshUnder(fresh map[string]string, root string) bool {
	prefix := layout.Prefix(root)
	for p := range fresh {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// owned names the instance of an object as the holder of its operations' owner records.
func (d *providerData) owned(ops []placement.Op, instance string, takeOver bool) []placement.Op {
	if d == nil {
		return ops
	}
	return placement.As(ops, d.owner, instance, takeOver)
}

// spareForeign takes out of a destination's cleanup (cleanup = "all") what other owners'
// placements hold in its folder, as their owner records say: a cleanup removes what this
// workspace put there and Kratix's layout, never another workspace's files or its part of a
// shared aggregate.
func (d *providerData) spareForeign(ctx context.Context, store statestore.Store, m poolMember, who string, c placement.Change, diags *diag.Diagnostics) (placement.Change, error) {
	listed, err := store.List(ctx, placement.StakesPrefix(m.Target.StorePath))
	if err != nil && !statestore.IsNotFound(err) {
		return c, err
	}
	var foreign []placement.Stake
	var holders []string
	for _, p := range tfvalue.SortedKeys(listed) {
		content, err := store.Read(ctx, p)
		if statestore.IsNotFound(err) {
			continue
		}
		if err != nil {
			return c, err
		}
		object, entries, err := placement.ParseOwners(content)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.Root == m.Target.Root && (d == nil || e.Owner != d.owner) {
				foreign = append(foreign, e.Stake(p, object))
				holders = append(holders, e.Holder(object).String())
			}
		}
	}
	if len(foreign) == 0 {
		return c, nil
	}
	under := map[string][]string{}
	for _, del := range c.Delete {
		if strings.HasSuffix(del, "/") {
			files, err := store.List(ctx, del)
			if err != nil && !statestore.IsNotFound(err) {
				return c, err
			}
			under[del] = tfvalue.SortedKeys(files)
		}
	}
	var agg *layout.Aggregate
	if m.Target.Mode == layout.ModeAggregatedYAML {
		a := layout.AggregateOf(m.Target)
		agg = &a
	}
	diags.AddWarning("Files Kept For Another Owner", fmt.Sprintf("%s's cleanup leaves what other owners hold in its "+
		"folder %q: %s. Their workspaces remove them when they no longer place them here.", who, m.Target.Root, strings.Join(holders, "; ")))
	return placement.SpareForeign(c, foreign, under, agg), nil
}
