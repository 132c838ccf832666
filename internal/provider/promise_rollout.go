package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
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
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/rolloutattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schedattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schemautil"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/rollout"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// A promise's rollout: the configuration (`rollout`), what it decided (`revisions`,
// `rollout_status`), and the dependencies of the revision that last went everywhere, which
// destinations joining during a rollout get. Those are kept in private state while a rollout is
// in flight: they are not the promise's configuration, and would fill every plan.

type rolloutModel struct {
	Waves   types.List           `tfsdk:"waves"` // of waveModel
	MinWait timetypes.GoDuration `tfsdk:"min_wait"`
	Paused  types.Bool           `tfsdk:"paused"`
	Gate    types.Object         `tfsdk:"gate"`    // rolloutattr's gateModel
	Windows types.List           `tfsdk:"windows"` // of rolloutattr's windowModel
	Revert  types.String         `tfsdk:"revert"`
}

type waveModel struct {
	Name                 types.String `tfsdk:"name"`
	DestinationSelectors types.List   `tfsdk:"destination_selectors"`
	MaxDestinations      types.Int64  `tfsdk:"max_destinations"`
	MaxPercent           types.Int64  `tfsdk:"max_percent"`
}

type rolloutStatusModel struct {
	Revision          types.String      `tfsdk:"revision"`
	CompletedRevision types.String      `tfsdk:"completed_revision"`
	WavesDone         types.Int64       `tfsdk:"waves_done"`
	NextWave          types.String      `tfsdk:"next_wave"`
	NextWaveNotBefore timetypes.RFC3339 `tfsdk:"next_wave_not_before"`
	Waiting           types.List        `tfsdk:"waiting"`
	Waves             types.Map         `tfsdk:"waves"`
	LastWaveAt        timetypes.RFC3339 `tfsdk:"last_wave_at"`
	CheckedAt         timetypes.RFC3339 `tfsdk:"checked_at"`
	Failed            types.String      `tfsdk:"failed_revision"`
}

var rolloutStatusAttrTypes = map[string]attr.Type{
	"revision": types.StringType, "completed_revision": types.StringType, "waves_done": types.Int64Type,
	"next_wave": types.StringType, "next_wave_not_before": timetypes.RFC3339Type{},
	"waiting": types.ListType{ElemType: types.StringType}, "waves": types.MapType{ElemType: types.StringType},
	"last_wave_at": timetypes.RFC3339Type{}, "checked_at": timetypes.RFC3339Type{},
	"failed_revision": types.StringType,
}

// rolloutBase is the revision that last completed and its canonical YAML.
type rolloutBase struct {
	Revision     string `json:"revision"`
	Dependencies string `json:"dependencies"`
}

func rolloutSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "Stages a change of `dependencies` over the scheduled destinations in ordered waves, one " +
			"wave per apply. Destinations waiting for their wave keep exactly what they hold; `revisions` says which " +
			"revision each one holds and `rollout_status` which wave comes next. A destination that joins during a " +
			"rollout gets the revision that last completed; a destination that stops matching is handled at once " +
			"(removals are not staged); a further change during a rollout starts again from the first wave. The " +
			"first apply of a new promise writes everywhere at once, unless its folders hold it mid-rollout (a promise replaced, " +
			"by `-replace` or a taint); an imported or replaced promise goes on where the stores say its " +
			"rollout stands (see Import). See the guide \"Rolling out a change safely\".",
		Attributes: map[string]schema.Attribute{
			"waves": schema.ListNestedAttribute{
				Required: true,
				MarkdownDescription: "The waves, in order. Wave by wave, each takes the scheduled destinations its selectors " +
					"match that no earlier wave took (in name order, up to its cap); the last wave also takes every " +
					"destination no wave took. A wave that takes no destination is passed over (the next wave goes in the " +
					"same apply), and every plan warns of it (\"Empty Rollout Wave\").",
				Validators: []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{Required: true, MarkdownDescription: "The wave's name, shown in plans and in `rollout_status`."},
					"destination_selectors": schedattr.PlacementSelectorsSchema("Which scheduled destinations the wave takes. " +
						"Entries combine with AND, as in `destination_selectors`; no entries means every scheduled destination " +
						"no earlier wave took (`strict_match_labels` plays no part here: it decides scheduling, not waves)."),
					"max_destinations": schema.Int64Attribute{
						Optional: true, MarkdownDescription: "At most this many destinations (the first by name); the rest go to later waves.",
						Validators: []validator.Int64{int64validator.AtLeast(1)},
					},
					"max_percent": schema.Int64Attribute{
						Optional: true, MarkdownDescription: "At most this share, rounded up, of the destinations the selectors match that no earlier wave took.",
						Validators: []validator.Int64{int64validator.Between(1, 100)},
					},
				}},
			},
			"min_wait": schema.StringAttribute{
				Optional: true, CustomType: timetypes.GoDurationType{},
				MarkdownDescription: "Least time between the applies of two waves of one rollout, a Go duration such as " +
					"`\"1h\"`. Until it has passed, a plan writes nothing and says when the next wave may go.",
				Validators: []validator.String{schemautil.NotNegative{}},
			},
			"paused": schema.BoolAttribute{
				Optional: true, MarkdownDescription: "`true` stops the rollout where it is: no wave goes until it is `false` again.",
			},
			"gate":    rolloutattr.GateSchema(),
			"windows": rolloutattr.WindowsSchema(),
			"revert": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "How a change of `dependencies` back to the revision that last went everywhere goes: " +
					"`staged` (the default: wave by wave, like any change) or `immediate` (every destination gets it back in " +
					"one apply, whatever the waves, windows and gate say; only `paused` holds it).",
				Validators: []validator.String{stringvalidator.OneOf(rollout.RevertStaged, rollout.RevertImmediate)},
			},
		},
	}
}

