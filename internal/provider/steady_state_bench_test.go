package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/promise-platform/terraform-provider-kratix/internal/tfserver"
)

// benchPool is the size of the pool of the promise BenchmarkSteadyState plans: B4's.
const benchPool = 100

// BenchmarkSteadyState: what the fast path (internal/tfserver) saves. Each iteration makes the three
// requests a no-change `terraform plan` makes of one promise with a pool of 100 destinations
// (UpgradeResourceState, ReadResource, PlanResourceChange), in-process, answered by the
// steady-state server (direct) and by the framework's server alone (framework), which is what
// the provider would serve without internal/tfserver. The provider is offline, so Read
// reaches no store and the figures are the protocol work alone.
func BenchmarkSteadyState(b *testing.B) {
	ctx := context.Background()
	s, reqs := steadyStateRequests(b, benchPool)
	for _, c := range []struct {
		name   string
		server tfprotov6.ProviderServer
	}{{"direct", s}, {"framework", s.ProviderServer}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := reqs.run(ctx, c.server); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSteadyStateBenchRequests: the benchmark's requests are the steady state it means to
// measure: the steady-state server answers all three itself (no plan goes to the framework) and
// the framework answers them the same (verify mode), without a diagnostic.
func TestSteadyStateBenchRequests(t *testing.T) {
	t.Parallel()
	s, reqs := steadyStateRequests(t, 3)
	check := s.Verify()
	if err := reqs.run(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if got := [3]int64{check.Upgrades.Load(), check.Reads.Load(), check.Plans.Load()}; got != [3]int64{1, 1, 1} {
		t.Errorf("direct answers (upgrades, reads, plans) = %v, want one of each", got)
	}
}

// steadyRequests are the requests of a no-change plan of one promise.
type steadyRequests struct {
	upgrade *tfprotov6.UpgradeResourceStateRequest
	read    *tfprotov6.ReadResourceRequest
	plan    *tfprotov6.PlanResourceChangeRequest
}

// run sends the three requests to server and fails on any diagnostic or on a plan that changes
// something.
func (r steadyRequests) run(ctx context.Context, server tfprotov6.ProviderServer) error {
	up, err := server.UpgradeResourceState(ctx, r.upgrade)
	if err != nil || len(up.Diagnostics) > 0 {
		return fmt.Errorf("UpgradeResourceState: %v %s", err, diagnosticsText(up.Diagnostics))
	}
	read, err := server.ReadResource(ctx, r.read)
	if err != nil || len(read.Diagnostics) > 0 {
		return fmt.Errorf("ReadResource: %v %s", err, diagnosticsText(read.Diagnostics))
	}
	plan, err := server.PlanResourceChange(ctx, r.plan)
	if err != nil || len(plan.Diagnostics) > 0 {
		return fmt.Errorf("PlanResourceChange: %v %s", err, diagnosticsText(plan.Diagnostics))
	}
	if len(plan.RequiresReplace) > 0 {
		return fmt.Errorf("PlanResourceChange plans a replacement: %v", plan.RequiresReplace)
	}
	return nil
}

// steadyStateRequests configures an offline steady-state server and returns it, without a
// check, with the requests of a no-change plan of a promise scheduled to a pool of n
// destinations. The promise's state is what the framework plans for its creation, with the id
// an apply sets, as Terraform would save it.
func steadyStateRequests(tb testing.TB, n int) (*tfserver.Server, steadyRequests) {
	tb.Helper()
	ctx := context.Background()
	s, err := newFastServer("test")
	typ := s.Describe(promiseTypeName).Type
	if err != nil {
		tb.Fatal(err)
	}
	schemas, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || len(schemas.Diagnostics) > 0 {
		tb.Fatalf("GetProviderSchema: %v %s", err, diagnosticsText(schemas.Diagnostics))
	}
	providerConfig := dynamicFromJSON(tb, schemas.Provider.ValueType(), `{"offline": true}`)
	configured, err := s.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: providerConfig})
	// An offline provider warns that it is offline; anything more is a failure.
	if err != nil || slices.ContainsFunc(configured.Diagnostics, func(d *tfprotov6.Diagnostic) bool {
		return d.Severity != tfprotov6.DiagnosticSeverityWarning || d.Summary != "Provider Is Offline"
	}) {
		tb.Fatalf("ConfigureProvider: %v %s", err, diagnosticsText(configured.Diagnostics))
	}

	dests := make([]string, n)
	for i := range dests {
		dests[i] = fmt.Sprintf(`{"name": "worker-%d", "path": "worker-%d", "labels": {"env": "dev"},
			"state_store": {"name": "s", "bucket": {"endpoint": "minio.local:9000", "bucket_name": "kratix"}}}`, i, i)
	}
	config := dynamicFromJSON(tb, typ, `{"name": "app",
		"dependencies": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: foo\n",
		"destination_selectors": [{"match_labels": {"env": "dev"}}],
		"destinations": [`+strings.Join(dests, ",")+`]}`)
	created, err := s.ProviderServer.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName:         promiseTypeName,
		PriorState:       dynamicNull(tb, typ),
		ProposedNewState: config,
		Config:           config,
	})
	if err != nil || len(created.Diagnostics) > 0 {
		tb.Fatalf("planning the create: %v %s", err, diagnosticsText(created.Diagnostics))
	}
	planned, err := created.PlannedState.Unmarshal(typ)
	if err != nil {
		tb.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	if err := planned.As(&attrs); err != nil {
		tb.Fatal(err)
	}
	var placements map[string]tftypes.Value
	if err := attrs["placements"].As(&placements); err != nil || len(placements) != n {
		tb.Fatalf("the planned promise has %d placements (%v), want %d", len(placements), err, n)
	}
	attrs["id"] = tftypes.NewValue(tftypes.String, "app")
	// The apply records the MD5 of the promise's record (promise_record.go), known only then.
	attrs["registration"] = tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, map[string]tftypes.Value{
		"s:.kratix-registry/promises/app/_unnamed.yaml": tftypes.NewValue(tftypes.String, "0123456789abcdef0123456789abcdef")})
	stateValue := tftypes.NewValue(typ, attrs)
	if !stateValue.IsFullyKnown() {
		tb.Fatalf("the planned promise still has unknown values after the id is set: %v", stateValue)
	}
	state, err := tfprotov6.NewDynamicValue(typ, stateValue)
	if err != nil {
		tb.Fatal(err)
	}
	raw, err := json.Marshal(valueJSON(stateValue))
	if err != nil {
		tb.Fatal(err)
	}
	return s, steadyRequests{
		upgrade: &tfprotov6.UpgradeResourceStateRequest{
			TypeName: promiseTypeName, Version: s.Describe(promiseTypeName).Schema.Version, RawState: &tfprotov6.RawState{JSON: raw},
		},
		read: &tfprotov6.ReadResourceRequest{TypeName: promiseTypeName, CurrentState: &state},
		// Terraform proposes the prior value of every computed attribute, and of on_unschedule,
		// which the configuration leaves null: the proposed state is the prior state.
		plan: &tfprotov6.PlanResourceChangeRequest{
			TypeName: promiseTypeName, PriorState: &state, ProposedNewState: &state, Config: config,
		},
	}
}

