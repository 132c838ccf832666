package tfserver

import (
	"context"
	"fmt"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Validation with the pool taken out: ValidateResourceConfig of a kind whose configuration
// holds a pool (Kind.Pool, a list of nested objects; in the provider, a promise's destinations), when the direct walk (validate_direct.go) cannot
// answer (a schema it does not know whole, a null or unknown element, timeouts set).
//
// Before the framework validates a configuration it walks the whole value, node by node, to turn
// empty collection blocks into null ones (NullifyCollectionBlocks), looking each node's schema up
// from the root; these schemas have no collection block, so the walk changes nothing, and over a
// pool of a hundred destinations it costs 48 ms for each request and promise, twice per command.
// Of what follows, only string validators look inside the pool (a store's Git URL must not carry
// credentials; the AWS profile, role and durations). So the framework validates the configuration with the pool's list empty, and the
// pool's validators run here on each destination, as the framework runs them on nested
// attributes (an object that is null or unknown is not looked into). poolValidationOf checks that
// nothing else in the pool, or on the pool's own attribute, could be seen by the framework's
// validation (a validator of another kind, a computed, deprecated or write-only attribute, a
// custom type, a resource-level validator); otherwise the framework gets the whole value. In the
// acceptance tests every such answer is also asked of the framework with the whole value and the
// diagnostics compared (steady_state_verify_test.go).

// poolValidation is how one resource type's pool is validated.
type poolValidation struct {
	schema schema.Schema
	typ    tftypes.Type
	// at is the pool attribute's path (Kind.Pool).
	at []string
	// checks are the string validators inside one element, by their path in it.
	checks []poolCheck
}

type poolCheck struct {
	steps      []string
	validators []validator.String
}

// poolValidationOf reads a schema's pool validation; ok is false when validation must see the
// whole value.
func poolValidationOf(ctx context.Context, s schema.Schema, r any, at ...string) (*poolValidation, bool) {
	if hasMethod(r, "ValidateConfig") || hasMethod(r, "ConfigValidators") {
		return nil, false
	}
	attrs := s.Attributes
	var pool schema.ListNestedAttribute
	for i, name := range at {
		a, ok := attrs[name]
		if !ok || a.GetDeprecationMessage() != "" {
			return nil, false
		}
		if i < len(at)-1 {
			n, ok := a.(schema.SingleNestedAttribute)
			if !ok {
				return nil, false
			}
			attrs = n.Attributes
			continue
		}
		if pool, ok = a.(schema.ListNestedAttribute); !ok || len(pool.Validators) > 0 || pool.CustomType != nil || pool.IsComputed() {
			return nil, false
		}
	}
	v := &poolValidation{schema: s, typ: s.Type().TerraformType(ctx), at: at}
	if !v.read(nil, pool.NestedObject.Attributes) || len(pool.NestedObject.Validators) > 0 || pool.NestedObject.CustomType != nil {
		return nil, false
	}
	return v, true
}

func hasMethod(r any, name string) bool {
	_, ok := reflect.TypeOf(r).MethodByName(name)
	return ok
}

// read collects the string validators of a pool element's attributes; false for anything the
// framework's validation would see otherwise.
func (v *poolValidation) read(prefix []string, attrs map[string]schema.Attribute) bool {
	for name, a := range attrs {
		steps := append(append([]string{}, prefix...), name)
		if a.IsComputed() || a.IsWriteOnly() || a.GetDeprecationMessage() != "" {
			return false
		}
		switch a := a.(type) {
		case schema.StringAttribute:
			if a.CustomType != nil {
				return false
			}
			if len(a.Validators) > 0 {
				v.checks = append(v.checks, poolCheck{steps: steps, validators: a.Validators})
			}
		case schema.SingleNestedAttribute:
			if a.CustomType != nil || len(a.Validators) > 0 || !v.read(steps, a.Attributes) {
				return false
			}
		case schema.BoolAttribute:
			if a.CustomType != nil || len(a.Validators) > 0 {
				return false
			}
		case schema.MapAttribute:
			if a.CustomType != nil || len(a.Validators) > 0 {
				return false
			}
		case schema.Int64Attribute:
			if a.CustomType != nil || len(a.Validators) > 0 {
				return false
			}
		case schema.ListNestedAttribute:
			// Taken as it is only when nothing inside has a validator (a destination's taints): the
			// checks here follow attributes, not list elements.
			inner := &poolValidation{}
			if a.CustomType != nil || len(a.Validators) > 0 || a.NestedObject.CustomType != nil || len(a.NestedObject.Validators) > 0 ||
				!inner.read(nil, a.NestedObject.Attributes) || len(inner.checks) > 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// ValidateResourceConfig validates a registered kind's configuration directly
// (validate_direct.go), or else with its pool taken out (see above), and any other the
// framework's way.
func (s *Server) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	if d := s.direct[req.TypeName]; d != nil && req.Config != nil {
		if diags, ok := d.validate(ctx, req); ok {
			resp := &tfprotov6.ValidateResourceConfigResponse{Diagnostics: protoDiagnostics(ctx, diags)}
			if s.check != nil {
				resp.Diagnostics = append(resp.Diagnostics, s.check.Validate(ctx, req, resp)...)
			}
			return resp, nil
		}
	}
	v := s.pools[req.TypeName]
	if v == nil || req.Config == nil {
		return s.ProviderServer.ValidateResourceConfig(ctx, req)
	}
	config, err := req.Config.Unmarshal(v.typ)
	if err != nil {
		return s.ProviderServer.ValidateResourceConfig(ctx, req)
	}
	pool, rest, ok := v.takeOut(config)
	if !ok {
		return s.ProviderServer.ValidateResourceConfig(ctx, req)
	}
	restDV, err := tfprotov6.NewDynamicValue(v.typ, rest)
	if err != nil {
		return s.ProviderServer.ValidateResourceConfig(ctx, req)
	}
	stripped := *req
	stripped.Config = &restDV
	resp, err := s.ProviderServer.ValidateResourceConfig(ctx, &stripped)
	if err != nil || resp == nil {
		return resp, err
	}
	resp.Diagnostics = append(resp.Diagnostics, protoDiagnostics(ctx, v.validate(ctx, tfsdk.Config{Schema: v.schema, Raw: config}, pool))...)
	if s.check != nil {
		resp.Diagnostics = append(resp.Diagnostics, s.check.Validate(ctx, req, resp)...)
	}
	return resp, nil
}

// takeOut returns the pool's elements and the configuration with an empty pool; ok is false when
// there is nothing worth taking out (no configuration, a pool not known).
func (v *poolValidation) takeOut(config tftypes.Value) ([]tftypes.Value, tftypes.Value, bool) {
	var set func(val tftypes.Value, steps []string) ([]tftypes.Value, tftypes.Value, bool)
	set = func(val tftypes.Value, steps []string) ([]tftypes.Value, tftypes.Value, bool) {
		if !val.IsKnown() || val.IsNull() {
			return nil, val, false
		}
		attrs, err := attrsCopy(val)
		if err != nil {
			return nil, val, false
		}
		child, ok := attrs[steps[0]]
		if !ok {
			return nil, val, false
		}
		var pool []tftypes.Value
		if len(steps) == 1 {
			if !child.IsKnown() || child.IsNull() || child.As(&pool) != nil || len(pool) == 0 {
				return nil, val, false
			}
			attrs[steps[0]] = tftypes.NewValue(child.Type(), []tftypes.Value{})
		} else {
			var next tftypes.Value
			if pool, next, ok = set(child, steps[1:]); !ok {
				return nil, val, false
			}
			attrs[steps[0]] = next
		}
		return pool, tftypes.NewValue(val.Type(), attrs), true
	}
	return set(config, v.at)
}

// validate runs the pool's validators on each element, with the paths the framework gives.
func (v *poolValidation) validate(ctx context.Context, config tfsdk.Config, pool []tftypes.Value) diag.Diagnostics {
	var out diag.Diagnostics
	root := path.Root(v.at[0])
	for _, step := range v.at[1:] {
		root = root.AtName(step)
	}
	for i, elem := range pool {
		for _, c := range v.checks {
			val, ok := walkKnown(elem, c.steps)
			if !ok {
				continue
			}
			var s types.String
			if err := tftypesToString(val, &s); err != nil {
				continue
			}
			p := root.AtListIndex(i)
			for _, step := range c.steps {
				p = p.AtName(step)
			}
			req := validator.StringRequest{Path: p, PathExpression: p.Expression(), Config: config, ConfigValue: s}
			for _, vd := range c.validators {
				var resp validator.StringResponse
				vd.ValidateString(ctx, req, &resp)
				out = append(out, resp.Diagnostics...)
			}
		}
	}
	return out
}

// walkKnown follows steps through objects; ok is false when an object on the way is null or
// unknown (the framework does not validate inside those).
func walkKnown(v tftypes.Value, steps []string) (tftypes.Value, bool) {
	for _, step := range steps {
		if !v.IsKnown() || v.IsNull() {
			return tftypes.Value{}, false
		}
		var attrs map[string]tftypes.Value
		if v.As(&attrs) != nil {
			return tftypes.Value{}, false
		}
		next, ok := attrs[step]
		if !ok {
			return tftypes.Value{}, false
		}
		v = next
	}
	return v, true
}

func tftypesToString(v tftypes.Value, out *types.String) error {
	switch {
	case !v.IsKnown():
		*out = types.StringUnknown()
	case v.IsNull():
		*out = types.StringNull()
	default:
		var s string
		if err := v.As(&s); err != nil {
			return fmt.Errorf("not a string: %w", err)
		}
		*out = types.StringValue(s)
	}
	return nil
}
