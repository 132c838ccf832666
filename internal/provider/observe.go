package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/promise-platform/terraform-provider-kratix/internal/health"
	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/privstate"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schemautil"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/storeconfig"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// Health read back through a store: `observe` names a store location where an agent on each
// destination writes Kratix HealthRecords (one folder per destination, see package health), and
// `health` shows, per destination, what the newest record of this promise or request says.
//
// The records are read by refresh (Read), once per store location and process however many
// promises and requests observe it, and `health` is set there: a record that changes is a change
// outside Terraform, never a planned one, so health alone never makes `terraform plan
// -detailed-exitcode` return 2. A plan keeps what refresh found, except that a destination the
// apply writes cannot have a fresh record of what it is about to get: its `fresh` is false (and
// `applied` false on git). Freshness is judged against the time the provider last wrote each
// destination, kept in private state (privstate.WrittenAtKey).

type observeModel struct {
	StateStore types.Object         `tfsdk:"state_store"`
	MaxAge     timetypes.GoDuration `tfsdk:"max_age"`
}

// observeConfig is `observe`, converted: where the records are and how old they may be.
type observeConfig struct {
	ref    storeconfig.Ref
	root   string // the store's path, cleaned: records of destination D are under <root>/D/
	maxAge time.Duration
}

func (o observeConfig) folder() layout.Folder {
	return layout.Folder{Location: o.ref.Place().String(), Root: o.root}
}

var healthAttrTypes = map[string]attr.Type{
	"state": types.StringType, "last_run": types.StringType, "fresh": types.BoolType,
	"applied": types.BoolType, "source": types.StringType,
}

func observeSchema(what string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "Where an agent on each destination reports whether " + what + " runs: a state store " +
			"(the same bucket or repository as the destinations' at another path, or another one) holding Kratix " +
			"`HealthRecord` documents, those of destination `D` under `<path>/D/`. Every refresh reads them (one listing " +
			"per store location) into `health`; nothing is written there. The store's folder may not be, contain or " +
			"lie inside a destination's folder. See the guide \"Knowing it runs\".",
		Attributes: map[string]schema.Attribute{
			"state_store": schema.SingleNestedAttribute{
				Required: true, MarkdownDescription: "The store the records are in, usually a `kratix_state_store` " +
					"resource; its `path` is the folder that holds one folder per destination.",
				Attributes: storeconfig.RefAttributes(),
			},
			"max_age": schema.StringAttribute{
				Optional: true, CustomType: timetypes.GoDurationType{},
				MarkdownDescription: "A record older than this (a Go duration such as `\"15m\"`) is not fresh; unset, " +
					"only the time of the last write counts.",
				Validators: []validator.String{schemautil.NotNegative{}},
			},
		},
	}
}

func healthSchema(what string) schema.MapAttribute {
	return schema.MapAttribute{
		Computed:    true,
		ElementType: types.ObjectType{AttrTypes: healthAttrTypes},
		MarkdownDescription: "Per scheduled destination, what the newest `HealthRecord` of " + what + " in `observe` says, as " +
			"the last refresh read it; null without `observe`. `state` is the record's (`unknown`, `ready`, `unhealthy`, " +
			"`healthy`, `degraded`; `unknown` when there is no record), `last_run` its time (RFC 3339), `fresh` whether it " +
			"was made after the provider last wrote the destination and within `max_age`, `applied` (git only; null when " +
			"not known) whether the revision the record reports has the destination's folder as the repository holds it " +
			"now, and `source` the record's file. A change here is a change outside Terraform: it never plans a write.",
	}
}

// observeOf converts `observe`: nil without one; ok is false while any of it is unknown.
func observeOf(ctx context.Context, obj types.Object) (obs *observeConfig, ok bool, diags diag.Diagnostics) {
	if obj.IsNull() {
		return nil, true, nil
	}
	if obj.IsUnknown() {
		return nil, false, nil
	}
	var m observeModel
	if diags.Append(obj.As(ctx, &m, basetypes.ObjectAsOptions{})...); diags.HasError() || m.MaxAge.IsUnknown() {
		return nil, false, diags
	}
	ref, known := storeconfig.FromObject(m.StateStore)
	if !known {
		return nil, false, diags
	}
	obs = &observeConfig{ref: ref, root: placement.CleanStorePath(ref.Path.ValueString())}
	if !m.MaxAge.IsNull() {
		obs.maxAge, _ = m.MaxAge.ValueGoDuration() // validated by its type
	}
	return obs, true, diags
}

