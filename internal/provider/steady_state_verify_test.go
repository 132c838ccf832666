package provider

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The verify mode of the steady-state server, for tests only: every answer the server gives
// without the framework is also asked of the framework, and any difference (value, diagnostics,
// private state, a replacement) is added to the answer as an error, which fails the test step
// that produced it. It lives here so that none of it is in the provider users run.

// verifiedServer is NewServer as the acceptance tests serve it: in verify mode.
func verifiedServer(version string) func() (tfprotov6.ProviderServer, error) {
	return func() (tfprotov6.ProviderServer, error) {
		s, _, err := newVerifiedServer(version)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}

// newVerifiedServer returns a steady-state server in verify mode and its check, which counts the
// direct answers it was given.
func newVerifiedServer(version string) (*steadyStateServer, *frameworkCheck, error) {
	s, err := newSteadyStateServer(version)
	if err != nil {
		return nil, nil, err
	}
	c := &frameworkCheck{fw: s.ProviderServer, types: map[string]tftypes.Type{promiseTypeName: s.typ}}
	for name, k := range s.creates {
		c.types[name] = k.typ
	}
	s.check = c
	return s, c, nil
}

// frameworkCheck asks the framework's server each request answered directly and compares.
type frameworkCheck struct {
	fw    tfprotov6.ProviderServer
	types map[string]tftypes.Type // by resource type name

	upgrades, reads, plans, validations atomic.Int64 // direct answers seen
}

var _ answerCheck = (*frameworkCheck)(nil)

func (c *frameworkCheck) upgrade(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest, resp *tfprotov6.UpgradeResourceStateResponse) []*tfprotov6.Diagnostic {
	c.upgrades.Add(1)
	fw, err := c.fw.UpgradeResourceState(ctx, req)
	if err != nil {
		return []*tfprotov6.Diagnostic{directMismatch("UpgradeResourceState", req.TypeName, "the framework failed: "+err.Error())}
	}
	return c.compare("UpgradeResourceState", req.TypeName, resp.UpgradedState, fw.UpgradedState, resp.Diagnostics, fw.Diagnostics, nil, nil)
}

func (c *frameworkCheck) read(ctx context.Context, req *tfprotov6.ReadResourceRequest, resp *tfprotov6.ReadResourceResponse) []*tfprotov6.Diagnostic {
	c.reads.Add(1)
	fw, err := c.fw.ReadResource(ctx, req)
	if err != nil {
		return []*tfprotov6.Diagnostic{directMismatch("ReadResource", req.TypeName, "the framework failed: "+err.Error())}
	}
	return c.compare("ReadResource", req.TypeName, resp.NewState, fw.NewState, resp.Diagnostics, fw.Diagnostics, resp.Private, fw.Private)
}

func (c *frameworkCheck) plan(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest, resp *tfprotov6.PlanResourceChangeResponse) []*tfprotov6.Diagnostic {
	c.plans.Add(1)
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
	return append(out, c.compare("PlanResourceChange", req.TypeName, resp.PlannedState, fw.PlannedState, resp.Diagnostics, fw.Diagnostics, resp.PlannedPrivate, fw.PlannedPrivate)...)
}

func (c *frameworkCheck) validate(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest, resp *tfprotov6.ValidateResourceConfigResponse) []*tfprotov6.Diagnostic {
	c.validations.Add(1)
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

// compare reports how a direct answer differs from the framework's.
func (c *frameworkCheck) compare(rpc, typeName string, direct, fw *tfprotov6.DynamicValue, directDiags, fwDiags []*tfprotov6.Diagnostic, directPrivate, fwPrivate []byte) []*tfprotov6.Diagnostic {
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
