package provider

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/storeconfig"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

type destinationModel struct {
	ID                 types.String `tfsdk:"id"`
	Name               types.String `tfsdk:"name"`
	Labels             types.Map    `tfsdk:"labels"`
	StateStore         types.Object `tfsdk:"state_store"`
	Path               types.String `tfsdk:"path"`
	StrictMatchLabels  types.Bool   `tfsdk:"strict_match_labels"`
	Taints             types.List   `tfsdk:"taints"`
	Weight             types.Int64  `tfsdk:"weight"`
	FilepathMode       types.String `tfsdk:"filepath_mode"`
	AggregatedFilename types.String `tfsdk:"aggregated_filename"`
	InitWorkloads      types.Bool   `tfsdk:"init_workloads"`
	Cleanup            types.String `tfsdk:"cleanup"`
	Root               types.String `tfsdk:"root"`
	Files              types.Map    `tfsdk:"files"`
	Registration       types.Map    `tfsdk:"registration"`
	InstanceID         types.String `tfsdk:"instance_id"`

	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

// member is the destination as the placement engine sees it; ok is false while the inputs are
// not known.
func (m destinationModel) member() (poolMember, bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	ref, known := storeconfig.FromObject(m.StateStore)
	if !known || m.Path.IsUnknown() || m.FilepathMode.IsUnknown() || m.InitWorkloads.IsUnknown() || m.AggregatedFilename.IsUnknown() {
		return poolMember{}, false, diags
	}
	if ref.Name.ValueString() == "" {
		diags.AddAttributeError(path.Root(storeconfig.AttributeName), "Invalid State Store",
			"state_store.name: the store object has no name. Pass the store resource: state_store = kratix_state_store.<name>.")
		return poolMember{}, false, diags
	}
	if ref.Bucket == nil && ref.Git == nil || ref.Bucket != nil && ref.Git != nil {
		diags.AddAttributeError(path.Root(storeconfig.AttributeName), "Invalid State Store",
			fmt.Sprintf("State store %q must have exactly one of bucket and git. Pass the store resource: state_store = kratix_state_store.<name>.", ref.Name.ValueString()))
		return poolMember{}, false, diags
	}
	root, err := layout.Root(ref.Path.ValueString(), m.Path.ValueString())
	if err != nil {
		diags.Append(invalidPath(path.Root("path"), m.Name.ValueString(), err))
		return poolMember{}, false, diags
	}
	return newPoolMember(ref, scheduling.Destination{Name: m.Name.ValueString()}, root, m.FilepathMode.ValueString(),
		m.AggregatedFilename.ValueString()), true, diags
}

// newInstanceID is a random value (16 hex digits) that names one incarnation of an object: a
// destination's instance_id, a promise's or request's instance token (writelog.go).
func newInstanceID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