// dynamicFromJSON is the value of typ written in JSON, attributes left out being null, as
// Terraform sends it (MessagePack).
func dynamicFromJSON(tb testing.TB, typ tftypes.Type, text string) *tfprotov6.DynamicValue {
	tb.Helper()
	v, err := (&tfprotov6.DynamicValue{JSON: []byte(text)}).Unmarshal(typ)
	if err != nil {
		tb.Fatalf("%s: %v", text, err)
	}
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		tb.Fatal(err)
	}
	return &dv
}

func dynamicNull(tb testing.TB, typ tftypes.Type) *tfprotov6.DynamicValue {
	tb.Helper()
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
	if err != nil {
		tb.Fatal(err)
	}
	return &dv
}

// valueJSON is a known value in the form Terraform saves state in, for encoding/json.
func valueJSON(v tftypes.Value) any {
	if v.IsNull() {
		return nil
	}
	switch v.Type().(type) {
	case tftypes.List, tftypes.Set, tftypes.Tuple:
		var elems []tftypes.Value
		_ = v.As(&elems)
		out := make([]any, len(elems))
		for i, e := range elems {
			out[i] = valueJSON(e)
		}
		return out
	case tftypes.Map, tftypes.Object:
		var elems map[string]tftypes.Value
		_ = v.As(&elems)
		out := make(map[string]any, len(elems))
		for k, e := range elems {
			out[k] = valueJSON(e)
		}
		return out
	}
	switch {
	case v.Type().Equal(tftypes.String):
		var s string
		_ = v.As(&s)
		return s
	case v.Type().Equal(tftypes.Bool):
		var b bool
		_ = v.As(&b)
		return b
	case v.Type().Equal(tftypes.Number):
		var f big.Float
		_ = v.As(&f)
		return json.Number(f.Text('g', -1))
	}
	panic(fmt.Sprintf("valueJSON: unexpected type %v", v.Type()))
}
