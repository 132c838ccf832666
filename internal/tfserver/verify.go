package tfserver

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The verify mode, for tests: every answer the server gives without the framework is also asked
// of the framework, and any difference (value, diagnostics, private state, a replacement) is
// added to the answer as an error, which fails the test step that produced it. The served
// provider never sets it (the provider's TestServedProviderHasNoCheck).

// Verify puts the server in verify mode and returns its check, which counts the direct answers.
func (s *Server) Verify() *FrameworkCheck {
	c := &FrameworkCheck{fw: s.ProviderServer, types: map[string]tftypes.Type{}}
	for name, k := range s.creates {
		c.types[name] = k.typ
	}
	s.check = c
	return c
}

// FrameworkCheck asks the framework's server each request answered directly and compares.
type FrameworkCheck struct {
	fw    tfprotov6.ProviderServer
	types map[string]tftypes.Type // by resource type name

	// Upgrades, Reads, Plans and Validations count the direct answers seen.
	Upgrades, Reads, Plans, Validations atomic.Int64
}

var _ Check = (*FrameworkCheck)(nil)

func (c *FrameworkCheck) Upgrade(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest, resp *tfprotov6.UpgradeResourceStateResponse) []*tfprotov6.Diagnostic {
	c.Upgrades.Add(1)
	fw, err := c.fw.UpgradeResourceState(ctx, req)
	if err != nil {
		return []*tfprotov6.Diagnostic{directMismatch("UpgradeResourceState", req.TypeName, "the framework failed: "+err.Error())}
	}
	return c.Compare("UpgradeResourceState", req.TypeName, resp.UpgradedState, fw.UpgradedState, resp.Diagnostics, fw.Diagnostics, nil, nil)
}

func (c *FrameworkCheck) Read(ctx context.Context, req *tfprotov6.ReadResourceRequest, resp *tfprotov6.ReadResourceResponse) []*tfprotov6.Diagnostic {
	c.Reads.Add(1)
	fw, err := c.fw.ReadResource(ctx, req)
	if err != nil {
		return []*tfprotov6.Diagnostic{directMismatch("ReadResource", req.TypeName, "the framework failed: "+err.Error())}
	}
	return c.Compare("ReadResource", req.TypeName, resp.NewState, fw.NewState, resp.Diagnostics, fw.Diagnostics, resp.Private, fw.Private)
}

func (c *FrameworkCheck) Plan(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest, resp *tfprotov6.PlanResourceChangeResponse) []*tfprotov6.Diagnostic {
	c.Plans.Add(1)
	fw, err := c.fw.PlanResourceChange(ctx, req)
	if err != nil {
		return []*tfprotov6.Diagnostic{directMismatch("PlanResourceChange", req.TypeName, "the framework failed: "+err.Error())}
	}
	var out []*tfprotov6.Diagnostic
	if len(fw.RequiresReplace) > 0 {
		if fmt.Sprint(fw.RequiresReplace) != fmt.Sprint(resp.RequiresReplace) {
			out = append(out, directMismatch("PlanResourceChange", req.TypeName, fmt.Sprintf("the framework plans a replacement (%v), the direct answer %v", fw.RequiresReplace, resp.RequiresReplace)))
		}
	}
	return append(out, c.Compare("PlanResourceChange", req.TypeName, resp.PlannedState, fw.PlannedState, resp.Diagnostics, fw.Diagnostics, resp.PlannedPrivate, fw.PlannedPrivate)...)
}

func (c *FrameworkCheck) Validate(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest, resp *tfprotov6.ValidateResourceConfigResponse) []*tfprotov6.Diagnostic {
	c.Validations.Add(1)
	fw, err := c.fw.ValidateResourceConfig(ctx, req)
	if err != nil {
		return []*tfprotov6.Diagnostic{directMismatch("ValidateResourceConfig", req.TypeName, "the framework failed: "+err.Error())}
	}
	// The same diagnostics, in any order: the framework's own order follows a map's.
	a, b := diagnosticLines(resp.Diagnostics), diagnosticLines(fw.Diagnostics)
	if !slices.Equal(a, b) {
		return []*tfprotov6.Diagnostic{directMismatch("ValidateResourceConfig", req.TypeName, fmt.Sprintf("diagnostics: direct %q, framework %q", a, b))}
	}
	return nil
}

func diagnosticLines(diags []*tfprotov6.Diagnostic) []string {
	var out []string
	for _, d := range diags {
		out = append(out, fmt.Sprintf("%v|%s|%s|%v", d.Severity, d.Summary, d.Detail, d.Attribute))
	}
	slices.Sort(out)
	return out
}

// Compare reports how a direct answer differs from the framework's.
func (c *FrameworkCheck) Compare(rpc, typeName string, direct, fw *tfprotov6.DynamicValue, directDiags, fwDiags []*tfprotov6.Diagnostic, directPrivate, fwPrivate []byte) []*tfprotov6.Diagnostic {
	var out []*tfprotov6.Diagnostic
	dv, derr := decodeOrNull(direct, c.types[typeName])
	fv, ferr := decodeOrNull(fw, c.types[typeName])
	if derr != nil || ferr != nil || !dv.Equal(fv) {
		out = append(out, directMismatch(rpc, typeName, fmt.Sprintf("value: direct %v (%v), framework %v (%v)", dv, derr, fv, ferr)))
	}
	if a, b := protoDiagnosticsText(directDiags), protoDiagnosticsText(fwDiags); a != b {
		out = append(out, directMismatch(rpc, typeName, fmt.Sprintf("diagnostics: direct %q, framework %q", a, b)))
	}
	if !samePrivate(directPrivate, fwPrivate) {
		out = append(out, directMismatch(rpc, typeName, fmt.Sprintf("private state: direct %q, framework %q", directPrivate, fwPrivate)))
	}
	return out
}

func decodeOrNull(v *tfprotov6.DynamicValue, typ tftypes.Type) (tftypes.Value, error) {
	if v == nil {
		return tftypes.NewValue(typ, nil), nil
	}
	return v.Unmarshal(typ)
}

func protoDiagnosticsText(diags []*tfprotov6.Diagnostic) string {
	var b bytes.Buffer
	for _, d := range diags {
		fmt.Fprintf(&b, "%v|%s|%s|%v\n", d.Severity, d.Summary, d.Detail, d.Attribute)
	}
	return b.String()
}

// samePrivate treats no private state and an empty one as the same.
func samePrivate(a, b []byte) bool {
	return bytes.Equal(a, b) || (emptyPrivate(a) && emptyPrivate(b))
}

func directMismatch(rpc, typeName, detail string) *tfprotov6.Diagnostic {
	return &tfprotov6.Diagnostic{
		Severity: tfprotov6.DiagnosticSeverityError,
		Summary:  "Direct Answer Differs From The Framework's",
		Detail:   rpc + " of " + typeName + ": " + detail,
	}
}
