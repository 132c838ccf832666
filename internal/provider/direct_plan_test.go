package provider

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/manifestattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/tfserver"
)

// TestDirectCreateKinds: the creates of destinations and promises are planned directly, with the
// defaults, computed attributes and plan modifiers listed here. A schema change that adds
// something internal/tfserver/direct_plan.go does not handle (a nested default, a nested computed value, a
// write-only attribute) drops the type from the direct plans and fails here first.
func TestDirectCreateKinds(t *testing.T) {
	t.Parallel()
	s, err := newFastServer("test")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		destinationTypeName: "defaults [aggregated_filename cleanup filepath_mode init_workloads strict_match_labels]; " +
			"computed [files id instance_id registration root]; modifiers [filepath_mode aggregated_filename id instance_id name path state_store]",
		requestTypeName: "defaults [namespace pipeline]; computed [destination destinations group_placements health id location misscheduled placements root written_files]; " +
			"modifiers [id name namespace pipeline]",
		promiseTypeName: "defaults [on_unschedule]; computed [health id misscheduled_destinations placements registration revisions rollout_status scheduled_destinations]; " +
			"modifiers [id name]",
	}
	for name, w := range want {
		k := s.Describe(name)
		if !k.DirectCreate {
			var err error
			for _, kind := range fastPathKinds(newProvider("test")) {
				if kind.TypeName == name {
					err = tfserver.KindError(kind)
				}
			}
			t.Errorf("%s is not planned directly: %v", name, err)
			continue
		}
		defaults, computed, modifiers := k.Defaults, k.Computed, k.Modifiers
		wantModifiers := strings.Fields(strings.Trim(strings.SplitN(w, "modifiers [", 2)[1], "]"))
		slices.Sort(wantModifiers)
		got := "defaults [" + strings.Join(defaults, " ") + "]; computed [" + strings.Join(computed, " ") + "]; modifiers [" + strings.Join(modifiers, " ") + "]"
		w = strings.SplitN(w, "modifiers [", 2)[0] + "modifiers [" + strings.Join(wantModifiers, " ") + "]"
		if got != w {
			t.Errorf("%s:\n got %s\nwant %s", name, got, w)
		}
	}
	if k := s.Describe(requestTypeName); !slices.Equal(k.WriteOnly, []string{"documents_wo", "files_wo"}) {
		t.Errorf("the request's write-only attributes are not the ones nulled in its plans")
	}
	wantSemantic := map[string]string{
		destinationTypeName: "[]",
		promiseTypeName:     "[dependencies observe.max_age rollout.gate.settle rollout.gate.timeout rollout.min_wait rollout_status.checked_at rollout_status.last_wave_at rollout_status.next_wave_not_before]",
		requestTypeName:     "[documents observe.max_age]",
	}
	for name, w := range wantSemantic {
		k := s.Describe(name)
		if !k.DirectCreate {
			continue
		}
		got := k.Semantic
		if !k.DirectApply || fmt.Sprint(got) != w {
			t.Errorf("%s: applied directly %t with semantic equality at %v, want true and %s", name, k.DirectApply, got, w)
		}
	}
	for _, kind := range fastPathKinds(newProvider("test")) {
		if _, ok := want[kind.TypeName]; !ok && s.Describe(kind.TypeName).DirectCreate {
			t.Errorf("direct creates for %s, not in the list", kind.TypeName)
		}
	}
}

// TestDirectApplyKeepsWhatMeansTheSame: after a direct create, a value the plan means the same
// by (another formatting of the same YAML) takes the planned value back, as the framework's
// semantic equality does; a value of another meaning stays.
func TestDirectApplyKeepsWhatMeansTheSame(t *testing.T) {
	t.Parallel()
	s, err := newFastServer("test")
	if err != nil {
		t.Fatal(err)
	}
	k := s.Describe(promiseTypeName)
	ctx := t.Context()
	planned := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n"
	for _, c := range []struct {
		name, created, want string
	}{
		{"same meaning", "kind: Namespace\napiVersion: v1\nmetadata: {name: a}\n", planned},
		{"other meaning", "kind: Namespace\napiVersion: v1\nmetadata: {name: b}\n", "kind: Namespace\napiVersion: v1\nmetadata: {name: b}\n"},
	} {
		withDeps := func(deps string) tftypes.Value {
			m := map[string]tftypes.Value{}
			for name, typ := range k.Type.(tftypes.Object).AttributeTypes {
				m[name] = tftypes.NewValue(typ, nil)
			}
			m["dependencies"] = tftypes.NewValue(tftypes.String, deps)
			return tftypes.NewValue(k.Type, m)
		}
		plan := tfsdk.Plan{Schema: k.Schema, Raw: withDeps(planned)}
		state := tfsdk.State{Schema: k.Schema, Raw: withDeps(c.created)}
		if diags := s.KeepSemanticallyEqual(ctx, promiseTypeName, plan.Raw, &state); diags.HasError() {
			t.Fatalf("%s: %s: %s", c.name, diags[0].Summary(), diags[0].Detail())
		}
		var got manifestattr.Value
		if diags := state.GetAttribute(ctx, path.Root("dependencies"), &got); diags.HasError() {
			t.Fatalf("%s: %s: %s", c.name, diags[0].Summary(), diags[0].Detail())
		}
		if got.ValueString() != c.want {
			t.Errorf("%s: dependencies %q, want %q", c.name, got.ValueString(), c.want)
		}
	}
}

// TestRequestWithComputedEqualsSet: withComputed, which writes a request's computed attributes
// into the planned value, gives what the framework's Set of the whole model gives.
func TestRequestWithComputedEqualsSet(t *testing.T) {
	t.Parallel()
	s, err := newFastServer("test")
	if err != nil {
		t.Fatal(err)
	}
	k := s.Describe(requestTypeName)
	ctx := t.Context()
	dv := dynamicFromJSON(t, k.Type, `{"name": "r", "namespace": "default", "pipeline": "instance-configure",
		"documents": "kind: ConfigMap\napiVersion: v1\nmetadata: {name: a}\n",
		"promise": {"name": "p", "destinations": [
			{"name": "w-0", "path": "w-0", "labels": {"env": "dev"}, "state_store": {"name": "s", "bucket": {"endpoint": "minio:9000", "bucket_name": "b"}}},
			{"name": "w-1", "path": "w-1", "state_store": {"name": "s", "git": {"url": "https://git.example/r.git"}}}]}}`)
	raw, err := dv.Unmarshal(k.Type)
	if err != nil {
		t.Fatal(err)
	}
	plan := tfsdk.Plan{Schema: k.Schema, Raw: raw}
	var m requestModel
	if diags := plan.Get(ctx, &m); diags.HasError() {
		t.Fatal(diags)
	}
	m.ID = types.StringValue("p/default/r")
	m.Destination, m.Location, m.Root = types.StringValue("w-1"), types.StringValue("git+https://git.example/r.git@main"), types.StringValue("w-1")
	m.Misscheduled = types.BoolValue(false)
	m.WrittenFiles = tfvalue.StringMapValue(map[string]string{"w-1/resources/x.yaml": "0123"})
	m.Documents = manifestattr.Value{StringValue: types.StringValue("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")}
	want := plan
	if diags := want.Set(ctx, &m); diags.HasError() {
		t.Fatal(diags)
	}
	got, diags := m.withComputed(ctx, raw)
	if diags.HasError() {
		t.Fatal(diags)
	}
	if !got.Equal(want.Raw) {
		t.Errorf("withComputed:\n%v\nSet:\n%v", got, want.Raw)
	}
}
