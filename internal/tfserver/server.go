package tfserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Kind registers one resource type with the server.
type Kind struct {
	// TypeName is the resource type's name, as in requests.
	TypeName string
	// Resource returns the resource with the provider's configured data; configured is false
	// before the provider is configured (the resource is then used for its schema only).
	Resource func() (r resource.ResourceWithModifyPlan, configured bool)
	// Settled, when set, is the computed attribute that is known once an object is settled
	// (an imported object still to adopt has it null): the kind's steady state is answered here.
	Settled string
	// Pool, when set, is the path of the list of nested objects validated with the list taken
	// out when the direct walk cannot answer (validate_pool.go).
	Pool []string
	// PrivateKeys are every private-state key the resource sets: a direct answer's private
	// state holds these.
	PrivateKeys []string
	// SteadyPrivateKeys are the private-state keys a steady-state Read or no-change plan passes
	// on untouched; any other key sends the request to the framework.
	SteadyPrivateKeys []string
}

// Server is the framework's protocol server with the registered kinds answered directly.
type Server struct {
	tfprotov6.ProviderServer // the framework's

	// creates are the resource types whose creates are planned directly (direct_plan.go).
	creates map[string]*directKind
	// pools are the resource types validated with their pool taken out (validate_pool.go).
	pools map[string]*poolValidation
	// direct are the resource types validated without the framework's walk (validate_direct.go).
	direct map[string]*directValidation
	// steady are the resource types whose steady state is answered here.
	steady map[string]steadyKind
	// check is nil in the served provider (SetCheck).
	check Check
}

// Check looks at a direct answer and its request and reports what is wrong with it; what it
// returns is added to the answer's diagnostics.
type Check interface {
	Upgrade(context.Context, *tfprotov6.UpgradeResourceStateRequest, *tfprotov6.UpgradeResourceStateResponse) []*tfprotov6.Diagnostic
	Read(context.Context, *tfprotov6.ReadResourceRequest, *tfprotov6.ReadResourceResponse) []*tfprotov6.Diagnostic
	Plan(context.Context, *tfprotov6.PlanResourceChangeRequest, *tfprotov6.PlanResourceChangeResponse) []*tfprotov6.Diagnostic
	Validate(context.Context, *tfprotov6.ValidateResourceConfigRequest, *tfprotov6.ValidateResourceConfigResponse) []*tfprotov6.Diagnostic
}

// SetCheck makes c see every direct answer (tests only: the served provider has none).
func (s *Server) SetCheck(c Check) { s.check = c }

// HasCheck reports whether a Check is set.
func (s *Server) HasCheck() bool { return s.check != nil }

// New returns fw, the framework's server, with the kinds answered directly where their schemas
// allow.
func New(fw tfprotov6.ProviderServer, kinds ...Kind) (*Server, error) {
	ctx := context.Background()
	s := &Server{
		ProviderServer: fw, creates: map[string]*directKind{}, pools: map[string]*poolValidation{},
		direct: map[string]*directValidation{}, steady: map[string]steadyKind{},
	}
	for _, kind := range kinds {
		k, err := directKindOf(ctx, kind)
		if err != nil {
			var sr resource.SchemaResponse
			r, _ := kind.Resource()
			r.Schema(ctx, resource.SchemaRequest{}, &sr)
			if sr.Diagnostics.HasError() {
				return nil, fmt.Errorf("%s schema: %v", kind.TypeName, sr.Diagnostics)
			}
			// A schema this cannot plan is planned by the framework.
			continue
		}
		s.creates[kind.TypeName] = k
		r, _ := kind.Resource()
		if len(kind.Pool) > 0 {
			// A schema whose pool validation must see the whole value is validated by the framework.
			if v, ok := poolValidationOf(ctx, k.schema, r, kind.Pool...); ok {
				s.pools[kind.TypeName] = v
			}
		}
		// A schema the walk does not know whole is validated by the framework (or with its pool
		// taken out).
		if v, ok := directValidationOf(ctx, k.schema, r); ok {
			s.direct[kind.TypeName] = v
		}
		if kind.Settled != "" && k.canApply {
			s.steady[kind.TypeName] = steadyKind{directKind: k, settled: kind.Settled}
		}
	}
	return s, nil
}

// KindError says why a kind's creates are not planned directly (nil when they are).
func KindError(kind Kind) error {
	_, err := directKindOf(context.Background(), kind)
	return err
}

// steadyKind is a resource type whose steady state the server answers.
type steadyKind struct {
	*directKind
	settled string
}