// checkObserveFolder refuses an observe folder that is, holds or lies inside a destination's
// folder of the pool: the records would be taken for stray files there, and a cleanup of the
// destination would remove them.
func checkObserveFolder(obs *observeConfig, pool []poolMember) diag.Diagnostics {
	var diags diag.Diagnostics
	if obs == nil {
		return diags
	}
	at := path.Root("observe").AtName("state_store").AtName("path")
	mine := obs.folder()
	for _, m := range pool {
		theirs := layout.Folder{Location: m.Location.String(), Root: m.Target.Root}
		if !layout.Overlaps(mine, theirs) {
			continue
		}
		diags.AddAttributeError(at, "Observe Folder Overlaps A Destination",
			fmt.Sprintf("%s: the health records are read from folder %q of %s, which overlaps destination %q's folder %q. "+
				"Records and deployed files must not share a folder (a destination's cleanup would remove the records, and "+
				"its drift read would take them for stray files): give the observe store another path, such as \"health\".",
				at, obs.root, mine.Location, m.Name, m.Target.Root))
		return diags
	}
	return diags
}

func readWrittenAt(ctx context.Context, p privstate.Reader) map[string]time.Time {
	out := map[string]time.Time{}
	var b []byte
	var d diag.Diagnostics
	if p != nil {
		b, d = p.GetKey(ctx, privstate.WrittenAtKey)
	}
	if d.HasError() || len(b) == 0 {
		return out
	}
	var raw map[string]string
	if json.Unmarshal(b, &raw) != nil {
		return out
	}
	for dest, s := range raw {
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			out[dest] = t
		}
	}
	return out
}

// writeWrittenAt records the write times of the destinations held (dests), now for those written
// (wrote), else as before; without observe it drops the key.
func writeWrittenAt(ctx context.Context, p privstate.Writer, observing bool, before map[string]time.Time, dests []string, wrote map[string]bool, now time.Time) diag.Diagnostics {
	if p == nil {
		return nil
	}
	if !observing {
		if len(before) == 0 {
			return nil
		}
		return p.SetKey(ctx, privstate.WrittenAtKey, nil)
	}
	raw := map[string]string{}
	for _, dest := range dests {
		switch t, ok := before[dest]; {
		case wrote[dest]:
			raw[dest] = now.UTC().Format(time.RFC3339)
		case ok:
			raw[dest] = t.UTC().Format(time.RFC3339)
		}
	}
	if len(raw) == 0 {
		return p.SetKey(ctx, privstate.WrittenAtKey, nil)
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil // a map of strings always encodes
	}
	return p.SetKey(ctx, privstate.WrittenAtKey, b)
}

// rewritten says which destinations a plan changes the files of: held with other files, in
// another folder, or new (keys of before and after may name a workload group, "dest#group").
// Destinations with an operation at a failed location (nil: none failed) are left out: they keep
// what they held.
func rewritten(before, after map[string]placement.Record, ops []placement.Op, failed map[string]bool) map[string]bool {
	broken := map[string]bool{}
	for _, op := range ops {
		if failed[op.Location.String()] {
			for _, dest := range op.Destinations {
				broken[dest] = true
			}
		}
	}
	out := map[string]bool{}
	for key, rec := range after {
		dest, _, _ := strings.Cut(key, "#")
		if broken[dest] {
			continue
		}
		b, held := before[key]
		if !held || b.Location != rec.Location || b.Root != rec.Root || !maps.Equal(b.Files, rec.Files) {
			out[dest] = true
		}
	}
	return out
}

// healthRecords reads every record in an observe folder, by destination: one listing of the
// folder and one read per record file, shared by every promise and request of the process that
// observes the same folder. A file that is not a valid record is an error naming it.
func (d *providerData) healthRecords(ctx context.Context, obs observeConfig) (map[string][]health.Record, error) {
	snap := d.healthReads.get(obs.ref.Place().String() + "|" + obs.root)
	snap.once.Do(func() {
		store, err := d.open(obs.ref, false)
		if err != nil {
			snap.err = err
			return
		}
		prefix := layout.Prefix(obs.root)
		// Through the shared listing of the store's path: the observe store resource's own read
		// of it in the same plan, and every promise and request observing it, list it once.
		files, err := sharedView(store, obs.root).ReadUnder(ctx, prefix, func(p string) bool {
			_, ok := health.DestinationOf(obs.root, p)
			return ok
		})
		if err != nil {
			snap.err = err
			return
		}
		snap.records = map[string][]health.Record{}
		var problems []error
		for _, p := range tfvalue.SortedKeys(files) {
			dest, _ := health.DestinationOf(obs.root, p)
			recs, err := health.Parse(p, files[p])
			if err != nil {
				problems = append(problems, err)
				continue
			}
			snap.records[dest] = append(snap.records[dest], recs...)
		}
		snap.err = errors.Join(problems...)
	})
	return snap.records, snap.err
}