func revisionsSchema() schema.MapAttribute {
	return schema.MapAttribute{
		ElementType: types.StringType, Computed: true,
		MarkdownDescription: "Per destination holding the promise, the revision of the dependencies it holds (the first 12 " +
			"hex digits of the SHA-256 of their canonical YAML). Known during plan.",
	}
}

func rolloutStatusSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Computed: true,
		MarkdownDescription: "Where the rollout stands after the apply; null without `rollout`. Known during plan, " +
			"except the times the apply sets.",
		Attributes: map[string]schema.Attribute{
			"revision":             schema.StringAttribute{Computed: true, MarkdownDescription: "The revision of `dependencies`."},
			"completed_revision":   schema.StringAttribute{Computed: true, MarkdownDescription: "The revision that last reached every scheduled destination."},
			"waves_done":           schema.Int64Attribute{Computed: true, MarkdownDescription: "Waves of `revision` written so far; 0 when the rollout is complete."},
			"next_wave":            schema.StringAttribute{Computed: true, MarkdownDescription: "The wave that goes next; null when complete."},
			"next_wave_not_before": schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{}, MarkdownDescription: "The earliest time (RFC 3339) the next wave may go, when `min_wait` holds it back."},
			"waiting": schema.ListAttribute{
				ElementType: types.StringType, Computed: true,
				MarkdownDescription: "Scheduled destinations that do not hold `revision` after the apply, sorted.",
			},
			"waves": schema.MapAttribute{
				ElementType: types.StringType, Computed: true,
				MarkdownDescription: "Per scheduled destination, the wave it belongs to.",
			},
			"last_wave_at": schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{}, MarkdownDescription: "When the last wave was written (RFC 3339)."},
			"failed_revision": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "The revision whose gate failed and that was rolled back (`gate.on_failure = \"rollback\"`); " +
					"while `dependencies` are that revision nothing advances. Null when none. An import (or a replacement) finds it " +
					"again when a destination of the first wave reports, in its latest health record, a state the gate does not pass.",
			},
			"checked_at": schema.StringAttribute{
				Computed: true, CustomType: timetypes.RFC3339Type{},
				MarkdownDescription: "When an apply last looked at the rollout. It is unknown in every plan while the rollout " +
					"is not complete, so that `terraform plan -detailed-exitcode` returns 2 until it is.",
			},
		},
	}
}