func (s *Server) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	k, ok := s.steady[req.TypeName]
	if !ok || req.Version != k.schema.Version || req.RawState == nil {
		return s.ProviderServer.UpgradeResourceState(ctx, req)
	}
	v, err := req.RawState.UnmarshalWithOpts(k.typ, tfprotov6.UnmarshalOpts{
		ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true},
	})
	if err != nil {
		return s.ProviderServer.UpgradeResourceState(ctx, req) // the framework words the error
	}
	state, err := tfprotov6.NewDynamicValue(k.typ, k.nullWriteOnly(v))
	if err != nil {
		return nil, err
	}
	resp := &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &state}
	if s.check != nil {
		resp.Diagnostics = append(resp.Diagnostics, s.check.Upgrade(ctx, req, resp)...)
	}
	return resp, nil
}

func (s *Server) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	k, ok := s.steady[req.TypeName]
	if !ok || req.CurrentState == nil || !k.steadyPrivate(req.Private) {
		return s.ProviderServer.ReadResource(ctx, req) // private state holds an import being adopted
	}
	r, ready := k.kind.Resource()
	if !ready {
		return s.ProviderServer.ReadResource(ctx, req)
	}
	current, err := req.CurrentState.Unmarshal(k.typ)
	if err != nil {
		return s.ProviderServer.ReadResource(ctx, req)
	}
	// No defensive copies (the framework deep-copies each value): the values were decoded for this
	// request alone, and Read replaces state rather than editing it.
	rresp := resource.ReadResponse{State: tfsdk.State{Schema: k.schema, Raw: current}}
	rreq := resource.ReadRequest{State: tfsdk.State{Schema: k.schema, Raw: current}}
	if diags := setPrivate(ctx, &rreq, req.Private); diags.HasError() {
		return s.ProviderServer.ReadResource(ctx, req) // the framework words the error
	}
	r.Read(ctx, rreq, &rresp)
	if !rresp.Diagnostics.HasError() && !rresp.State.Raw.Equal(current) {
		// As the framework: a value that means what the state's means keeps the state's.
		rresp.Diagnostics.Append(k.keepSemanticallyEqual(ctx, current, &rresp.State)...)
		rresp.State.Raw = k.nullWriteOnly(rresp.State.Raw)
	}
	resp := &tfprotov6.ReadResourceResponse{NewState: req.CurrentState, Private: req.Private}
	if !rresp.State.Raw.Equal(current) {
		state, err := tfprotov6.NewDynamicValue(k.typ, rresp.State.Raw)
		if err != nil {
			return nil, err
		}
		resp.NewState = &state
	}
	resp.Diagnostics = protoDiagnostics(ctx, rresp.Diagnostics)
	if s.check != nil {
		resp.Diagnostics = append(resp.Diagnostics, s.check.Read(ctx, req, resp)...)
	}
	return resp, nil
}

func (s *Server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	var resp *tfprotov6.PlanResourceChangeResponse
	ok := false
	if k, steady := s.steady[req.TypeName]; steady {
		resp, ok = s.planNoChange(ctx, k, req)
	}
	if k := s.creates[req.TypeName]; !ok && k != nil {
		resp, ok = s.planCreate(ctx, k, req)
	}
	if !ok {
		return s.ProviderServer.PlanResourceChange(ctx, req)
	}
	if s.check != nil {
		resp.Diagnostics = append(resp.Diagnostics, s.check.Plan(ctx, req, resp)...)
	}
	return resp, nil
}

func (s *Server) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	if k := s.creates[req.TypeName]; k != nil {
		if resp, ok := s.applyCreate(ctx, k, req); ok {
			return resp, nil
		}
	}
	return s.ProviderServer.ApplyResourceChange(ctx, req)
}