// readHealth reads the health of each target for subject: targets are the destinations, each
// with its pool member when known (on git, its folder is what the record's revision is compared
// at). ok is false when the records could
// not be read (a warning says why; health stays as state has it).
func (d *providerData) readHealth(ctx context.Context, who string, obs observeConfig, subject health.Subject, targets map[string]*poolMember, written map[string]time.Time, diags *diag.Diagnostics) (map[string]health.View, bool) {
	byDest, err := d.healthRecords(ctx, obs)
	if errors.Is(err, storeconfig.ErrSecretsUnknown) {
		// The store's credentials are known only after apply (a rotated password, say): as drift
		// reads do, state stands, and the next refresh reads the records.
		return nil, false
	}
	if err != nil && byDest == nil {
		diags.AddAttributeWarning(path.Root("observe"), "Health Not Read",
			fmt.Sprintf("%s: the health records in folder %q of %s could not be read, so `health` keeps what the last refresh found: %v",
				who, obs.root, obs.ref.Place().String(), err))
		return nil, false
	}
	if err != nil {
		diags.AddAttributeWarning(path.Root("observe"), "Health Records Not Understood",
			fmt.Sprintf("%s: some files in folder %q of %s are not valid HealthRecords and were left out: %v", who, obs.root, obs.ref.Place().String(), err))
	}
	now := d.clock()
	latest := make(map[string]health.Record, len(targets))
	for _, dest := range tfvalue.SortedKeys(targets) {
		if rec, found := health.Latest(byDest[dest], subject); found {
			latest[dest] = rec
		}
	}
	trees := d.sameFolders(ctx, targets, latest)
	out := make(map[string]health.View, len(targets))
	for _, dest := range tfvalue.SortedKeys(targets) {
		rec, found := latest[dest]
		in := health.ObserveInput{Record: rec, Found: found, Written: written[dest], MaxAge: obs.maxAge, Now: now}
		if answers, onGit := trees[dest]; onGit {
			in.SameTree = func(sha string) health.Tri { return answers[sha] }
		}
		out[dest] = health.Observe(in)
	}
	return out, true
}

// sameFolders asks, for each destination on git whose record reports a revision, whether that
// revision holds the destination's folder as the repository's tip does: one question per
// repository and revision, for all the folders that report it. The answers are by destination,
// then revision; a destination on a bucket has none.
func (d *providerData) sameFolders(ctx context.Context, targets map[string]*poolMember, latest map[string]health.Record) map[string]map[string]health.Tri {
	type question struct {
		store    statestore.FolderRevisions
		revision string
		folders  []string
		dests    []string
	}
	questions := map[string]*question{}
	var order []string
	out := map[string]map[string]health.Tri{}
	for _, dest := range tfvalue.SortedKeys(latest) {
		rec, m := latest[dest], targets[dest]
		if rec.Revision == "" || m == nil || m.Location.Kind != placement.KindGit {
			continue
		}
		store, err := d.open(m.Store, false)
		if err != nil {
			continue
		}
		fr, ok := store.(statestore.FolderRevisions)
		if !ok {
			continue
		}
		out[dest] = map[string]health.Tri{}
		key := m.Location.String() + "|" + rec.Revision
		q, asked := questions[key]
		if !asked {
			q = &question{store: fr, revision: rec.Revision}
			questions[key] = q
			order = append(order, key)
		}
		q.folders = append(q.folders, layout.Prefix(m.Target.Root))
		q.dests = append(q.dests, dest)
	}
	for _, key := range order {
		q := questions[key]
		same, known, err := q.store.SameFolders(ctx, q.revision, q.folders)
		for i, dest := range q.dests {
			switch {
			case err != nil || !known:
				out[dest][q.revision] = health.Unknown
			case same[q.folders[i]]:
				out[dest][q.revision] = health.Yes
			default:
				out[dest][q.revision] = health.No
			}
		}
	}
	return out
}

