package tfserver

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Direct plans of new objects: the plan of an object of a registered kind that does not exist
// yet, answered without the framework.
//
// A first apply plans every object twice (once for the plan, once again in the apply), and the
// framework walks each value node by node several times per plan (defaults, unknown marking,
// plan modifiers of every nested attribute), looking each node's schema up from the root. For a
// promise over a hundred destinations that was about 130 ms of its 180 ms plan, and for each
// destination 2 ms of 2.5; in B2 e2e, a third of the provider's CPU time.
//
// What the framework does to plan a create, for the schemas these two resources have, is short,
// and is done here in the same order on the values decoded once:
//  1. the proposed state, with each attribute's default where the configuration leaves it null,
//     and each write-only attribute null;
//  2. each computed attribute without a default that the configuration leaves null, unknown;
//  3. each attribute's plan modifiers, called as the framework calls them (on a create they
//     change nothing in these schemas, but they are called, so a new one is honoured);
//  4. the resource's ModifyPlan, with a private state of the framework's own type.
//
// directKindOf checks, once, that a schema has nothing else this needs to know about: defaults,
// plan modifiers, computed values and write-only attributes only at the top level (a computed
// nested value only inside a computed-only parent, which becomes unknown whole), no identity. A schema with anything more is planned by the framework, and
// TestDirectCreateKinds fails so that the change is seen. In the acceptance tests every direct
// plan is also asked of the framework and compared (steady_state_verify_test.go).

// directKind is what a direct create plan needs to know of one resource type.
type directKind struct {
	typeName string
	schema   schema.Schema
	typ      tftypes.Type
	kind     Kind
	// defaults are the top-level attributes' defaults, as Terraform values.
	defaults map[string]tftypes.Value
	// computed are the top-level computed attributes without a default.
	computed []string
	// modifiers are the top-level attributes with plan modifiers.
	modifiers []directModifiers
	// writeOnly are the top-level write-only attributes, null in every plan.
	writeOnly []string
	// semantic are the attributes of types with semantic equality, which a direct apply keeps as
	// planned when the new value means the same; canApply is false when a create must be applied
	// by the framework (semanticPaths).
	semantic []path.Path
	canApply bool
}

type directModifiers struct {
	name    string
	strings []planmodifier.String
	bools   []planmodifier.Bool
	objects []planmodifier.Object
}

// directKindOf reads what a direct create plan needs from a resource's schema; ok is false when
// the schema has something it does not handle.
func directKindOf(ctx context.Context, kind Kind) (*directKind, error) {
	typeName := kind.TypeName
	r, _ := kind.Resource()
	var sr resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sr)
	if sr.Diagnostics.HasError() {
		return nil, fmt.Errorf("%s schema: %v", typeName, sr.Diagnostics)
	}
	if _, ok := r.(resource.ResourceWithIdentity); ok {
		return nil, fmt.Errorf("%s has an identity", typeName)
	}
	k := &directKind{
		typeName: typeName, schema: sr.Schema, typ: sr.Schema.Type().TerraformType(ctx),
		kind: kind, defaults: map[string]tftypes.Value{},
	}
	for name, a := range sr.Schema.Attributes {
		if err := k.readAttribute(ctx, name, a); err != nil {
			return nil, fmt.Errorf("%s.%s: %w", typeName, name, err)
		}
	}
	k.semantic, k.canApply = semanticPaths(ctx, sr.Schema.Attributes)
	for name, b := range sr.Schema.Blocks {
		if semanticInside(ctx, b.Type()) || semanticKind(ctx, b.Type()) != "" {
			k.canApply = false
		}
		if hasDefaultOrModifiers(b) {
			return nil, fmt.Errorf("%s block %s has plan modifiers", typeName, name)
		}
		if err := plainNested(b); err != nil {
			return nil, fmt.Errorf("%s block %s: %w", typeName, name, err)
		}
	}
	return k, nil
}

