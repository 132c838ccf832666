// Command noop is the protocol floor of the benchmark: a provider with kratix's schemas that does
// no work. It answers every validation with nothing, plans the proposed value (computed
// attributes the configuration leaves null are unknown on a create and keep their prior value
// otherwise), applies the plan (unknowns become null) and reads state back as it is; it never
// reaches a store. What Terraform takes to apply a configuration with it is what Terraform, the
// plugin protocol and these schemas cost by themselves, with no placement, no YAML and no I/O:
// the part of an apply that no provider with these schemas can go under.
package main

import (
	"context"
	"log"
	"maps"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/promise-platform/terraform-provider-kratix/internal/provider"
)

func main() {
	framework := provider.NewServer("noop")
	err := tf6server.Serve(provider.Address, func() tfprotov6.ProviderServer {
		s, err := framework()
		if err != nil {
			log.Fatal(err)
		}
		n, err := newNoop(s)
		if err != nil {
			log.Fatal(err)
		}
		return n
	})
	if err != nil {
		log.Fatal(err)
	}
}

// noop is the provider's own server for the schemas, with every resource request answered
// without work.
type noop struct {
	tfprotov6.ProviderServer
	kinds map[string]kind
}

// kind is what the answers need of a resource type's schema.
type kind struct {
	typ       tftypes.Type
	computed  []string // top-level computed attributes
	writeOnly []string
}

func newNoop(s tfprotov6.ProviderServer) (*noop, error) {
	resp, err := s.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return nil, err
	}
	kinds := map[string]kind{}
	for name, sc := range resp.ResourceSchemas {
		k := kind{typ: sc.ValueType()}
		for _, a := range sc.Block.Attributes {
			if a.Computed {
				k.computed = append(k.computed, a.Name)
			}
			if a.WriteOnly {
				k.writeOnly = append(k.writeOnly, a.Name)
			}
		}
		kinds[name] = k
	}
	return &noop{ProviderServer: s, kinds: kinds}, nil
}

func (n *noop) ValidateProviderConfig(_ context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	return &tfprotov6.ValidateProviderConfigResponse{PreparedConfig: req.Config}, nil
}

func (n *noop) ConfigureProvider(context.Context, *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	return &tfprotov6.ConfigureProviderResponse{}, nil
}

func (n *noop) ValidateResourceConfig(context.Context, *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	return &tfprotov6.ValidateResourceConfigResponse{}, nil
}

func (n *noop) UpgradeResourceState(_ context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	k := n.kinds[req.TypeName]
	v, err := req.RawState.UnmarshalWithOpts(k.typ, tfprotov6.UnmarshalOpts{
		ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true},
	})
	if err != nil {
		return nil, err
	}
	state, err := tfprotov6.NewDynamicValue(k.typ, v)
	if err != nil {
		return nil, err
	}
	return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &state}, nil
}

func (n *noop) ReadResource(_ context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	return &tfprotov6.ReadResourceResponse{NewState: req.CurrentState, Private: req.Private}, nil
}

func (n *noop) PlanResourceChange(_ context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	k := n.kinds[req.TypeName]
	proposed, err := req.ProposedNewState.Unmarshal(k.typ)
	if err != nil {
		return nil, err
	}
	if proposed.IsNull() {
		return &tfprotov6.PlanResourceChangeResponse{PlannedState: req.ProposedNewState}, nil
	}
	config, err := req.Config.Unmarshal(k.typ)
	if err != nil {
		return nil, err
	}
	var prior tftypes.Value
	if req.PriorState != nil {
		if prior, err = req.PriorState.Unmarshal(k.typ); err != nil {
			return nil, err
		}
	}
	var p, c, s map[string]tftypes.Value
	if err := proposed.As(&p); err != nil {
		return nil, err
	}
	if err := config.As(&c); err != nil {
		return nil, err
	}
	if !prior.IsNull() {
		if err := prior.As(&s); err != nil {
			return nil, err
		}
	}
	planned := maps.Clone(p)
	for _, name := range k.computed {
		if !c[name].IsNull() {
			continue
		}
		if old, ok := s[name]; ok {
			planned[name] = old
		} else {
			planned[name] = tftypes.NewValue(p[name].Type(), tftypes.UnknownValue)
		}
	}
	for _, name := range k.writeOnly {
		planned[name] = tftypes.NewValue(p[name].Type(), nil)
	}
	out, err := tfprotov6.NewDynamicValue(k.typ, tftypes.NewValue(k.typ, planned))
	if err != nil {
		return nil, err
	}
	return &tfprotov6.PlanResourceChangeResponse{PlannedState: &out, PlannedPrivate: req.PriorPrivate}, nil
}

func (n *noop) ApplyResourceChange(_ context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	k := n.kinds[req.TypeName]
	planned, err := req.PlannedState.Unmarshal(k.typ)
	if err != nil {
		return nil, err
	}
	if planned.IsNull() {
		return &tfprotov6.ApplyResourceChangeResponse{NewState: req.PlannedState}, nil
	}
	var p map[string]tftypes.Value
	if err := planned.As(&p); err != nil {
		return nil, err
	}
	state := make(map[string]tftypes.Value, len(p))
	for name, v := range p {
		if !v.IsKnown() {
			v = tftypes.NewValue(v.Type(), nil)
		}
		state[name] = v
	}
	out, err := tfprotov6.NewDynamicValue(k.typ, tftypes.NewValue(k.typ, state))
	if err != nil {
		return nil, err
	}
	return &tfprotov6.ApplyResourceChangeResponse{NewState: &out, Private: req.PlannedPrivate}, nil
}