// rolloutPolicy converts `rollout`: nil without one; ok is false while any of it is unknown.
func rolloutPolicy(ctx context.Context, at path.Path, obj types.Object) (policy *rollout.Policy, ok bool, diags diag.Diagnostics) {
	if obj.IsNull() {
		return nil, true, nil
	}
	if obj.IsUnknown() {
		return nil, false, nil
	}
	var m rolloutModel
	if diags.Append(obj.As(ctx, &m, basetypes.ObjectAsOptions{})...); diags.HasError() || m.MinWait.IsUnknown() || m.Paused.IsUnknown() {
		return nil, false, diags
	}
	policy = &rollout.Policy{Paused: m.Paused.ValueBool()}
	if !m.MinWait.IsNull() {
		policy.MinWait, _ = m.MinWait.ValueGoDuration() // validated by its type
	}
	waves, _, ok, d := wavesFromList(ctx, at.AtName("waves"), m.Waves)
	if diags.Append(d...); !ok {
		return nil, false, diags
	}
	policy.Waves = waves
	if policy.Gate, ok = rolloutattr.GateOf(ctx, m.Gate, &diags); !ok {
		return nil, false, diags
	}
	if policy.Windows, ok = rolloutattr.WindowsOf(ctx, at.AtName("windows"), m.Windows, &diags); !ok {
		return nil, false, diags
	}
	if m.Revert.IsUnknown() {
		return nil, false, diags
	}
	policy.Revert = m.Revert.ValueString()
	return policy, true, diags
}

// wavesFromList converts rollout waves; ok is false while any of it is unknown or invalid.
func wavesFromList(ctx context.Context, at path.Path, list types.List) (waves []rollout.Wave, names []string, ok bool, diags diag.Diagnostics) {
	models, known, d := tfvalue.ObjectsAs[waveModel](ctx, list)
	if diags.Append(d...); !known || diags.HasError() {
		return nil, nil, false, diags
	}
	seen := map[string]int{}
	for i, w := range models {
		if w.Name.IsUnknown() || w.MaxDestinations.IsUnknown() || w.MaxPercent.IsUnknown() {
			return nil, nil, false, diags
		}
		if first, dup := seen[w.Name.ValueString()]; dup {
			at := at.AtListIndex(i).AtName("name")
			diags.AddAttributeError(at, "Duplicate Wave",
				fmt.Sprintf("%s: wave %q is already waves[%d]; give each wave its own name, plans and rollout_status name waves by it.", at, w.Name.ValueString(), first))
			return nil, nil, false, diags
		}
		seen[w.Name.ValueString()] = i
		entries, known, d := schedattr.SelectorsFromList(ctx, at.AtListIndex(i).AtName("destination_selectors"), w.DestinationSelectors)
		if diags.Append(d...); !known || diags.HasError() {
			return nil, nil, false, diags
		}
		waves = append(waves, rollout.Wave{
			Name: w.Name.ValueString(), Selector: scheduling.Merge(entries),
			MaxDestinations: int(w.MaxDestinations.ValueInt64()), MaxPercent: int(w.MaxPercent.ValueInt64()),
		})
		names = append(names, w.Name.ValueString())
	}
	return waves, names, true, diags
}

// privstate.Reader is what ModifyPlan, Read and apply have of private state.
func readRolloutBase(ctx context.Context, p privstate.Reader) *rolloutBase {
	if p == nil {
		return nil
	}
	b, _ := p.GetKey(ctx, privstate.RolloutBaseKey)
	if len(b) == 0 {
		return nil
	}
	var base rolloutBase
	if json.Unmarshal(b, &base) != nil || base.Revision == "" {
		return nil
	}
	return &base
}

// staging is what a plan of a promise decided about its rollout (see rollout.Stage), with what
// the glue needs to write it: the prior revision and the completed revision's dependencies.
type staging struct {
	r        *rollout.Staging // nil without a rollout
	prior    string           // the revision of the dependencies state holds ("" when unknown)
	base     *rolloutBase     // the completed revision's YAML, while a rollout is in flight
	baseDeps *layout.Dependencies
}

// staged says, for placement.Promise.Staged, what each destination that does not get the
// configured revision gets instead: the base's dependencies, or nil to keep what it holds.
func (s staging) staged() map[string]*layout.Dependencies {
	if s.r == nil {
		return nil // every destination gets the configured dependencies
	}
	base := ""
	if s.base != nil {
		base = s.base.Revision
	}
	out := map[string]*layout.Dependencies{}
	for dest, src := range rollout.Sources(s.r.Give, s.r.Revision, base) {
		switch src {
		case rollout.Base:
			out[dest] = s.baseDeps
		case rollout.Keep:
			out[dest] = nil
		}
	}
	return out
}

