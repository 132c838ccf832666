package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/promise-platform/terraform-provider-kratix/internal/provider/privstate"
	"github.com/promise-platform/terraform-provider-kratix/internal/tfserver"
)

// The fast path: the provider's protocol server is the framework's, with the steady state of
// promises and requests, the plans and applies of new promises, destinations and requests, and
// their validation answered by internal/tfserver, which calls these resources' own Schema, Read,
// ModifyPlan and Create (see its package doc for why and how). This file registers them.

const (
	promiseTypeName     = "kratix_promise"
	destinationTypeName = "kratix_destination"
	requestTypeName     = "kratix_resource_request"
)

// fastPathKinds are the resource types tfserver answers for, with provider p's configured data.
func fastPathKinds(p *kratixProvider) []tfserver.Kind {
	with := func(newRes func(*providerData) resource.ResourceWithModifyPlan) func() (resource.ResourceWithModifyPlan, bool) {
		return func() (resource.ResourceWithModifyPlan, bool) {
			data := p.configured.Load()
			return newRes(data), data != nil
		}
	}
	// Read and a no-change plan leave these untouched: the instance token (writelog.go), the
	// labels the files were written under (privstate/written_labels.go; they count only for a plan that
	// takes files away, which changes `placements` or `written_files`, so never a no-change
	// plan), and the write times Read reads (observe.go). Any other key (an import being
	// adopted, a rollout's base, a move left behind) sends the request to the framework.
	steadyKeys := []string{privstate.InstanceKey, privstate.WrittenLabelsKey, privstate.WrittenAtKey}
	return []tfserver.Kind{
		{
			TypeName: promiseTypeName, Settled: "placements", Pool: []string{"destinations"},
			Resource:    with(func(d *providerData) resource.ResourceWithModifyPlan { return &promiseResource{data: d} }),
			PrivateKeys: privstate.Keys, SteadyPrivateKeys: steadyKeys,
		},
		{
			TypeName:    destinationTypeName,
			Resource:    with(func(d *providerData) resource.ResourceWithModifyPlan { return &destinationResource{data: d} }),
			PrivateKeys: privstate.Keys, SteadyPrivateKeys: steadyKeys,
		},
		{
			TypeName: requestTypeName, Settled: "written_files", Pool: []string{"promise", "destinations"},
			Resource:    with(func(d *providerData) resource.ResourceWithModifyPlan { return &requestResource{data: d} }),
			PrivateKeys: privstate.Keys, SteadyPrivateKeys: steadyKeys,
		},
	}
}

// newFastServer returns the provider's protocol server at the given version.
func newFastServer(version string) (*tfserver.Server, error) {
	return fastServerOf(newProvider(version))
}

// fastServerOf returns provider p's protocol server.
func fastServerOf(p *kratixProvider) (*tfserver.Server, error) {
	fw, err := providerserver.NewProtocol6WithError(p)()
	if err != nil {
		return nil, err
	}
	return tfserver.New(fw, fastPathKinds(p)...)
}
