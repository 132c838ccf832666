package provider

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The steady-state server: the provider's protocol server, which answers the steady state of
// kratix_promise and the plans of new promises, destinations and requests (direct_plan.go)
// itself, and
// passes everything else to terraform-plugin-framework.
//
// A promise's value holds its whole pool: a hundred or a thousand destination objects. On every
// request the framework walks such a value several times, node by node, looking each node's
// schema up from the root (NullifyCollectionBlocks, TransformDefaults, the schema's plan
// modifiers, write-only nullification). In a plan of 20 promises x 100 destinations that was
// more than half of the provider's CPU time and made the plan twice Terraform's own cost; the
// same plan answered with no work at all costs 0.8x the fair floor. BenchmarkSteadyState makes
// the three requests below for one promise both ways.
//
// So the three requests a no-change `terraform plan` makes per promise or request (whose value
// holds its promise's pool) are answered here, with the resource's own Read and ModifyPlan and
// the values decoded once:
//   - UpgradeResourceState of a state at the current version: decode and re-encode, with the
//     write-only attributes null, as the framework does;
//   - ReadResource, by calling Read, unless private state holds more than the instance token and
//     the labels files were written under (an import being adopted, say; see steadyPrivate).
//     When Read changes the value, the framework's semantic equality (a value meaning what the
//     state's means keeps the state's) and write-only nulling follow, as in the framework;
//   - PlanResourceChange of a promise or request when nothing changes: the proposed state, with the schema's defaults
//     applied and the write-only attributes null, equals the prior state, and ModifyPlan leaves
//     it as it is without an error. The plan modifiers of these schemas (UseStateForUnknown,
//     RequiresReplace, replace-if-set) do nothing then. A create is planned by direct_plan.go.
//     Any other plan (a change, an import being adopted, an error) goes to the framework.
//
// Everything else goes to the framework. TestPromiseSchemaSteadyStateFeatures lists the schema's
// defaults, plan modifiers, custom types, write-only attributes and identity that these answers
// rely on, and fails when one is added. In the acceptance tests every direct answer is also
// asked of the framework (steady_state_verify_test.go), so a divergence fails the test that
// produced it. The day the framework's own answers cost about as much, this file and its hook in
// NewServer can go.

const (
	promiseTypeName     = "kratix_promise"
	destinationTypeName = "kratix_destination"
	requestTypeName     = "kratix_resource_request"
)

// steadyStateServer is the framework's protocol server with kratix_promise's steady state
// answered directly.
type steadyStateServer struct {
	tfprotov6.ProviderServer // the framework's

	provider *kratixProvider
	schema   schema.Schema
	typ      tftypes.Type
	// creates are the resource types whose creates are planned directly (direct_plan.go).
	creates map[string]*directKind
	// pools are the resource types validated with their pool taken out (validate_pool.go).
	pools map[string]*poolValidation
	// direct are the resource types validated without the framework's walk (validate_direct.go).
	direct map[string]*directValidation
	// steady are the resource types whose steady state is answered here, each with the computed
	// attribute that is known once the object is settled (not an import still to adopt).
	steady map[string]steadyKind
	// check is nil in the served provider. The acceptance tests set it to compare each direct
	// answer with the framework's (steady_state_verify_test.go); what it returns is added to the
	// answer's diagnostics, so a difference fails the test.
	check answerCheck
}

// answerCheck looks at a direct answer and its request and reports what is wrong with it.
type answerCheck interface {
	upgrade(context.Context, *tfprotov6.UpgradeResourceStateRequest, *tfprotov6.UpgradeResourceStateResponse) []*tfprotov6.Diagnostic
	read(context.Context, *tfprotov6.ReadResourceRequest, *tfprotov6.ReadResourceResponse) []*tfprotov6.Diagnostic
	plan(context.Context, *tfprotov6.PlanResourceChangeRequest, *tfprotov6.PlanResourceChangeResponse) []*tfprotov6.Diagnostic
	validate(context.Context, *tfprotov6.ValidateResourceConfigRequest, *tfprotov6.ValidateResourceConfigResponse) []*tfprotov6.Diagnostic
}