// stage runs the rollout over in, the promise as planned, and the destinations scheduled: it
// tells rollout.Stage what state says each destination holds.
func (m promiseModel) stage(ctx context.Context, state promiseModel, in placement.Promise, scheduled []string, policy *rollout.Policy, private privstate.Reader, now time.Time) staging {
	if policy == nil {
		return staging{} // every destination gets the configured dependencies; nothing to hash
	}
	var s staging
	priorDeps, priorKnown := state.dependencies()
	if priorKnown {
		s.prior = rollout.Revision(priorDeps.All)
	}
	status := rollout.StatusOf(reportOf(ctx, state.RolloutStatus), s.prior)
	s.setBase(ctx, m.Name.ValueString(), status.Completed, priorDeps, priorKnown, private)
	byName := make(map[string]placement.Member, len(in.Pool))
	for _, mem := range in.Pool {
		byName[mem.Name] = mem
	}
	present := map[string]bool{}
	dests := make([]rollout.Destination, 0, len(scheduled))
	for _, dest := range scheduled {
		mem := byName[dest]
		dests = append(dests, rollout.Destination{Name: dest, Labels: mem.Labels})
		pr, ok := in.Prior[dest]
		if !ok || pr.Record.Location != mem.Location.String() || pr.Record.Root != mem.Target.Root {
			continue // new here, or moved: it holds nothing where it is now
		}
		present[dest] = len(pr.Record.Files) > 0 && !relaidOut(pr.Member, mem)
	}
	r := rollout.Stage(rollout.StageInput{
		Policy: *policy, Status: status, Revision: rollout.Revision(in.Dependencies.All), Prior: s.prior,
		Scheduled: dests, Revisions: tfvalue.StringMap(ctx, state.Revisions), Present: present,
		Staged: priorKnown && len(in.Prior) > 0, BaseKnown: s.baseDeps != nil, Now: now,
		Health: gateHealth(ctx, policy.Gate, state.Health),
	})
	if !r.KeepsBase() {
		s.base, s.baseDeps = nil, nil // every destination gets the revision: the old YAML is done with
	}
	s.r = &r
	return s
}

// emptyWaveWarnings warns of each wave that takes none of the scheduled destinations
// (rollout.EmptyWaves): a rollout passes it over without a word otherwise, and the next wave goes
// in the same apply, so that a misspelt label sends a change everywhere at once.
func emptyWaveWarnings(name string, policy *rollout.Policy, in placement.Promise, scheduled []string) diag.Diagnostics {
	var diags diag.Diagnostics
	if policy == nil || len(scheduled) == 0 {
		return diags
	}
	labels := make(map[string]map[string]string, len(in.Pool))
	for _, mem := range in.Pool {
		labels[mem.Name] = mem.Labels
	}
	dests := make([]rollout.Destination, 0, len(scheduled))
	for _, dest := range scheduled {
		dests = append(dests, rollout.Destination{Name: dest, Labels: labels[dest]})
	}
	for _, e := range rollout.EmptyWaves(policy.Waves, dests) {
		at := path.Root("rollout").AtName("waves").AtListIndex(e.Index).AtName("destination_selectors")
		why := fmt.Sprintf("its destination_selectors match none of the %d destinations the promise is scheduled to", len(dests))
		if e.Matching > 0 {
			why = fmt.Sprintf("the %d scheduled destinations its destination_selectors match are all taken by earlier waves", e.Matching)
		}
		diags.AddAttributeWarning(at, "Empty Rollout Wave", fmt.Sprintf(
			"%s: wave %q of promise %q takes no destination: %s. A rollout passes an empty wave over, and the next wave goes "+
				"in the same apply (when it is the first wave, a change reaches the next wave's destinations with no canary before them). "+
				"Check the wave's selectors against the destinations' labels (data source kratix_placement shows them), or remove the wave.",
			at, e.Name, name, why))
	}
	return diags
}

// relaidOut reports whether a destination's files are laid out differently now than when it was
// written (another filepath mode, aggregate file name or store path).
func relaidOut(before *placement.Member, now placement.Member) bool {
	if before == nil {
		return false
	}
	b, n := before.Target, now.Target
	return b.Mode != n.Mode || b.AggregatedFilename != n.AggregatedFilename || b.StorePath != n.StorePath
}

