package provider

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/promise-platform/terraform-provider-kratix/internal/tfserver"
)

// The codec (internal/tfserver's GetPlan and SetPlan) reads and writes the models of
// the three resources as the framework's Get and Set do: for values with nulls, unknowns and
// known values at every level, valid and invalid manifests, the same model, the same value and
// the same diagnostics.
func TestModelCodecAgreesWithTheFramework(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		res   fwresource.Resource
		model func() any
	}{
		{destinationTypeName, &destinationResource{}, func() any { return &destinationModel{} }},
		{promiseTypeName, &promiseResource{}, func() any { return &promiseModel{} }},
		{requestTypeName, &requestResource{}, func() any { return &requestModel{} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sr fwresource.SchemaResponse
			tc.res.Schema(ctx, fwresource.SchemaRequest{}, &sr)
			typ := sr.Schema.Type().TerraformType(ctx)
			if !tfserver.ModelFits(sr.Schema, tc.model()) {
				t.Fatalf("the model of %s does not take the fast path", tc.name)
			}
			rng := rand.New(rand.NewPCG(1, uint64(len(tc.name))))
			fast := 0
			for i := range 300 {
				raw := randomValue(rng, typ, 0, i%3 == 0)
				plan := tfsdk.Plan{Schema: sr.Schema, Raw: raw}

				want, got := tc.model(), tc.model()
				wantDiags := plan.Get(ctx, want)
				gotDiags := tfserver.GetPlan(ctx, plan, got)
				if tfserver.Decodes(ctx, sr.Schema, raw, tc.model()) {
					fast++
				}
				sameDiags(t, fmt.Sprintf("value %d: get", i), gotDiags, wantDiags)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("value %d: tfserver.GetPlan read\n%#v\nthe framework's Get\n%#v\nfrom %v", i, got, want, raw)
				}
				if wantDiags.HasError() {
					continue
				}
				wantPlan := tfsdk.Plan{Schema: sr.Schema}
				wantDiags = wantPlan.Set(ctx, want)
				gotPlan := tfsdk.Plan{Schema: sr.Schema}
				gotDiags = tfserver.SetPlan(ctx, &gotPlan, got)
				sameDiags(t, fmt.Sprintf("value %d: set", i), gotDiags, wantDiags)
				if !gotPlan.Raw.Equal(wantPlan.Raw) {
					t.Fatalf("value %d: tfserver.SetPlan wrote\n%v\nthe framework's Set\n%v", i, gotPlan.Raw, wantPlan.Raw)
				}
				if !wantDiags.HasError() && !gotPlan.Raw.Equal(raw) {
					t.Fatalf("value %d: read and written back, it is\n%v\nnot\n%v", i, gotPlan.Raw, raw)
				}
			}
			// The comparison means something only if the fast path answered most of them.
			if fast < 100 {
				t.Errorf("the fast path read only %d of 300 values (invalid manifests and nulls at the top go to the framework)", fast)
			}
		})
	}
}

func sameDiags(t *testing.T, what string, got, want diag.Diagnostics) {
	t.Helper()
	if !got.Equal(want) {
		t.Fatalf("%s: diagnostics\n%v\nthe framework's\n%v", what, got, want)
	}
}

// randomValue is a value of type typ: null, unknown or known at each level (the top level always
// known), strings taken from a few that include valid and invalid manifests.
func randomValue(rng *rand.Rand, typ tftypes.Type, depth int, lenient bool) tftypes.Value {
	if depth > 0 {
		switch rng.IntN(8) {
		case 0:
			return tftypes.NewValue(typ, nil)
		case 1:
			if lenient {
				return tftypes.NewValue(typ, tftypes.UnknownValue)
			}
		}
	}
	switch {
	case typ.Is(tftypes.String):
		return tftypes.NewValue(typ, []string{
			"a", "dev", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n", "ns: [unclosed", "-", "",
			"https://git.example.com/repo.git", "Always",
		}[rng.IntN(8)])
	case typ.Is(tftypes.Number):
		return tftypes.NewValue(typ, big.NewFloat(float64(rng.IntN(5))))
	case typ.Is(tftypes.Bool):
		return tftypes.NewValue(typ, rng.IntN(2) == 0)
	}
	switch tt := typ.(type) {
	case tftypes.Object:
		attrs := map[string]tftypes.Value{}
		names := make([]string, 0, len(tt.AttributeTypes))
		for name := range tt.AttributeTypes {
			names = append(names, name)
		}
		slices.Sort(names) // the same values for the same seed
		for _, name := range names {
			attrs[name] = randomValue(rng, tt.AttributeTypes[name], depth+1, lenient)
		}
		return tftypes.NewValue(typ, attrs)
	case tftypes.List:
		var elems []tftypes.Value
		for range rng.IntN(3) {
			elems = append(elems, randomValue(rng, tt.ElementType, depth+1, lenient))
		}
		return tftypes.NewValue(typ, elems)
	case tftypes.Set:
		var elems []tftypes.Value
		for range rng.IntN(2) {
			elems = append(elems, randomValue(rng, tt.ElementType, depth+1, lenient))
		}
		return tftypes.NewValue(typ, elems)
	case tftypes.Map:
		elems := map[string]tftypes.Value{}
		for j := range rng.IntN(3) {
			elems[fmt.Sprintf("k%d", j)] = randomValue(rng, tt.ElementType, depth+1, lenient)
		}
		return tftypes.NewValue(typ, elems)
	}
	panic(fmt.Sprintf("randomValue: type %v", typ))
}