func (k *directKind) readAttribute(ctx context.Context, name string, a schema.Attribute) error {
	if a.IsWriteOnly() {
		if a.IsComputed() || hasDefaultOrModifiers(a) {
			return fmt.Errorf("a write-only attribute with a default, plan modifiers or computed")
		}
		k.writeOnly = append(k.writeOnly, name)
		return nil
	}
	p := path.Root(name)
	switch a := a.(type) {
	case schema.StringAttribute:
		if a.Default != nil {
			var resp defaults.StringResponse
			a.Default.DefaultString(ctx, defaults.StringRequest{Path: p}, &resp)
			if err := k.addDefault(ctx, name, resp.PlanValue, resp.Diagnostics); err != nil {
				return err
			}
		}
		if len(a.PlanModifiers) > 0 {
			k.modifiers = append(k.modifiers, directModifiers{name: name, strings: a.PlanModifiers})
		}
	case schema.BoolAttribute:
		if a.Default != nil {
			var resp defaults.BoolResponse
			a.Default.DefaultBool(ctx, defaults.BoolRequest{Path: p}, &resp)
			if err := k.addDefault(ctx, name, resp.PlanValue, resp.Diagnostics); err != nil {
				return err
			}
		}
		if len(a.PlanModifiers) > 0 {
			k.modifiers = append(k.modifiers, directModifiers{name: name, bools: a.PlanModifiers})
		}
	case schema.SingleNestedAttribute:
		if a.Default != nil {
			return fmt.Errorf("a default on an object")
		}
		if len(a.PlanModifiers) > 0 {
			k.modifiers = append(k.modifiers, directModifiers{name: name, objects: a.PlanModifiers})
		}
	default:
		if hasDefaultOrModifiers(a) {
			return fmt.Errorf("a default or plan modifier on a %T", a)
		}
	}
	if _, ok := k.defaults[name]; !ok && a.IsComputed() {
		k.computed = append(k.computed, name)
	}
	if a.IsComputed() && !a.IsOptional() && !a.IsRequired() {
		return nil // all of it becomes unknown on a create, nested values included
	}
	return plainNested(a)
}

func (k *directKind) addDefault(ctx context.Context, name string, v attr.Value, diags diag.Diagnostics) error {
	if diags.HasError() {
		return fmt.Errorf("default: %v", diags)
	}
	tv, err := v.ToTerraformValue(ctx)
	if err != nil {
		return err
	}
	k.defaults[name] = tv
	return nil
}

// plainNested checks that a block, or the nested object of an attribute, has no default, plan
// modifier, computed or write-only value anywhere inside. The framework's nested schema types
// are internal to it, so the walk goes by their fields: Attributes, Blocks and NestedObject.
func plainNested(v any) error {
	var walk func(where string, v reflect.Value) error
	walk = func(where string, v reflect.Value) error {
		for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return nil
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return nil
		}
		for _, flag := range []string{"Computed", "WriteOnly"} {
			if f := v.FieldByName(flag); f.IsValid() && f.Kind() == reflect.Bool && f.Bool() {
				return fmt.Errorf("%s is %s", where, strings.ToLower(flag))
			}
		}
		if f := v.FieldByName("Default"); f.IsValid() && !f.IsZero() {
			return fmt.Errorf("%s has a default", where)
		}
		if f := v.FieldByName("PlanModifiers"); f.IsValid() && f.Len() > 0 {
			return fmt.Errorf("%s has plan modifiers", where)
		}
		for _, field := range []string{"Attributes", "Blocks"} {
			if f := v.FieldByName(field); f.IsValid() && f.Kind() == reflect.Map {
				for _, k := range f.MapKeys() {
					if err := walk(where+"."+k.String(), f.MapIndex(k)); err != nil {
						return err
					}
				}
			}
		}
		if f := v.FieldByName("NestedObject"); f.IsValid() {
			return walk(where+"[*]", f)
		}
		return nil
	}
	v0 := reflect.ValueOf(v)
	for v0.Kind() == reflect.Interface || v0.Kind() == reflect.Pointer {
		v0 = v0.Elem()
	}
	// The attribute or block itself was checked by the caller: walk what it holds.
	for _, field := range []string{"Attributes", "Blocks"} {
		if f := v0.FieldByName(field); f.IsValid() && f.Kind() == reflect.Map {
			for _, k := range f.MapKeys() {
				if err := walk(k.String(), f.MapIndex(k)); err != nil {
					return err
				}
			}
		}
	}
	if f := v0.FieldByName("NestedObject"); f.IsValid() {
		return walk("[*]", f)
	}
	return nil
}