// reportOf reads `rollout_status`; nil when it is null or unknown. A time that is unknown in a
// plan is one the apply sets.
func reportOf(ctx context.Context, obj types.Object) *rollout.Report {
	if obj.IsNull() || obj.IsUnknown() {
		return nil
	}
	var m rolloutStatusModel
	if obj.As(ctx, &m, basetypes.ObjectAsOptions{}).HasError() {
		return nil
	}
	r := &rollout.Report{
		Revision: m.Revision.ValueString(), Completed: m.CompletedRevision.ValueString(), WavesDone: int(m.WavesDone.ValueInt64()),
		NextWave: m.NextWave.ValueString(), HasNextWave: !m.NextWave.IsNull() && !m.NextWave.IsUnknown(),
		NextWaveNotBefore: stampOf(m.NextWaveNotBefore), LastWaveAt: stampOf(m.LastWaveAt), CheckedAt: stampOf(m.CheckedAt),
		Waves: tfvalue.StringMap(ctx, m.Waves), Failed: m.Failed.ValueString(),
	}
	if !m.Waiting.IsNull() && !m.Waiting.IsUnknown() {
		_ = m.Waiting.ElementsAs(ctx, &r.Waiting, false) // a list of strings
	}
	return r
}

// reportValue is `rollout_status` for r.
func reportValue(r rollout.Report) types.Object {
	next := types.StringNull()
	if r.HasNextWave {
		next = types.StringValue(r.NextWave)
	}
	return types.ObjectValueMust(rolloutStatusAttrTypes, map[string]attr.Value{
		"revision": types.StringValue(r.Revision), "completed_revision": types.StringValue(r.Completed),
		"waves_done": types.Int64Value(int64(r.WavesDone)),
		"next_wave":  next, "next_wave_not_before": stampValue(r.NextWaveNotBefore),
		"waiting": tfvalue.StringList(r.Waiting), "waves": tfvalue.StringMapValue(r.Waves),
		"last_wave_at": stampValue(r.LastWaveAt), "checked_at": stampValue(r.CheckedAt),
		"failed_revision": optionalString(r.Failed),
	})
}

// optionalString is s, or null when it is "".
func optionalString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

func stampOf(v timetypes.RFC3339) rollout.Stamp {
	if v.IsUnknown() {
		return rollout.Stamp{AtApply: true}
	}
	return rollout.Stamp{Text: v.ValueString()}
}

// stampValue is a time of rollout_status. Its text is kept as the rollout package wrote it (RFC
// 3339, UTC), which the RFC3339 type checks only in configuration.
func stampValue(s rollout.Stamp) timetypes.RFC3339 {
	switch {
	case s.AtApply:
		return timetypes.NewRFC3339Unknown()
	case s.Text == "":
		return timetypes.NewRFC3339Null()
	}
	return timetypes.RFC3339{StringValue: types.StringValue(s.Text)}
}

// recordRollout sets `revisions` and `rollout_status` from a staging. Records are the plan's.
func (m *promiseModel) recordRollout(ctx context.Context, state promiseModel, s staging, records map[string]placement.Record) {
	if s.r == nil {
		m.Revisions = types.MapNull(types.StringType)
		m.RolloutStatus = types.ObjectNull(rolloutStatusAttrTypes)
		return
	}
	m.Revisions = tfvalue.StringMapValue(s.r.Revisions(tfvalue.SortedKeys(records), tfvalue.StringMap(ctx, state.Revisions)))
	var before rollout.Report
	if r := reportOf(ctx, state.RolloutStatus); r != nil {
		before = *r
	}
	m.RolloutStatus = reportValue(s.r.Report(before))
}

// rolloutMessage says in a plan what the apply writes now, what waits, and what comes next.
func (s staging) rolloutMessage(name string) string {
	if s.r == nil {
		return ""
	}
	return s.r.Message(name)
}

// setBase finds the completed revision's YAML and its layout input: the prior configuration's
// when that is it (already parsed), else what the rollout in flight kept in private state.
func (s *staging) setBase(ctx context.Context, name, completed string, prior layout.Dependencies, priorKnown bool, private privstate.Reader) {
	if priorKnown && s.prior == completed {
		s.base = &rolloutBase{Revision: completed, Dependencies: string(prior.All)}
		s.baseDeps = &prior
		return
	}
	if base := readRolloutBase(ctx, private); base != nil && base.Revision == completed {
		if d, ok := dependenciesOf(name, base.Dependencies); ok {
			s.base, s.baseDeps = base, &d
		}
	}
}

// given is the staging the plan decided, read back from its `revisions` and `rollout_status`,
// for in, the promise as configured.
func (m promiseModel) given(ctx context.Context, state promiseModel, in placement.Promise, private privstate.Reader) staging {
	if m.Revisions.IsNull() || m.RolloutStatus.IsNull() {
		return staging{}
	}
	s := staging{r: &rollout.Staging{Revision: rollout.Revision(in.Dependencies.All), Give: tfvalue.StringMap(ctx, m.Revisions)}}
	priorDeps, priorKnown := state.dependencies()
	if priorKnown {
		s.prior = rollout.Revision(priorDeps.All)
	}
	var status rolloutStatusModel
	if m.RolloutStatus.As(ctx, &status, basetypes.ObjectAsOptions{}).HasError() {
		return s
	}
	s.setBase(ctx, in.Name, status.CompletedRevision.ValueString(), priorDeps, priorKnown, private)
	return s
}