// newSteadyStateServer returns the provider's protocol server at the given version.
func newSteadyStateServer(version string) (*steadyStateServer, error) {
	p := newProvider(version)
	fw, err := providerserver.NewProtocol6WithError(p)()
	if err != nil {
		return nil, err
	}
	var sr resource.SchemaResponse
	(&promiseResource{}).Schema(context.Background(), resource.SchemaRequest{}, &sr)
	if sr.Diagnostics.HasError() {
		return nil, fmt.Errorf("kratix_promise schema: %v", sr.Diagnostics)
	}
	creates := map[string]*directKind{}
	for typeName, r := range map[string]func(*providerData) resource.ResourceWithModifyPlan{
		promiseTypeName:     func(d *providerData) resource.ResourceWithModifyPlan { return &promiseResource{data: d} },
		destinationTypeName: func(d *providerData) resource.ResourceWithModifyPlan { return &destinationResource{data: d} },
		requestTypeName:     func(d *providerData) resource.ResourceWithModifyPlan { return &requestResource{data: d} },
	} {
		// A schema this cannot plan is planned by the framework; TestDirectCreateKinds fails then.
		if k, err := directKindOf(context.Background(), typeName, r(nil), r); err == nil {
			creates[typeName] = k
		}
	}
	pools := map[string]*poolValidation{}
	for typeName, at := range map[string][]string{promiseTypeName: {"destinations"}, requestTypeName: {"promise", "destinations"}} {
		k := creates[typeName]
		if k == nil {
			continue
		}
		// A schema whose pool validation must see the whole value is validated by the framework;
		// TestPoolValidation fails then.
		if v, ok := poolValidationOf(context.Background(), k.schema, k.newRes(nil), at...); ok {
			pools[typeName] = v
		}
	}
	direct := map[string]*directValidation{}
	for typeName, k := range creates {
		// A schema the walk does not know whole is validated by the framework (or with its pool
		// taken out); TestDirectValidationKinds fails then for a destination.
		if v, ok := directValidationOf(context.Background(), k.schema, k.newRes(nil)); ok {
			direct[typeName] = v
		}
	}
	steady := map[string]steadyKind{}
	for typeName, settled := range map[string]string{promiseTypeName: "placements", requestTypeName: "written_files"} {
		if k := creates[typeName]; k != nil && k.canApply {
			steady[typeName] = steadyKind{directKind: k, settled: settled}
		}
	}
	return &steadyStateServer{
		ProviderServer: fw, provider: p, schema: sr.Schema,
		typ:     sr.Schema.Type().TerraformType(context.Background()),
		creates: creates, pools: pools, direct: direct, steady: steady,
	}, nil
}

// steadyKind is a resource type whose steady state the server answers.
type steadyKind struct {
	*directKind
	settled string
}

// resource is the resource of kind k, with the provider's data; ok is false before the provider
// is configured.
func (s *steadyStateServer) resourceOf(k steadyKind) (resource.ResourceWithModifyPlan, bool) {
	data := s.provider.configured.Load()
	return k.newRes(data), data != nil
}

func (s *steadyStateServer) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
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
		resp.Diagnostics = append(resp.Diagnostics, s.check.upgrade(ctx, req, resp)...)
	}
	return resp, nil
}

func (s *steadyStateServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	k, ok := s.steady[req.TypeName]
	if !ok || req.CurrentState == nil || !steadyPrivate(req.Private) {
		return s.ProviderServer.ReadResource(ctx, req) // private state holds an import being adopted
	}
	r, ready := s.resourceOf(k)
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
	ctx = context.WithValue(ctx, steadyPrivateCtx{}, req.Private)
	r.Read(ctx, resource.ReadRequest{State: tfsdk.State{Schema: k.schema, Raw: current}}, &rresp)
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
		resp.Diagnostics = append(resp.Diagnostics, s.check.read(ctx, req, resp)...)
	}
	return resp, nil
}

func (s *steadyStateServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
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
		resp.Diagnostics = append(resp.Diagnostics, s.check.plan(ctx, req, resp)...)
	}
	return resp, nil
}

func (s *steadyStateServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	if k := s.creates[req.TypeName]; k != nil {
		if resp, ok := s.applyCreate(ctx, k, req); ok {
			return resp, nil
		}
	}
	return s.ProviderServer.ApplyResourceChange(ctx, req)
}

// planNoChange answers a plan that changes nothing; ok is false for any other.
func (s *steadyStateServer) planNoChange(ctx context.Context, k steadyKind, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, bool) {
	r, ready := s.resourceOf(k)
	if !ready || req.PriorState == nil || req.ProposedNewState == nil || req.Config == nil || !steadyPrivate(req.PriorPrivate) {
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

// emptyPrivate reports whether private state holds nothing.
func emptyPrivate(p []byte) bool { return len(p) == 0 || string(p) == "{}" || string(p) == "null" }

// steadyPrivate reports whether private state holds nothing a steady-state Read or no-change
// plan reads but the keys it knows: nothing at all, or only the object's instance token
// (writelog.go), the labels the promise's files were written under (written_labels.go) and the
// times its destinations were written (observe.go). Neither Read nor a no-change plan reads the
// token; the labels count only for a plan that takes files away, which changes `placements` and
// so is never a no-change plan; Read reads the write times through steadyPrivateKey. The direct
// answer passes all three on untouched.
// Anything else (an import being adopted, a rollout's base) goes to the framework.
func steadyPrivate(p []byte) bool {
	if emptyPrivate(p) {
		return true
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(p, &keys) != nil {
		return false
	}
	for k := range keys {
		if k != writtenLabelsKey && k != instanceKey && k != writtenAtKey {
			return false
		}
	}
	return true
}

// steadyPrivateCtx carries, to a Read the steady-state server calls, the private state the
// request holds: the framework's request type cannot be built outside it.
type steadyPrivateCtx struct{}

// steadyPrivateKey is one key of the private state a steady-state Read was given (nil when none,
// or when the Read came from the framework, whose request holds it).
func steadyPrivateKey(ctx context.Context, key string) []byte {
	raw, _ := ctx.Value(steadyPrivateCtx{}).([]byte)
	if emptyPrivate(raw) {
		return nil
	}
	var keys map[string][]byte // as the framework encodes it: each value base64
	if json.Unmarshal(raw, &keys) != nil {
		return nil
	}
	return keys[key]
}
