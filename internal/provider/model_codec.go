package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/promise-platform/terraform-provider-kratix/internal/tfserver"
)

// Models in and out of plans and states without the framework's reflection: tfserver's codec,
// under the names the resources use. A model of a shape the codec does not take goes to the
// framework's Get and Set.

// getPlan reads the plan into *target, as p.Get does.
func getPlan(ctx context.Context, p tfsdk.Plan, target any) diag.Diagnostics {
	return tfserver.GetPlan(ctx, p, target)
}

// getState reads the state into *target, as s.Get does.
func getState(ctx context.Context, s tfsdk.State, target any) diag.Diagnostics {
	return tfserver.GetState(ctx, s, target)
}

// setPlan writes model (a struct, or a pointer to one) into the plan, as p.Set does.
func setPlan(ctx context.Context, p *tfsdk.Plan, model any) diag.Diagnostics {
	return tfserver.SetPlan(ctx, p, model)
}

// setState writes model (a struct, or a pointer to one) into the state, as s.Set does.
func setState(ctx context.Context, s *tfsdk.State, model any) diag.Diagnostics {
	return tfserver.SetState(ctx, s, model)
}