// settleRollout records, after an apply, which revision each destination holds (a destination
// whose write failed keeps the one it held: rollout.SettleRevisions), the times the plan left to
// the apply, and a wave that did not go everywhere it should have (rollout.Report.Hold).
func (m *promiseModel) settleRollout(ctx context.Context, state promiseModel, s staging, minWait time.Duration, now time.Time, planned, settled map[string]placement.Record) {
	if s.r == nil || m.Revisions.IsNull() || m.Revisions.IsUnknown() {
		return
	}
	written := make(map[string]bool, len(settled))
	for dest, rec := range settled {
		written[dest] = sameRecord(planned[dest], rec)
	}
	revisions, missed := rollout.SettleRevisions(rollout.Settling{
		Revision: s.r.Revision, Prior: s.prior, Given: s.r.Give, Before: tfvalue.StringMap(ctx, state.Revisions),
		Planned: tfvalue.SortedKeys(planned), Written: written,
	})
	if v := tfvalue.StringMapValue(revisions); !v.Equal(m.Revisions) {
		m.Revisions = v
	}
	if r := reportOf(ctx, m.RolloutStatus); r != nil {
		prior := rollout.StatusOf(reportOf(ctx, state.RolloutStatus), s.prior)
		m.RolloutStatus = reportValue(r.Settle(minWait, now).Hold(prior, missed))
	}
}

// keepRolloutBase keeps the completed revision's YAML while a rollout is in flight, and drops it
// once it is complete.
func keepRolloutBase(ctx context.Context, prior privstate.Reader, out privstate.State, s staging) diag.Diagnostics {
	if out == nil {
		return nil
	}
	if s.r != nil && s.r.KeepsBase() && s.base != nil {
		b, err := json.Marshal(s.base)
		if err != nil {
			return nil
		}
		return out.SetKey(ctx, privstate.RolloutBaseKey, b)
	}
	if readRolloutBase(ctx, prior) != nil {
		return out.SetKey(ctx, privstate.RolloutBaseKey, nil)
	}
	return nil
}

// heldDependencies says which dependencies a destination holds, for Read to look at its files:
// the completed revision's while it waits in a rollout, else the configured ones.
func (m promiseModel) heldDependencies(ctx context.Context, deps layout.Dependencies, private privstate.Reader) func(string) layout.Dependencies {
	base := readRolloutBase(ctx, private)
	if base == nil || m.Revisions.IsNull() || base.Revision == rollout.Revision(deps.All) {
		return func(string) layout.Dependencies { return deps }
	}
	baseDeps, ok := dependenciesOf(m.Name.ValueString(), base.Dependencies)
	revisions := tfvalue.StringMap(ctx, m.Revisions)
	return func(dest string) layout.Dependencies {
		if ok && revisions[dest] == base.Revision {
			return baseDeps
		}
		return deps
	}
}

// sameRecord reports whether a and b are the same record, as reflect.DeepEqual compares them (a
// nil Files differs from an empty one).
func sameRecord(a, b placement.Record) bool {
	return a.Store == b.Store && a.Location == b.Location && a.Root == b.Root && a.Misscheduled == b.Misscheduled &&
		(a.Files == nil) == (b.Files == nil) && maps.Equal(a.Files, b.Files)
}

// gateHealth is what a gate reads of `health`, as the last refresh found it; nil without a gate,
// which reads nothing.
func gateHealth(ctx context.Context, gate *rollout.Gate, m types.Map) map[string]rollout.Health {
	if gate == nil {
		return nil
	}
	views := healthFromModel(ctx, m)
	out := make(map[string]rollout.Health, len(views))
	for dest, v := range views {
		h := rollout.Health{Found: v.Found, State: v.State, Fresh: v.Fresh, LastRun: v.LastRun}
		switch v.Applied {
		case health.Yes:
			h.Applied = rollout.AppliedYes
		case health.No:
			h.Applied = rollout.AppliedNo
			h.Reports = "another revision"
		}
		out[dest] = h
	}
	return out
}