// hasDefaultOrModifiers reports whether an attribute or block of any kind has a default or plan
// modifiers.
func hasDefaultOrModifiers(a any) bool {
	v := reflect.Indirect(reflect.ValueOf(a))
	if f := v.FieldByName("Default"); f.IsValid() && !f.IsZero() {
		return true
	}
	f := v.FieldByName("PlanModifiers")
	return f.IsValid() && f.Len() > 0
}

// planCreate answers the plan of a new object of kind k; ok is false for any other plan.
func (s *Server) planCreate(ctx context.Context, k *directKind, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, bool) {
	r, configured := k.kind.Resource()
	if !configured || req.ProposedNewState == nil || req.Config == nil || !emptyPrivate(req.PriorPrivate) {
		return nil, false
	}
	if req.PriorState != nil {
		prior, err := req.PriorState.Unmarshal(k.typ)
		if err != nil || !prior.IsNull() {
			return nil, false
		}
	}
	proposed, err := req.ProposedNewState.Unmarshal(k.typ)
	if err != nil || proposed.IsNull() || !proposed.IsKnown() {
		return nil, false
	}
	config, err := req.Config.Unmarshal(k.typ)
	if err != nil || config.IsNull() || !config.IsKnown() {
		return nil, false
	}
	var c map[string]tftypes.Value
	if config.As(&c) != nil {
		return nil, false
	}
	p, err := attrsCopy(proposed)
	if err != nil {
		return nil, false
	}
	for name, def := range k.defaults {
		if c[name].IsNull() {
			p[name] = def
		}
	}
	for _, name := range k.writeOnly {
		p[name] = tftypes.NewValue(p[name].Type(), nil)
	}
	for _, name := range k.computed {
		if c[name].IsNull() {
			p[name] = tftypes.NewValue(p[name].Type(), tftypes.UnknownValue)
		}
	}
	null := tftypes.NewValue(k.typ, nil)
	cfg := tfsdk.Config{Schema: k.schema, Raw: config}
	state := tfsdk.State{Schema: k.schema, Raw: null}
	resp := resource.ModifyPlanResponse{Plan: tfsdk.Plan{Schema: k.schema, Raw: tftypes.NewValue(k.typ, p)}, RequiresReplace: path.Paths{}}
	if diags := setPrivate(ctx, &resp, nil); diags.HasError() {
		return nil, false
	}
	// As in the framework, every attribute's modifiers see the plan as it was before any of them.
	before := resp.Plan
	for _, m := range k.modifiers {
		resp.Diagnostics.Append(modifyAttribute(ctx, m, cfg, before, state, &resp)...)
		if resp.Diagnostics.HasError() {
			return s.planAnswer(ctx, k, resp)
		}
	}
	var caps resource.ModifyPlanClientCapabilities
	if req.ClientCapabilities != nil {
		caps.DeferralAllowed = req.ClientCapabilities.DeferralAllowed
	}
	r.ModifyPlan(ctx, resource.ModifyPlanRequest{
		ClientCapabilities: caps, Config: cfg, Plan: resp.Plan, State: state, Private: resp.Private,
	}, &resp)
	return s.planAnswer(ctx, k, resp)
}

