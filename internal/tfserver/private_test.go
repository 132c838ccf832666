package tfserver

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// TestPrivateRoundTrip: the private state built for a Read request holds each key of the
// protocol's bytes as the framework's would, and privateBytes encodes it back to the same bytes
// (the framework's encoding: a JSON object, each value base64). A response's new private state
// starts empty and takes SetKey.
func TestPrivateRoundTrip(t *testing.T) {
	ctx := context.Background()
	raw := []byte(`{"instance":"ImFiYyI=","written_at":"eyJ3IjoiMjAzMC0wMS0wMlQwMzowNDowNVoifQ=="}`)
	var req resource.ReadRequest
	if diags := setPrivate(ctx, &req, raw); diags.HasError() {
		t.Fatal(diags)
	}
	for key, want := range map[string]string{"instance": `"abc"`, "written_at": `{"w":"2030-01-02T03:04:05Z"}`, "adopt": ""} {
		got, diags := req.Private.GetKey(ctx, key)
		if diags.HasError() || string(got) != want {
			t.Errorf("GetKey(%s) = %q %v, want %q", key, got, diags, want)
		}
	}
	out, diags := privateBytes(ctx, req.Private, []string{"adopt", "instance", "written_at"})
	if diags.HasError() || string(out) != string(raw) {
		t.Errorf("privateBytes = %s %v, want %s", out, diags, raw)
	}
	if out, _ := privateBytes(ctx, req.Private, []string{"adopt"}); out != nil {
		t.Errorf("privateBytes of keys not set = %s, want nothing", out)
	}

	resp := resource.ModifyPlanResponse{RequiresReplace: path.Paths{}}
	if diags := setPrivate(ctx, &resp, nil); diags.HasError() {
		t.Fatal(diags)
	}
	if got, _ := privateBytes(ctx, resp.Private, []string{"a"}); got != nil {
		t.Errorf("a new private state holds %s", got)
	}
	if diags := resp.Private.SetKey(ctx, "a", []byte(`{"b":1}`)); diags.HasError() {
		t.Fatal(diags)
	}
	if got, _ := privateBytes(ctx, resp.Private, []string{"a"}); string(got) != `{"a":"eyJiIjoxfQ=="}` {
		t.Errorf("after SetKey: %s", got)
	}
	if diags := setPrivate(ctx, &req, []byte(`not json`)); !diags.HasError() {
		t.Errorf("undecodable private state accepted")
	}
	if diags := setPrivate(ctx, &struct{ Other int }{}, nil); !diags.HasError() {
		t.Errorf("a type without Private accepted")
	}
}

// TestSteadyPrivate: the steady state is answered for private state that holds nothing, or only
// the kind's SteadyPrivateKeys.
func TestSteadyPrivate(t *testing.T) {
	k := &directKind{kind: Kind{SteadyPrivateKeys: []string{"instance", "written_labels"}}}
	for in, want := range map[string]bool{
		``:                                   true,
		`{}`:                                 true,
		`null`:                               true,
		`{"instance":"ImFiYyI="}`:            true,
		`{"adopt":"e30="}`:                   false,
		`{"adopt":"e30=","instance":"ImEi"}`: false,
		`{"instance":"ImEi","written_labels":"e30="}`:     true,
		`{"written_labels":"e30="}`:                       true,
		`{"rollout_base":"e30=","written_labels":"e30="}`: false,
		`not json`: false,
	} {
		if got := k.steadyPrivate([]byte(in)); got != want {
			t.Errorf("steadyPrivate(%s) = %v, want %v", in, got, want)
		}
	}
}

// TestNullWriteOnlyLeavesTheOriginal: nulling the write-only attributes makes a new value and
// leaves the one it was given as it was.
func TestNullWriteOnlyLeavesTheOriginal(t *testing.T) {
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"a": tftypes.String, "secret": tftypes.String}}
	original := func() tftypes.Value {
		return tftypes.NewValue(typ, map[string]tftypes.Value{
			"a": tftypes.NewValue(tftypes.String, "before"), "secret": tftypes.NewValue(tftypes.String, "s"),
		})
	}
	base := original()
	k := &directKind{writeOnly: []string{"secret"}}
	nulled := k.nullWriteOnly(base)
	if !base.Equal(original()) {
		t.Errorf("nullWriteOnly changed its argument: %v", base)
	}
	want := tftypes.NewValue(typ, map[string]tftypes.Value{
		"a": tftypes.NewValue(tftypes.String, "before"), "secret": tftypes.NewValue(tftypes.String, nil),
	})
	if !nulled.Equal(want) {
		t.Errorf("nullWriteOnly = %v, want %v", nulled, want)
	}
}
