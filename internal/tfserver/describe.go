package tfserver

import (
	"context"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Description is what the server answers directly for one kind and what it read of the kind's
// schema, for the provider's tests that pin them (a schema change that leaves a kind to the
// framework shows there first).
type Description struct {
	Schema schema.Schema
	Type   tftypes.Type
	// DirectCreate: creates are planned directly; DirectApply: and applied; Steady: the steady
	// state is answered; DirectValidation: validated by the direct walk.
	DirectCreate, DirectApply, Steady, DirectValidation bool
	// Defaults, Computed, Modifiers, WriteOnly: the top-level attributes with a default,
	// computed without one, with plan modifiers, write-only; Semantic: the paths of attributes
	// with semantic equality. Each sorted.
	Defaults, Computed, Modifiers, WriteOnly, Semantic []string
	// PoolAt is the pool validated with the list taken out, PoolChecks the paths, in one
	// element, of its string validators (sorted); both nil without.
	PoolAt, PoolChecks []string
}

// Describe describes the kind named typeName (the zero Description when it is not registered
// or left to the framework).
func (s *Server) Describe(typeName string) Description {
	k := s.creates[typeName]
	if k == nil {
		return Description{}
	}
	d := Description{Schema: k.schema, Type: k.typ, DirectCreate: true, DirectApply: k.canApply}
	_, d.Steady = s.steady[typeName]
	d.DirectValidation = s.direct[typeName] != nil
	for name := range k.defaults {
		d.Defaults = append(d.Defaults, name)
	}
	for _, m := range k.modifiers {
		d.Modifiers = append(d.Modifiers, m.name)
	}
	d.Computed = slices.Clone(k.computed)
	d.WriteOnly = slices.Clone(k.writeOnly)
	for _, p := range k.semantic {
		d.Semantic = append(d.Semantic, p.String())
	}
	if v := s.pools[typeName]; v != nil {
		d.PoolAt = slices.Clone(v.at)
		for _, c := range v.checks {
			d.PoolChecks = append(d.PoolChecks, strings.Join(c.steps, "."))
		}
	}
	for _, l := range [][]string{d.Defaults, d.Computed, d.Modifiers, d.WriteOnly, d.Semantic, d.PoolChecks} {
		slices.Sort(l)
	}
	return d
}

// DropDirectValidation leaves validation to the pool path and the framework (tests of the pool
// path only).
func (s *Server) DropDirectValidation() { s.direct = map[string]*directValidation{} }

// KeepSemanticallyEqual is what a direct apply does to the state a create returned: where it
// holds a value the prior one means the same by, the prior value goes back (for tests).
func (s *Server) KeepSemanticallyEqual(ctx context.Context, typeName string, prior tftypes.Value, state *tfsdk.State) diag.Diagnostics {
	k := s.creates[typeName]
	if k == nil {
		var diags diag.Diagnostics
		diags.AddError("Not Registered", typeName+" is not planned directly")
		return diags
	}
	return k.keepSemanticallyEqual(ctx, prior, state)
}