// modifyAttribute runs one attribute's plan modifiers as the framework does: in order, each
// seeing the value the one before planned, stopping at an error.
func modifyAttribute(ctx context.Context, m directModifiers, cfg tfsdk.Config, plan tfsdk.Plan, state tfsdk.State, resp *resource.ModifyPlanResponse) diag.Diagnostics {
	p := path.Root(m.name)
	switch {
	case len(m.strings) > 0:
		return runModifiers(ctx, p, cfg, plan, state, resp, m.strings, func(mod planmodifier.String, c, v, s types.String) (types.String, bool, diag.Diagnostics) {
			out := planmodifier.StringResponse{PlanValue: v, Private: resp.Private}
			mod.PlanModifyString(ctx, planmodifier.StringRequest{Path: p, PathExpression: p.Expression(), Config: cfg, ConfigValue: c,
				Plan: plan, PlanValue: v, State: state, StateValue: s, Private: resp.Private}, &out)
			resp.Private = out.Private
			return out.PlanValue, out.RequiresReplace, out.Diagnostics
		})
	case len(m.bools) > 0:
		return runModifiers(ctx, p, cfg, plan, state, resp, m.bools, func(mod planmodifier.Bool, c, v, s types.Bool) (types.Bool, bool, diag.Diagnostics) {
			out := planmodifier.BoolResponse{PlanValue: v, Private: resp.Private}
			mod.PlanModifyBool(ctx, planmodifier.BoolRequest{Path: p, PathExpression: p.Expression(), Config: cfg, ConfigValue: c,
				Plan: plan, PlanValue: v, State: state, StateValue: s, Private: resp.Private}, &out)
			resp.Private = out.Private
			return out.PlanValue, out.RequiresReplace, out.Diagnostics
		})
	case len(m.objects) > 0:
		return runModifiers(ctx, p, cfg, plan, state, resp, m.objects, func(mod planmodifier.Object, c, v, s types.Object) (types.Object, bool, diag.Diagnostics) {
			out := planmodifier.ObjectResponse{PlanValue: v, Private: resp.Private}
			mod.PlanModifyObject(ctx, planmodifier.ObjectRequest{Path: p, PathExpression: p.Expression(), Config: cfg, ConfigValue: c,
				Plan: plan, PlanValue: v, State: state, StateValue: s, Private: resp.Private}, &out)
			resp.Private = out.Private
			return out.PlanValue, out.RequiresReplace, out.Diagnostics
		})
	}
	return nil
}

// runModifiers reads the attribute at p from the configuration, the plan and the state, runs
// each modifier (call) on the value the one before planned, and writes the planned value back
// when it changed; a modifier asking for a replacement adds p to the response's.
func runModifiers[V attr.Value, M any](ctx context.Context, p path.Path, cfg tfsdk.Config, plan tfsdk.Plan, state tfsdk.State,
	resp *resource.ModifyPlanResponse, mods []M, call func(mod M, configValue, planValue, stateValue V) (V, bool, diag.Diagnostics)) diag.Diagnostics {
	var diags diag.Diagnostics
	var configValue, planValue, stateValue V
	diags.Append(cfg.GetAttribute(ctx, p, &configValue)...)
	diags.Append(plan.GetAttribute(ctx, p, &planValue)...)
	diags.Append(state.GetAttribute(ctx, p, &stateValue)...)
	if diags.HasError() {
		return diags
	}
	next := planValue
	for _, mod := range mods {
		v, replace, d := call(mod, configValue, next, stateValue)
		next = v
		diags.Append(d...)
		if replace {
			resp.RequiresReplace.Append(p)
		}
		if diags.HasError() {
			return diags
		}
	}
	if !next.Equal(planValue) {
		diags.Append(resp.Plan.SetAttribute(ctx, p, next)...)
	}
	return diags
}

// planAnswer is the protocol's answer from a finished ModifyPlan: as the framework's, it holds the
// planned state and private state even beside an error.
func (s *Server) planAnswer(ctx context.Context, k *directKind, resp resource.ModifyPlanResponse) (*tfprotov6.PlanResourceChangeResponse, bool) {
	out := &tfprotov6.PlanResourceChangeResponse{Diagnostics: protoDiagnostics(ctx, resp.Diagnostics)}
	if resp.Deferred != nil {
		out.Deferred = &tfprotov6.Deferred{Reason: tfprotov6.DeferredReason(resp.Deferred.Reason)}
	}
	planned, err := tfprotov6.NewDynamicValue(k.typ, resp.Plan.Raw)
	if err != nil {
		return nil, false
	}
	out.PlannedState = &planned
	private, diags := privateBytes(ctx, resp.Private, k.kind.PrivateKeys)
	out.Diagnostics = append(out.Diagnostics, protoDiagnostics(ctx, diags)...)
	out.PlannedPrivate = private
	for _, p := range normaliseRequiresReplace(resp.RequiresReplace) {
		out.RequiresReplace = append(out.RequiresReplace, attributePath(ctx, p))
	}
	return out, true
}

