package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/rollout"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// A promise's rollout: the configuration (`rollout`), what it decided (`revisions`,
// `rollout_status`), and the dependencies of the revision that last went everywhere, which
// destinations joining during a rollout get. Those are kept in private state while a rollout is
// in flight: they are not the promise's configuration, and would fill every plan.

type rolloutModel struct {
	Waves   types.List   `tfsdk:"waves"` // of waveModel
	MinWait types.String `tfsdk:"min_wait"`
	Paused  types.Bool   `tfsdk:"paused"`
}

type waveModel struct {
	Name                 types.String `tfsdk:"name"`
	DestinationSelectors types.List   `tfsdk:"destination_selectors"`
	MaxDestinations      types.Int64  `tfsdk:"max_destinations"`
	MaxPercent           types.Int64  `tfsdk:"max_percent"`
}

type rolloutStatusModel struct {
	Revision          types.String `tfsdk:"revision"`
	CompletedRevision types.String `tfsdk:"completed_revision"`
	WavesDone         types.Int64  `tfsdk:"waves_done"`
	NextWave          types.String `tfsdk:"next_wave"`
	NextWaveNotBefore types.String `tfsdk:"next_wave_not_before"`
	Waiting           types.List   `tfsdk:"waiting"`
	Waves             types.Map    `tfsdk:"waves"`
	LastWaveAt        types.String `tfsdk:"last_wave_at"`
	CheckedAt         types.String `tfsdk:"checked_at"`
}

var rolloutStatusAttrTypes = map[string]attr.Type{
	"revision": types.StringType, "completed_revision": types.StringType, "waves_done": types.Int64Type,
	"next_wave": types.StringType, "next_wave_not_before": types.StringType,
	"waiting": types.ListType{ElemType: types.StringType}, "waves": types.MapType{ElemType: types.StringType},
	"last_wave_at": types.StringType, "checked_at": types.StringType,
}

const rolloutBaseKey = "rollout_base"

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
			"first apply of a new promise writes everywhere at once; an imported promise goes on where the stores say its " +
			"rollout stands (see Import). See the guide \"Rolling out a change safely\".",
		Attributes: map[string]schema.Attribute{
			"waves": schema.ListNestedAttribute{
				Required: true,
				MarkdownDescription: "The waves, in order. Wave by wave, each takes the scheduled destinations its selectors " +
					"match that no earlier wave took (in name order, up to its cap); the last wave also takes every " +
					"destination no wave took.",
				Validators: []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{Required: true, MarkdownDescription: "The wave's name, shown in plans and in `rollout_status`."},
					"destination_selectors": selectorsResourceSchema("Which scheduled destinations the wave takes. " +
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
				Optional: true,
				MarkdownDescription: "Least time between the applies of two waves of one rollout, a Go duration such as " +
					"`\"1h\"`. Until it has passed, a plan writes nothing and says when the next wave may go.",
				Validators: []validator.String{durationString{}},
			},
			"paused": schema.BoolAttribute{
				Optional: true, MarkdownDescription: "`true` stops the rollout where it is: no wave goes until it is `false` again.",
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
			"next_wave_not_before": schema.StringAttribute{Computed: true, MarkdownDescription: "The earliest time (RFC 3339) the next wave may go, when `min_wait` holds it back."},
			"waiting": schema.ListAttribute{
				ElementType: types.StringType, Computed: true,
				MarkdownDescription: "Scheduled destinations that do not hold `revision` after the apply, sorted.",
			},
			"waves": schema.MapAttribute{
				ElementType: types.StringType, Computed: true,
				MarkdownDescription: "Per scheduled destination, the wave it belongs to.",
			},
			"last_wave_at": schema.StringAttribute{Computed: true, MarkdownDescription: "When the last wave was written (RFC 3339)."},
			"checked_at": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "When an apply last looked at the rollout. It is unknown in every plan while the rollout " +
					"is not complete, so that `terraform plan -detailed-exitcode` returns 2 until it is.",
			},
		},
	}
}

// durationString accepts a Go duration of zero or more.
type durationString struct{}

func (durationString) Description(context.Context) string {
	return "must be a duration such as \"30m\""
}

func (v durationString) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (durationString) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if d, err := time.ParseDuration(req.ConfigValue.ValueString()); err != nil || d < 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Duration",
			fmt.Sprintf("%q is not a duration: give one such as \"30m\" or \"2h\".", req.ConfigValue.ValueString()))
	}
}

