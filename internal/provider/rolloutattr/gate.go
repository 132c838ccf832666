package rolloutattr

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/promise-platform/terraform-provider-kratix/internal/health"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schemautil"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/rollout"
)

// A rollout's gate and windows: the configuration (`rollout.gate`, `rollout.windows`). What the
// gate reads (`health`, as the last refresh found it) is the glue's (promise_rollout.go's
// gateHealth); the decisions are package rollout's.

type gateModel struct {
	States            types.List           `tfsdk:"states"`
	MinHealthyPercent types.Int64          `tfsdk:"min_healthy_percent"`
	Settle            timetypes.GoDuration `tfsdk:"settle"`
	Timeout           timetypes.GoDuration `tfsdk:"timeout"`
	OnFailure         types.String         `tfsdk:"on_failure"`
}

type windowModel struct {
	Kind     types.String `tfsdk:"kind"`
	Schedule types.String `tfsdk:"schedule"`
	Duration types.String `tfsdk:"duration"` // plain text: a custom type in a list is not applied directly
	TimeZone types.String `tfsdk:"time_zone"`
}

const (
	windowAllow = "allow"
	windowDeny  = "deny"
)

func GateSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "Holds the next wave until the destinations of the waves already written report, through " +
			"`observe`, that they run it (see `health`): a destination passes when its record is fresh, made at least " +
			"`settle` after its wave was written, in one of `states`, and (on git) not reporting another revision. " +
			"Every scheduled destination that holds the new revision is judged, whatever wave it is in now (one relabelled " +
			"out of the canary wave still counts); when none holds it (drained, left the promise, moved), the gate does not " +
			"pass: the waves done are written again to their destinations that wait, and no later wave goes. " +
			"Needs `observe`. The plan's rollout warning gives the verdict per destination.",
		Attributes: map[string]schema.Attribute{
			"states": schema.ListAttribute{
				ElementType: types.StringType, Optional: true,
				MarkdownDescription: "The states that pass; `[\"healthy\", \"ready\"]` when unset.",
				Validators: []validator.List{
					listvalidator.SizeAtLeast(1),
					listvalidator.ValueStringsAre(stringvalidator.OneOf(health.States...)),
				},
			},
			"min_healthy_percent": schema.Int64Attribute{
				Optional: true, MarkdownDescription: "The share of those destinations that must pass, 1 to 100; 100 when unset.",
				Validators: []validator.Int64{int64validator.Between(1, 100)},
			},
			"settle": schema.StringAttribute{
				Optional: true, CustomType: timetypes.GoDurationType{},
				MarkdownDescription: "How long after a wave is written its destinations' records start to count (a Go duration).",
				Validators:          []validator.String{schemautil.NotNegative{}},
			},
			"timeout": schema.StringAttribute{
				Optional: true, CustomType: timetypes.GoDurationType{},
				MarkdownDescription: "How long after a wave is written the gate may take to pass; then it has failed and " +
					"`on_failure` says what happens. Unset: the gate holds as long as it takes.",
				Validators: []validator.String{schemautil.NotNegative{}},
			},
			"on_failure": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "`pause` (the default: nothing advances, the plan says why) or `rollback` (every destination " +
					"holding the failed revision gets the revision that last went everywhere back, byte for byte, and " +
					"`rollout_status.failed_revision` keeps it from being rolled out again until `dependencies` change).",
				Validators: []validator.String{stringvalidator.OneOf(rollout.OnFailurePause, rollout.OnFailureRollback)},
			},
		},
	}
}

// WindowsSchema is `rollout.windows`: when waves may be written.
func WindowsSchema() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Optional: true,
		MarkdownDescription: "When waves may be written. Outside every `allow` window (when there is one) or inside a " +
			"`deny` window, a plan writes no wave and says when the rollout opens again; a destination new here still " +
			"gets the revision that last went everywhere, and a rollback or an immediate revert is not held.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"kind": schema.StringAttribute{
				Required: true, MarkdownDescription: "`allow` or `deny`.",
				Validators: []validator.String{stringvalidator.OneOf(windowAllow, windowDeny)},
			},
			"schedule": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "When the window starts: a five-field cron expression (`\"0 9 * * 1-5\"`) or a descriptor such as `@daily`, in `time_zone`.",
			},
			"duration": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "How long the window lasts from each start (a Go duration such as `\"8h\"`).",
				Validators:          []validator.String{windowDuration{}},
			},
			"time_zone": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "The IANA time zone the schedule is read in, such as `Europe/London`; UTC when unset.",
			},
		}},
	}
}