// normaliseRequiresReplace sorts the paths by their text and drops repeats, as the framework does.
func normaliseRequiresReplace(paths path.Paths) path.Paths {
	if len(paths) < 2 {
		return paths
	}
	sort.Slice(paths, func(i, j int) bool { return paths[i].String() < paths[j].String() })
	out := path.Paths{paths[0]}
	for _, p := range paths[1:] {
		if !p.Equal(out[len(out)-1]) {
			out = append(out, p)
		}
	}
	return out
}

// Direct applies of creates: ApplyResourceChange of a new object of a kind planned directly,
// answered as the framework's CreateResource answers it, for the same reason (its walks of the
// planned and the new value cost more than the create itself). In order:
//  1. Create, with the plan and configuration, a null state and an empty private state;
//  2. no state after a create without an error is the framework's error;
//  3. semantic equality: each attribute of a type with semantic equality (the dependencies, a
//     duration, a time) that holds a value the plan means the same by takes the planned value
//     back, so that Terraform sees no inconsistency;
//  4. the write-only attributes, null.
//
// directKindOf finds the attributes of step 3 (semantic) and refuses the direct apply
// (canApply false) when one is inside a list, set or map: those the framework compares element
// by element. An apply cannot be asked of the framework a second time, as the plans are, so the
// acceptance tests check its result as they check every apply: the state they read back, and
// the empty plan that follows each step.

// applyCreate answers the apply of a new object of kind k; ok is false for any other.
func (s *Server) applyCreate(ctx context.Context, k *directKind, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, bool) {
	res, configured := k.kind.Resource()
	if !k.canApply || !configured || req.PlannedState == nil || req.Config == nil {
		return nil, false
	}
	if req.PriorState != nil {
		prior, err := req.PriorState.Unmarshal(k.typ)
		if err != nil || !prior.IsNull() {
			return nil, false
		}
	}
	planned, err := req.PlannedState.Unmarshal(k.typ)
	if err != nil || planned.IsNull() {
		return nil, false
	}
	config, err := req.Config.Unmarshal(k.typ)
	if err != nil {
		return nil, false
	}
	r, ok := res.(resource.Resource)
	if !ok {
		return nil, false
	}
	null := tftypes.NewValue(k.typ, nil)
	resp := resource.CreateResponse{State: tfsdk.State{Schema: k.schema, Raw: null}}
	if diags := setPrivate(ctx, &resp, nil); diags.HasError() {
		return nil, false
	}
	plan := tfsdk.Plan{Schema: k.schema, Raw: planned}
	r.Create(ctx, resource.CreateRequest{Config: tfsdk.Config{Schema: k.schema, Raw: config}, Plan: plan}, &resp)
	if !resp.Diagnostics.HasError() && resp.State.Raw.Equal(null) {
		resp.Diagnostics.AddError("Missing Resource State After Create", missingStateDetail(r))
	}
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(k.keepSemanticallyEqual(ctx, planned, &resp.State)...)
	}
	if !resp.Diagnostics.HasError() {
		resp.State.Raw = k.nullWriteOnly(resp.State.Raw)
	}
	out := &tfprotov6.ApplyResourceChangeResponse{Diagnostics: protoDiagnostics(ctx, resp.Diagnostics)}
	state, err := tfprotov6.NewDynamicValue(k.typ, resp.State.Raw)
	if err != nil {
		return nil, false
	}
	out.NewState = &state
	private, diags := privateBytes(ctx, resp.Private, k.kind.PrivateKeys)
	out.Diagnostics = append(out.Diagnostics, protoDiagnostics(ctx, diags)...)
	out.Private = private
	return out, true
}

// nullWriteOnly is v with the write-only attributes null, as the framework returns every state.
func (k *directKind) nullWriteOnly(v tftypes.Value) tftypes.Value {
	if len(k.writeOnly) == 0 || v.IsNull() || !v.IsKnown() {
		return v
	}
	m, err := attrsCopy(v)
	if err != nil {
		return v
	}
	for _, name := range k.writeOnly {
		m[name] = tftypes.NewValue(m[name].Type(), nil)
	}
	return tftypes.NewValue(v.Type(), m)
}