// rolloutPolicy converts `rollout`: nil without one; ok is false while any of it is unknown.
func rolloutPolicy(ctx context.Context, at path.Path, obj types.Object) (policy *rollout.Policy, names []string, ok bool, diags diag.Diagnostics) {
	if obj.IsNull() {
		return nil, nil, true, nil
	}
	if obj.IsUnknown() {
		return nil, nil, false, nil
	}
	var m rolloutModel
	if diags.Append(obj.As(ctx, &m, basetypes.ObjectAsOptions{})...); diags.HasError() || m.MinWait.IsUnknown() || m.Paused.IsUnknown() {
		return nil, nil, false, diags
	}
	policy = &rollout.Policy{Paused: m.Paused.ValueBool()}
	if !m.MinWait.IsNull() {
		policy.MinWait, _ = time.ParseDuration(m.MinWait.ValueString()) // validated
	}
	waves, names, ok, d := wavesFromList(ctx, at.AtName("waves"), m.Waves)
	if diags.Append(d...); !ok {
		return nil, nil, false, diags
	}
	policy.Waves = waves
	return policy, names, true, diags
}

// wavesFromList converts rollout waves; ok is false while any of it is unknown or invalid.
func wavesFromList(ctx context.Context, at path.Path, list types.List) (waves []rollout.Wave, names []string, ok bool, diags diag.Diagnostics) {
	models, known, d := objectsAs[waveModel](ctx, list)
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
		entries, known, d := selectorsFromList(ctx, at.AtListIndex(i).AtName("destination_selectors"), w.DestinationSelectors)
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

// privateData is what ModifyPlan, Read and apply have of private state.
type privateData interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

func readRolloutBase(ctx context.Context, p privateData) *rolloutBase {
	if p == nil {
		return nil
	}
	b, _ := p.GetKey(ctx, rolloutBaseKey)
	if len(b) == 0 {
		return nil
	}
	var base rolloutBase
	if json.Unmarshal(b, &base) != nil || base.Revision == "" {
		return nil
	}
	return &base
}

// staging is what a plan of a promise decided about its rollout.
type staging struct {
	revision string
	give     map[string]string // per scheduled destination: the revision it gets
	step     *rollout.Step     // nil without a rollout
	names    []string          // the waves' names
	from     string            // the revision that had last completed before this plan
	prior    string            // the revision of the dependencies state holds ("" when unknown)
	base     *rolloutBase      // the completed revision's YAML, while a rollout is in flight
	baseDeps *layout.Dependencies
}

// staged says, for placement.Promise.Staged, what each destination that does not get the
// configured revision gets instead: the base's dependencies, or nil to keep what it holds.
func (s staging) staged() map[string]*layout.Dependencies {
	out := map[string]*layout.Dependencies{}
	for dest, rev := range s.give {
		switch {
		case rev == s.revision:
		case s.base != nil && rev == s.base.Revision:
			out[dest] = s.baseDeps
		default:
			out[dest] = nil
		}
	}
	return out
}

// stage runs the rollout over in, the promise as planned, and the destinations the plan
// scheduled.
func (m promiseModel) stage(ctx context.Context, state promiseModel, in placement.Promise, scheduled []string, policy *rollout.Policy, names []string, private privateData, now time.Time) staging {
	if policy == nil {
		return staging{} // every destination gets the configured dependencies; nothing to hash
	}
	s := staging{revision: rollout.Revision(in.Dependencies.All), give: map[string]string{}, names: names}
	priorDeps, priorKnown := state.dependencies()
	if priorKnown {
		s.prior = rollout.Revision(priorDeps.All)
	}
	status := rolloutStatusFrom(ctx, state.RolloutStatus, s.prior)
	s.from = status.Completed
	revisions := stringMap(ctx, state.Revisions)
	byName := make(map[string]placement.Member, len(in.Pool))
	for _, mem := range in.Pool {
		byName[mem.Name] = mem
	}
	held := map[string]string{}
	var dests []rollout.Destination
	for _, dest := range scheduled {
		mem := byName[dest]
		dests = append(dests, rollout.Destination{Name: dest, Labels: mem.Labels})
		pr, ok := in.Prior[dest]
		if !ok || pr.Record.Location != mem.Location.String() || pr.Record.Root != mem.Target.Root {
			continue // new here, or moved: it holds nothing where it is now
		}
		rev, ok := revisions[dest]
		if !ok {
			rev = s.prior
		}
		// An intermediate revision (from a rollout a further change restarted) cannot be written
		// again: a destination that lost its files, or whose layout changed, gets the completed
		// revision, as one new here does.
		if rev != s.revision && rev != status.Completed && (len(pr.Record.Files) == 0 || relaidOut(pr.Member, mem)) {
			continue
		}
		if rev != "" {
			held[dest] = rev
		}
	}
	step := rollout.Plan(rollout.Input{
		Policy: *policy, Status: status, Revision: s.revision, Scheduled: dests, Held: held,
		Staged: priorKnown && len(in.Prior) > 0, Now: now,
	})
	s.setBase(ctx, m.Name.ValueString(), status.Completed, priorDeps, priorKnown, private)
	for dest, rev := range step.Give {
		if _, isHeld := held[dest]; !isHeld && rev != s.revision && s.baseDeps == nil {
			rev = s.revision // the completed revision is not known here: the new one is all there is
		}
		s.give[dest] = rev
	}
	if step.Complete {
		s.base, s.baseDeps = nil, nil // every destination gets the revision: the old YAML is done with
	}
	s.step = &step
	return s
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

// rolloutStatusFrom reads what state recorded; a promise without a recorded status holds
// the revision of its dependencies everywhere.
func rolloutStatusFrom(ctx context.Context, obj types.Object, priorRev string) rollout.Status {
	status := rollout.Status{Completed: priorRev}
	if obj.IsNull() || obj.IsUnknown() {
		return status
	}
	var m rolloutStatusModel
	if obj.As(ctx, &m, basetypes.ObjectAsOptions{}).HasError() {
		return status
	}
	if m.CompletedRevision.ValueString() != "" {
		status.Completed = m.CompletedRevision.ValueString()
	}
	if m.WavesDone.ValueInt64() > 0 {
		status.Target = m.Revision.ValueString()
		status.WavesDone = int(m.WavesDone.ValueInt64())
		status.LastWave, _ = time.Parse(time.RFC3339, m.LastWaveAt.ValueString())
	} else if m.Revision.ValueString() != status.Completed {
		status.Target = m.Revision.ValueString() // in flight, no wave written yet (paused)
	}
	return status
}

// recordRollout sets `revisions` and `rollout_status` from a staging. Records are the plan's:
// a destination kept without an update (misscheduled) keeps the revision state gave it.
func (m *promiseModel) recordRollout(ctx context.Context, state promiseModel, s staging, records map[string]placement.Record) {
	if s.step == nil {
		m.Revisions = types.MapNull(types.StringType)
		m.RolloutStatus = types.ObjectNull(rolloutStatusAttrTypes)
		return
	}
	prior := stringMap(ctx, state.Revisions)
	revisions := map[string]string{}
	for dest := range records {
		if rev, ok := s.give[dest]; ok {
			revisions[dest] = rev
		} else if rev, ok := prior[dest]; ok {
			revisions[dest] = rev
		}
	}
	m.Revisions = stringMapValue(revisions)
	step := s.step
	var old rolloutStatusModel
	if !state.RolloutStatus.IsNull() && !state.RolloutStatus.IsUnknown() {
		_ = state.RolloutStatus.As(ctx, &old, basetypes.ObjectAsOptions{})
	}
	waves := map[string]string{}
	for dest, w := range step.Wave {
		waves[dest] = s.names[w]
	}
	status := map[string]attr.Value{
		"revision": types.StringValue(s.revision), "completed_revision": types.StringValue(step.Status.Completed),
		"waves_done": types.Int64Value(int64(step.Status.WavesDone)),
		"next_wave":  types.StringNull(), "next_wave_not_before": types.StringNull(),
		"waiting": stringList(step.Waiting), "waves": stringMapValue(waves),
		"last_wave_at": nullIfEmpty(old.LastWaveAt), "checked_at": nullIfEmpty(old.CheckedAt),
	}
	if step.Next >= 0 && !step.Complete {
		status["next_wave"] = types.StringValue(s.names[step.Next])
	}
	if !step.NotBefore.IsZero() && !step.Complete && !step.Advanced {
		status["next_wave_not_before"] = types.StringValue(step.NotBefore.UTC().Format(time.RFC3339))
	}
	if step.Advanced {
		status["last_wave_at"] = types.StringUnknown()
		if !step.Complete && step.NotBefore.IsZero() {
			status["next_wave_not_before"] = types.StringNull()
		} else if !step.Complete {
			status["next_wave_not_before"] = types.StringUnknown() // min_wait after the apply's time
		}
	}
	if !step.Complete {
		status["checked_at"] = types.StringUnknown()
	}
	m.RolloutStatus = types.ObjectValueMust(rolloutStatusAttrTypes, status)
}

func nullIfEmpty(v types.String) types.String {
	if v.IsNull() || v.IsUnknown() || v.ValueString() == "" {
		return types.StringNull()
	}
	return v
}

// settleRolloutTimes sets what the plan left for the apply: the time of the wave written, when
// the next may go, and when the rollout was looked at.
func (m *promiseModel) settleRolloutTimes(minWait time.Duration, now time.Time) {
	if m.RolloutStatus.IsNull() || m.RolloutStatus.IsUnknown() {
		return
	}
	attrs := m.RolloutStatus.Attributes()
	stamp := types.StringValue(now.UTC().Format(time.RFC3339))
	if attrs["last_wave_at"].IsUnknown() {
		attrs["last_wave_at"] = stamp
	}
	if attrs["next_wave_not_before"].IsUnknown() {
		attrs["next_wave_not_before"] = types.StringValue(now.Add(minWait).UTC().Format(time.RFC3339))
	}
	if attrs["checked_at"].IsUnknown() {
		attrs["checked_at"] = stamp
	}
	m.RolloutStatus = types.ObjectValueMust(rolloutStatusAttrTypes, attrs)
}

// rolloutMessage says in a plan what the apply writes now, what waits, and what comes next.
func (s staging) rolloutMessage(name string, paused bool) string {
	step := s.step
	if step == nil || (step.Complete && !step.Advanced) {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Promise %q rolls out revision %s", name, s.revision)
	if s.from != "" && s.from != s.revision {
		fmt.Fprintf(&b, " (the fleet held %s)", s.from)
	}
	b.WriteString(".")
	if step.Restarted {
		b.WriteString(" A rollout of another revision was in flight: this one starts again from the first wave.")
	}
	var now, joined []string
	for _, dest := range step.Now { // sorted
		if s.give[dest] == s.revision {
			now = append(now, dest)
		} else {
			joined = append(joined, dest)
		}
	}
	switch {
	case step.Advanced && len(now) > 0:
		fmt.Fprintf(&b, "\n\nThis apply writes wave %q to: %s.", s.names[step.Wrote], strings.Join(now, ", "))
	case len(now) > 0:
		fmt.Fprintf(&b, "\n\nThis apply writes revision %s to: %s.", s.revision, strings.Join(now, ", "))
	case len(joined) == 0:
		b.WriteString("\n\nThis apply writes nothing.")
	}
	if len(joined) > 0 {
		fmt.Fprintf(&b, "\n\nNew here, these get %s, the revision that last went everywhere: %s.", s.from, strings.Join(joined, ", "))
	}
	if step.Complete {
		b.WriteString(" The rollout is then complete.")
		return b.String()
	}
	fmt.Fprintf(&b, "\nWaiting (they keep what they hold): %s.", strings.Join(step.Waiting, ", "))
	next := s.names[step.Next]
	switch {
	case paused:
		fmt.Fprintf(&b, "\nThe rollout is paused; wave %q goes when `paused` is false again.", next)
	case !step.NotBefore.IsZero() && !step.Advanced:
		fmt.Fprintf(&b, "\nNext wave: %q, not before %s (min_wait).", next, step.NotBefore.UTC().Format(time.RFC3339))
	case !step.NotBefore.IsZero():
		fmt.Fprintf(&b, "\nNext wave: %q, at an apply after min_wait has passed.", next)
	default:
		fmt.Fprintf(&b, "\nNext wave: %q, at the next apply.", next)
	}
	return b.String()
}

// setBase finds the completed revision's YAML and its layout input: the prior configuration's
// when that is it (already parsed), else what the rollout in flight kept in private state.
func (s *staging) setBase(ctx context.Context, name, completed string, prior layout.Dependencies, priorKnown bool, private privateData) {
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
func (m promiseModel) given(ctx context.Context, state promiseModel, in placement.Promise, private privateData) staging {
	if m.Revisions.IsNull() || m.RolloutStatus.IsNull() {
		return staging{}
	}
	s := staging{revision: rollout.Revision(in.Dependencies.All), give: stringMap(ctx, m.Revisions)}
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

// settleRevisions keeps, for a destination whose write failed, the revision it held before. It
// returns the destinations the plan gave revision and that did not get it.
func (m *promiseModel) settleRevisions(ctx context.Context, state promiseModel, s staging, planned, settled map[string]placement.Record) (missed []string) {
	if m.Revisions.IsNull() || m.Revisions.IsUnknown() {
		return nil
	}
	given, revision, priorRev := s.give, s.revision, s.prior
	before := stringMap(ctx, state.Revisions)
	out := map[string]string{}
	for dest, rec := range settled {
		if !reflect.DeepEqual(planned[dest], rec) && given[dest] == revision && before[dest] != revision {
			missed = append(missed, dest)
		}
		switch {
		case reflect.DeepEqual(planned[dest], rec):
			// As the plan recorded it (recordRollout): the revision given, else the one held
			// before; a destination the rollout does not stage (misscheduled) has none.
			if rev, ok := given[dest]; ok {
				out[dest] = rev
			} else if rev, ok := before[dest]; ok {
				out[dest] = rev
			}
		case before[dest] != "":
			out[dest] = before[dest]
		case priorRev != "":
			out[dest] = priorRev
		}
	}
	for dest := range planned {
		if _, kept := settled[dest]; !kept && given[dest] == revision {
			missed = append(missed, dest) // new here, and its write failed
		}
	}
	if v := stringMapValue(out); !v.Equal(m.Revisions) {
		m.Revisions = v
	}
	slices.Sort(missed)
	return missed
}

// holdWave records that the wave of this apply did not go everywhere it should have: the rollout
// stays where it was, so that the next apply writes the same wave again (to the destinations that
// missed it) rather than the next one, and the missed destinations are waiting.
func (m *promiseModel) holdWave(ctx context.Context, state promiseModel, s staging, missed []string) {
	if len(missed) == 0 || m.RolloutStatus.IsNull() || m.RolloutStatus.IsUnknown() {
		return
	}
	prior := rolloutStatusFrom(ctx, state.RolloutStatus, s.prior)
	attrs := m.RolloutStatus.Attributes()
	revision, _ := attrs["revision"].(types.String)
	attrs["completed_revision"] = types.StringValue(prior.Completed)
	attrs["waves_done"] = types.Int64Value(0)
	attrs["last_wave_at"] = types.StringNull()
	if prior.Target == revision.ValueString() && prior.WavesDone > 0 {
		attrs["waves_done"] = types.Int64Value(int64(prior.WavesDone))
		attrs["last_wave_at"] = types.StringValue(prior.LastWave.UTC().Format(time.RFC3339))
	}
	var waiting []string
	if list, ok := attrs["waiting"].(types.List); ok {
		_ = list.ElementsAs(ctx, &waiting, false) // a list of strings, as the plan set it
	}
	waiting = append(waiting, missed...)
	slices.Sort(waiting)
	attrs["waiting"] = stringList(slices.Compact(waiting))
	m.RolloutStatus = types.ObjectValueMust(rolloutStatusAttrTypes, attrs)
}

// privateSetter is where ModifyPlan leaves private state for the apply.
type privateSetter interface {
	privateData
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// keepRolloutBase keeps the completed revision's YAML while a rollout is in flight, and drops it
// once it is complete.
func keepRolloutBase(ctx context.Context, prior privateData, out privateSetter, s staging) diag.Diagnostics {
	if out == nil {
		return nil
	}
	if s.step != nil && !s.step.Complete && s.base != nil {
		b, err := json.Marshal(s.base)
		if err != nil {
			return nil
		}
		return out.SetKey(ctx, rolloutBaseKey, b)
	}
	if readRolloutBase(ctx, prior) != nil {
		return out.SetKey(ctx, rolloutBaseKey, nil)
	}
	return nil
}

// heldDependencies says which dependencies a destination holds, for Read to look at its files:
// the completed revision's while it waits in a rollout, else the configured ones.
func (m promiseModel) heldDependencies(ctx context.Context, deps layout.Dependencies, private privateData) func(string) layout.Dependencies {
	base := readRolloutBase(ctx, private)
	if base == nil || m.Revisions.IsNull() || base.Revision == rollout.Revision(deps.All) {
		return func(string) layout.Dependencies { return deps }
	}
	baseDeps, ok := dependenciesOf(m.Name.ValueString(), base.Dependencies)
	revisions := stringMap(ctx, m.Revisions)
	return func(dest string) layout.Dependencies {
		if ok && revisions[dest] == base.Revision {
			return baseDeps
		}
		return deps
	}
}