// GateOf converts `rollout.gate`: nil without one; ok is false while any of it is unknown.
func GateOf(ctx context.Context, obj types.Object, diags *diag.Diagnostics) (*rollout.Gate, bool) {
	if obj.IsNull() {
		return nil, true
	}
	if obj.IsUnknown() {
		return nil, false
	}
	var m gateModel
	if diags.Append(obj.As(ctx, &m, basetypes.ObjectAsOptions{})...); diags.HasError() {
		return nil, false
	}
	if m.States.IsUnknown() || m.MinHealthyPercent.IsUnknown() || m.Settle.IsUnknown() || m.Timeout.IsUnknown() || m.OnFailure.IsUnknown() {
		return nil, false
	}
	g := &rollout.Gate{MinHealthyPercent: int(m.MinHealthyPercent.ValueInt64()), OnFailure: m.OnFailure.ValueString()}
	if !m.States.IsNull() {
		for _, v := range m.States.Elements() {
			s, ok := v.(types.String)
			if !ok || s.IsUnknown() {
				return nil, false
			}
			g.States = append(g.States, s.ValueString())
		}
	}
	g.Settle = durationOf(m.Settle)
	g.Timeout = durationOf(m.Timeout)
	return g, true
}

// durationOf is a duration attribute's value; 0 when null (its type validated it).
func durationOf(v timetypes.GoDuration) time.Duration {
	if v.IsNull() || v.IsUnknown() {
		return 0
	}
	d, _ := v.ValueGoDuration()
	return d
}

// WindowsOf converts `rollout.windows`, each parsed once so that a schedule or time zone that is
// wrong is an error on its attribute; ok is false while any of it is unknown or wrong.
func WindowsOf(ctx context.Context, at path.Path, list types.List, diags *diag.Diagnostics) ([]rollout.Window, bool) {
	if list.IsNull() {
		return nil, true
	}
	models, known, d := tfvalue.ObjectsAs[windowModel](ctx, list)
	if diags.Append(d...); !known || diags.HasError() {
		return nil, false
	}
	out := make([]rollout.Window, 0, len(models))
	for _, m := range models {
		if m.Kind.IsUnknown() || m.Schedule.IsUnknown() || m.Duration.IsUnknown() || m.TimeZone.IsUnknown() {
			return nil, false
		}
		out = append(out, rollout.Window{
			Allow: m.Kind.ValueString() == windowAllow, Schedule: m.Schedule.ValueString(),
			Duration: positiveDurationOf(m.Duration), TimeZone: m.TimeZone.ValueString(),
		})
	}
	if _, errs := rollout.ParseWindows(out); len(errs) > 0 {
		for _, e := range errs {
			p := at.AtListIndex(e.Index).AtName(e.Field)
			diags.AddAttributeError(p, "Invalid Rollout Window", fmt.Sprintf("%s: %v", p, e.Err))
		}
		return nil, false
	}
	return out, true
}

// CheckGateObserves refuses a gate without observe: it would have nothing to read and hold
// every rollout forever.
func CheckGateObserves(policy *rollout.Policy, observe types.Object) diag.Diagnostics {
	var diags diag.Diagnostics
	if policy == nil || policy.Gate == nil || !observe.IsNull() {
		return diags
	}
	at := path.Root("rollout").AtName("gate")
	diags.AddAttributeError(at, "Gate Without Observe",
		fmt.Sprintf("%s: a gate reads what the destinations report through `observe`, which this promise does not set: "+
			"every wave after the first would wait forever. Set `observe` (see the guide \"Knowing it runs\"), or remove the gate.", at))
	return diags
}

// windowDuration requires a Go duration of more than zero.
type windowDuration struct{}

func (windowDuration) Description(context.Context) string {
	return "must be a duration of more than zero, such as \"8h\""
}

func (v windowDuration) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (windowDuration) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if d, err := time.ParseDuration(req.ConfigValue.ValueString()); err != nil || d <= 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Duration",
			fmt.Sprintf("%s: %q is not a duration of more than zero: give one such as \"30m\" or \"8h\".", req.Path, req.ConfigValue.ValueString()))
	}
}

// positiveDurationOf is a duration text's value (validated by windowDuration); 0 otherwise.
func positiveDurationOf(v types.String) time.Duration {
	d, _ := time.ParseDuration(v.ValueString())
	return d
}