// missingStateDetail is the framework's detail for a create that left no state.
func missingStateDetail(r resource.Resource) string {
	detail := "The Terraform Provider unexpectedly returned no resource state after having no errors in the resource creation. " +
		"This is always an issue in the Terraform Provider and should be reported to the provider developers.\n\n" +
		"The resource may have been successfully created, but Terraform is not tracking it. " +
		"Applying the configuration again with no other action may result in duplicate resource errors."
	if _, ok := r.(resource.ResourceWithImportState); ok {
		detail += " Import the resource if the resource was actually created and Terraform should be tracking it."
	}
	return detail
}

// keepSemanticallyEqual puts the prior value (planned, or read before) back where the new state
// holds one it means the same by (the framework's semantic equality, for string types).
func (k *directKind) keepSemanticallyEqual(ctx context.Context, priorRaw tftypes.Value, state *tfsdk.State) diag.Diagnostics {
	var diags diag.Diagnostics
	plan := tfsdk.State{Schema: k.schema, Raw: priorRaw}
	for _, p := range k.semantic {
		var prior, next attr.Value
		diags.Append(plan.GetAttribute(ctx, p, &prior)...)
		diags.Append(state.GetAttribute(ctx, p, &next)...)
		if diags.HasError() {
			return diags
		}
		if prior == nil || next == nil || prior.IsNull() || prior.IsUnknown() || next.IsNull() || next.IsUnknown() {
			continue
		}
		pv, ok1 := prior.(basetypes.StringValuableWithSemanticEquals)
		nv, ok2 := next.(basetypes.StringValuableWithSemanticEquals)
		if !ok1 || !ok2 {
			continue
		}
		same, d := nv.StringSemanticEquals(ctx, pv)
		diags.Append(d...)
		if same && !next.Equal(prior) {
			diags.Append(state.SetAttribute(ctx, p, prior)...)
		}
	}
	return diags
}

// semanticPaths finds the attributes whose type has semantic equality; ok is false when one is
// inside a collection, or has semantic equality of a kind other than a string's.
func semanticPaths(ctx context.Context, attrs map[string]schema.Attribute) ([]path.Path, bool) {
	var out []path.Path
	var walk func(p path.Path, a schema.Attribute) bool
	walk = func(p path.Path, a schema.Attribute) bool {
		switch kind := semanticKind(ctx, a.GetType()); kind {
		case "string":
			out = append(out, p)
		case "other":
			return false
		}
		if n, ok := a.(schema.SingleNestedAttribute); ok {
			for name, child := range n.Attributes {
				if !walk(p.AtName(name), child) {
					return false
				}
			}
			return true
		}
		// Inside a collection, or an object type's attributes: none may have semantic equality.
		return !semanticInside(ctx, a.GetType())
	}
	for name, a := range attrs {
		if !walk(path.Root(name), a) {
			return nil, false
		}
	}
	return out, true
}

// semanticKind says whether values of t have semantic equality: "" none, "string" a string
// type's, "other" any other kind's.
func semanticKind(ctx context.Context, t attr.Type) string {
	switch t.ValueType(ctx).(type) {
	case basetypes.StringValuableWithSemanticEquals:
		return "string"
	case basetypes.BoolValuableWithSemanticEquals, basetypes.Int64ValuableWithSemanticEquals,
		basetypes.Float64ValuableWithSemanticEquals, basetypes.NumberValuableWithSemanticEquals,
		basetypes.ListValuableWithSemanticEquals, basetypes.MapValuableWithSemanticEquals,
		basetypes.SetValuableWithSemanticEquals, basetypes.ObjectValuableWithSemanticEquals,
		basetypes.DynamicValuableWithSemanticEquals, basetypes.Int32ValuableWithSemanticEquals,
		basetypes.Float32ValuableWithSemanticEquals:
		return "other"
	}
	return ""
}

// semanticInside reports whether any type held by t (elements, attributes) has semantic
// equality.
func semanticInside(ctx context.Context, t attr.Type) bool {
	switch t := t.(type) {
	case attr.TypeWithElementType:
		return semanticKind(ctx, t.ElementType()) != "" || semanticInside(ctx, t.ElementType())
	case attr.TypeWithAttributeTypes:
		for _, at := range t.AttributeTypes() {
			if semanticKind(ctx, at) != "" || semanticInside(ctx, at) {
				return true
			}
		}
	}
	return false
}