// planNoChange answers a plan that changes nothing; ok is false for any other.
func (s *Server) planNoChange(ctx context.Context, k steadyKind, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, bool) {
	r, ready := k.kind.Resource()
	if !ready || req.PriorState == nil || req.ProposedNewState == nil || req.Config == nil || !k.steadyPrivate(req.PriorPrivate) {
		return nil, false
	}
	prior, err := req.PriorState.Unmarshal(k.typ)
	if err != nil || prior.IsNull() {
		return nil, false
	}
	proposed, err := req.ProposedNewState.Unmarshal(k.typ)
	if err != nil || proposed.IsNull() {
		return nil, false
	}
	config, err := req.Config.Unmarshal(k.typ)
	if err != nil || config.IsNull() {
		return nil, false
	}
	planned, ok := k.withDefaults(proposed, config)
	if !ok || !planned.Equal(prior) || !k.isSettled(prior) {
		return nil, false // a change, or an import still to adopt (ModifyPlan reads private state then)
	}
	mresp := resource.ModifyPlanResponse{Plan: tfsdk.Plan{Schema: k.schema, Raw: planned}}
	r.ModifyPlan(ctx, resource.ModifyPlanRequest{
		Config: tfsdk.Config{Schema: k.schema, Raw: config},
		Plan:   tfsdk.Plan{Schema: k.schema, Raw: planned},
		State:  tfsdk.State{Schema: k.schema, Raw: prior},
	}, &mresp)
	if mresp.Diagnostics.HasError() || len(mresp.RequiresReplace) > 0 || mresp.Deferred != nil || !mresp.Plan.Raw.Equal(planned) {
		return nil, false
	}
	return &tfprotov6.PlanResourceChangeResponse{
		PlannedState:   req.PriorState,
		PlannedPrivate: req.PriorPrivate,
		Diagnostics:    protoDiagnostics(ctx, mresp.Diagnostics),
	}, true
}

// withDefaults is the proposed state with the schema's defaults applied where the configuration
// leaves the attribute null and the write-only attributes null, as the framework does before
// planning. TestDirectCreateKinds keeps the kinds in step with the schemas.
func (k *directKind) withDefaults(proposed, config tftypes.Value) (tftypes.Value, bool) {
	var c map[string]tftypes.Value
	if config.As(&c) != nil {
		return tftypes.Value{}, false
	}
	p, err := attrsCopy(proposed)
	if err != nil {
		return tftypes.Value{}, false
	}
	for name, def := range k.defaults {
		if v, ok := c[name]; !ok {
			return tftypes.Value{}, false
		} else if v.IsNull() {
			p[name] = def
		}
	}
	for _, name := range k.writeOnly {
		p[name] = tftypes.NewValue(p[name].Type(), nil)
	}
	return tftypes.NewValue(proposed.Type(), p), true
}

// isSettled reports whether state's settled attribute is known and set: an imported object
// still to adopt has it null.
func (k steadyKind) isSettled(state tftypes.Value) bool {
	var m map[string]tftypes.Value
	if state.As(&m) != nil {
		return false
	}
	v, ok := m[k.settled]
	return ok && !v.IsNull() && v.IsKnown()
}

// protoDiagnostics converts diagnostics to the protocol's, as the framework does.
func protoDiagnostics(ctx context.Context, diags diag.Diagnostics) []*tfprotov6.Diagnostic {
	var out []*tfprotov6.Diagnostic
	for _, d := range diags {
		pd := &tfprotov6.Diagnostic{Summary: d.Summary(), Detail: d.Detail(), Severity: tfprotov6.DiagnosticSeverityWarning}
		if d.Severity() == diag.SeverityError {
			pd.Severity = tfprotov6.DiagnosticSeverityError
		}
		if wp, ok := d.(diag.DiagnosticWithPath); ok {
			pd.Attribute = attributePath(ctx, wp.Path())
		}
		out = append(out, pd)
	}
	return out
}

func attributePath(ctx context.Context, p path.Path) *tftypes.AttributePath {
	steps := p.Steps()
	if len(steps) == 0 {
		return nil
	}
	out := tftypes.NewAttributePath()
	for _, step := range steps {
		switch st := step.(type) {
		case path.PathStepAttributeName:
			out = out.WithAttributeName(string(st))
		case path.PathStepElementKeyInt:
			out = out.WithElementKeyInt(int(st))
		case path.PathStepElementKeyString:
			out = out.WithElementKeyString(string(st))
		case path.PathStepElementKeyValue:
			v, err := st.ToTerraformValue(ctx)
			if err != nil {
				return out
			}
			out = out.WithElementKeyValue(v)
		}
	}
	return out
}

// steadyPrivate reports whether private state holds nothing a steady-state Read or no-change
// plan must leave to the framework: nothing at all, or only the kind's SteadyPrivateKeys, which
// the direct answer passes on untouched (Read is given them in its request's Private).
// Anything else (an import being adopted, say) goes to the framework.
func (k *directKind) steadyPrivate(p []byte) bool {
	if emptyPrivate(p) {
		return true
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(p, &keys) != nil {
		return false
	}
	for key := range keys {
		if !slices.Contains(k.kind.SteadyPrivateKeys, key) {
			return false
		}
	}
	return true
}