// healthValue is `health` for views.
func healthValue(views map[string]health.View) types.Map {
	elems := make(map[string]attr.Value, len(views))
	for dest, v := range views {
		elems[dest] = healthObject(v)
	}
	return types.MapValueMust(types.ObjectType{AttrTypes: healthAttrTypes}, elems)
}

func healthObject(v health.View) types.Object {
	lastRun, source := types.StringNull(), types.StringNull()
	if !v.LastRun.IsZero() {
		lastRun = types.StringValue(v.LastRun.UTC().Format(time.RFC3339))
	}
	if v.Source != "" {
		source = types.StringValue(v.Source)
	}
	applied := types.BoolNull()
	switch v.Applied {
	case health.Yes:
		applied = types.BoolValue(true)
	case health.No:
		applied = types.BoolValue(false)
	}
	return types.ObjectValueMust(healthAttrTypes, map[string]attr.Value{
		"state": types.StringValue(v.State), "last_run": lastRun, "fresh": types.BoolValue(v.Fresh),
		"applied": applied, "source": source,
	})
}

type healthModel struct {
	State   types.String `tfsdk:"state"`
	LastRun types.String `tfsdk:"last_run"`
	Fresh   types.Bool   `tfsdk:"fresh"`
	Applied types.Bool   `tfsdk:"applied"`
	Source  types.String `tfsdk:"source"`
}

// healthFromModel reads `health` back; empty when null or unknown.
func healthFromModel(ctx context.Context, m types.Map) map[string]health.View {
	out := map[string]health.View{}
	if m.IsNull() || m.IsUnknown() {
		return out
	}
	var models map[string]healthModel
	if m.ElementsAs(ctx, &models, false).HasError() {
		return out
	}
	for dest, hm := range models {
		v := health.View{State: hm.State.ValueString(), Fresh: hm.Fresh.ValueBool(), Source: hm.Source.ValueString(), Found: !hm.Source.IsNull()}
		if t, err := time.Parse(time.RFC3339, hm.LastRun.ValueString()); err == nil {
			v.LastRun = t
		}
		switch {
		case hm.Applied.IsNull() || hm.Applied.IsUnknown():
		case hm.Applied.ValueBool():
			v.Applied = health.Yes
		default:
			v.Applied = health.No
		}
		out[dest] = v
	}
	return out
}

// healthPlan checks `observe` against the pool (checkObserveFolder) and returns `health` as a
// plan shows it: what state has for each destination held after the apply (none: no record yet),
// with the destinations the apply writes not fresh, and not applied on git; null without observe,
// unknown while observe is. held and written are asked only with observe, so that the plans of
// objects without it pay nothing; a plan that writes nothing and keeps the same destinations
// keeps state's value as it is.
func healthPlan(ctx context.Context, observe types.Object, pool []poolMember, prior types.Map, held func() []string, written func() map[string]bool) (types.Map, diag.Diagnostics) {
	healthType := types.ObjectType{AttrTypes: healthAttrTypes}
	obs, known, diags := observeOf(ctx, observe)
	if !known || diags.HasError() {
		return types.MapUnknown(healthType), diags
	}
	if obs == nil {
		return types.MapNull(healthType), diags
	}
	if diags.Append(checkObserveFolder(obs, pool)...); diags.HasError() {
		return types.MapUnknown(healthType), diags
	}
	dests, wrote := held(), written()
	if len(wrote) == 0 && sameKeys(prior, dests) {
		return prior, diags
	}
	onGit := map[string]bool{}
	for _, m := range pool {
		onGit[m.Name] = m.Location.Kind == placement.KindGit
	}
	before := healthFromModel(ctx, prior)
	out := make(map[string]health.View, len(dests))
	for _, dest := range dests {
		v, ok := before[dest]
		if !ok {
			v = health.View{State: health.StateUnknown}
		}
		if wrote[dest] {
			v.Fresh = false
			if onGit[dest] && v.Found {
				v.Applied = health.No
			}
		}
		out[dest] = v
	}
	return healthValue(out), diags
}

// sameKeys reports whether a known map has exactly the keys given.
func sameKeys(m types.Map, keys []string) bool {
	if m.IsNull() || m.IsUnknown() || len(m.Elements()) != len(keys) {
		return false
	}
	elems := m.Elements()
	for _, k := range keys {
		if _, ok := elems[k]; !ok {
			return false
		}
	}
	return true
}
