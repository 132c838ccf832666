package provider

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
	"github.com/promise-platform/terraform-provider-kratix/internal/tfserver"
)

// TestAccDirectAnswers: a promise's steady state, and the plans of new destinations and promises, are answered by the steady-state server, and
// every such answer equals the framework's (the servers run in verify mode, where a difference is
// an error that fails the step). Steps: apply; a no-change plan; a file deleted by hand (Read records it, the
// plan is an update and goes to the framework); the repair; on_unschedule set, then unset again
// (its default, which the direct plan applies itself).
func TestAccDirectAnswers(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		var mu sync.Mutex
		var servers []*countedServer
		factories := map[string]func() (tfprotov6.ProviderServer, error){
			"kratix": func() (tfprotov6.ProviderServer, error) {
				s, check, err := newVerifiedServer("test")
				if err != nil {
					return nil, err
				}
				cs := &countedServer{Server: s, check: check}
				mu.Lock()
				servers = append(servers, cs)
				mu.Unlock()
				return cs, nil
			},
		}
		type seen struct{ upgrades, reads, plans, passed int64 }
		total := func() (c seen) {
			mu.Lock()
			defer mu.Unlock()
			for _, s := range servers {
				c.upgrades += s.check.Upgrades.Load()
				c.reads += s.check.Reads.Load()
				c.plans += s.check.Plans.Load()
				c.passed += s.plans.Load() - s.check.Plans.Load()
			}
			return c
		}
		config := promiseConfig(ts, []string{`{ env = "dev" }`, `{ env = "dev" }`, `{}`}, `  name = "eck"
  destination_selectors = [{ match_labels = { env = "dev" } }]
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: foo\n"`)
		file := "worker-2/dependencies/eck/5058f/static/eck-dependencies.yaml"
		var afterApply, afterPlan seen
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: factories,
			Steps: []resource.TestStep{
				{Config: config, ConfigStateChecks: []statecheck.StateCheck{acctest.FileHolds(ts.view, file, namespaceFoo)}},
				{
					PreConfig: func() { afterApply = total() },
					Config:    config, PlanOnly: true,
				},
				{
					PreConfig: func() { afterPlan = total(); ts.remove(t, file) },
					Config:    config,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kratix_promise.p", plancheck.ResourceActionUpdate),
					}},
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.FileHolds(ts.view, file, namespaceFoo),
					},
				},
				{Config: strings.Replace(config, `name = "eck"`, `name = "eck"
  on_unschedule = "delete"`, 1)},
				{
					// Back to the default, "keep".
					Config: config,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kratix_promise.p", plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue("kratix_promise.p", tfjsonpath.New("on_unschedule"), knownvalue.StringExact("keep")),
					}},
				},
			},
		})
		end := total()
		// The creates (store, destinations, promise): the store's plan goes to the framework, the
		// destinations' and the promise's are answered directly (internal/tfserver/direct_plan.go).
		if afterApply.plans < 4 || afterApply.passed == 0 {
			t.Errorf("the creates' plans: %d answered directly, want the 3 destinations' and the promise's at least; %d passed to the framework, want the store's", afterApply.plans, afterApply.passed)
		}
		if d := afterPlan.plans - afterApply.plans; d == 0 {
			t.Errorf("no plan answered directly during the no-change plan (counts after apply %+v, after plan %+v)", afterApply, afterPlan)
		}
		if afterPlan.reads == afterApply.reads || afterPlan.upgrades == afterApply.upgrades {
			t.Errorf("the no-change plan's refresh was not answered directly (after apply %+v, after plan %+v)", afterApply, afterPlan)
		}
		if end.passed == afterPlan.passed {
			t.Errorf("the update after the hand deletion was answered directly, not by the framework (%+v, %+v)", afterPlan, end)
		}
	})
}

// TestDirectCompareReportsDifferences: the verify mode's comparison sees a different value,
// different diagnostics and different private state, and nothing else.
func TestDirectCompareReportsDifferences(t *testing.T) {
	t.Parallel()
	ds, check, err := newVerifiedServer("test")
	if err != nil {
		t.Fatal(err)
	}
	typ := ds.Describe(promiseTypeName).Type
	null := tftypes.NewValue(typ, nil)
	objType := typ.(tftypes.Object)
	m := map[string]tftypes.Value{}
	for name, typ := range objType.AttributeTypes {
		m[name] = tftypes.NewValue(typ, nil)
	}
	named := func(name string) *tfprotov6.DynamicValue {
		v := maps.Clone(m)
		v["name"] = tftypes.NewValue(tftypes.String, name)
		dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, v))
		if err != nil {
			t.Fatal(err)
		}
		return &dv
	}
	nullDV, err := tfprotov6.NewDynamicValue(typ, null)
	if err != nil {
		t.Fatal(err)
	}
	warn := []*tfprotov6.Diagnostic{{Severity: tfprotov6.DiagnosticSeverityWarning, Summary: "Promise Scheduling", Detail: "x"}}
	for _, c := range []struct {
		name       string
		a, b       *tfprotov6.DynamicValue
		da, db     []*tfprotov6.Diagnostic
		pa, pb     []byte
		mismatches int
	}{
		{"same", named("a"), named("a"), warn, warn, nil, []byte("{}"), 0},
		{"nil is null", nil, &nullDV, nil, nil, nil, nil, 0},
		{"value", named("a"), named("b"), nil, nil, nil, nil, 1},
		{"diagnostics", named("a"), named("a"), warn, nil, nil, nil, 1},
		{"private", named("a"), named("a"), nil, nil, []byte(`{"adopt":"e30="}`), nil, 1},
		{"all three", named("a"), nil, nil, warn, nil, []byte(`{"a":"b"}`), 3},
	} {
		if got := check.Compare("Test", promiseTypeName, c.a, c.b, c.da, c.db, c.pa, c.pb); len(got) != c.mismatches {
			t.Errorf("%s: %d mismatches, want %d: %v", c.name, len(got), c.mismatches, got)
		}
	}
}

// TestServedProviderHasNoCheck: the server main.go serves compares nothing with the framework;
// only the tests' servers do.
func TestServedProviderHasNoCheck(t *testing.T) {
	t.Parallel()
	s, err := NewServer("test")()
	if err != nil {
		t.Fatal(err)
	}
	ss, ok := s.(*tfserver.Server)
	if !ok {
		t.Fatalf("NewServer serves a %T, want tfserver's", s)
	}
	if ss.HasCheck() {
		t.Errorf("the served server has a check: users would pay for the framework's answers too")
	}
}

// countedServer counts the kratix_promise plans it is asked, answered directly or not.
type countedServer struct {
	*tfserver.Server
	check *tfserver.FrameworkCheck
	plans atomic.Int64
}

func (s *countedServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	s.plans.Add(1)
	return s.Server.PlanResourceChange(ctx, req)
}

// TestPromiseSchemaSteadyStateFeatures: the steady-state server answers a promise's upgrade,
// read and no-change plan without the framework, so it must do whatever the framework would do
// for the schema's features. planNoChange applies the schema's defaults itself and relies on its
// plan modifiers doing nothing when the plan equals the state. A custom type with semantic
// equality can change what the framework's Read returns when Read changes the value; a write-only
// attribute is nulled by the framework in every answer; an identity is read and returned beside
// the state. A default, plan modifier, custom type, write-only attribute or identity added to
// kratix_promise must be handled by internal/tfserver (server.go) first; this lists those it handles.
func TestPromiseSchemaSteadyStateFeatures(t *testing.T) {
	t.Parallel()
	var sr fwresource.SchemaResponse
	(&promiseResource{}).Schema(context.Background(), fwresource.SchemaRequest{}, &sr)
	found := schemaFeatures(reflect.ValueOf(sr.Schema))
	if _, ok := any(&promiseResource{}).(fwresource.ResourceWithIdentity); ok {
		found = append(found, " identity")
	}
	slices.Sort(found)
	want := []string{
		// ModifyPlan keeps the prior value when the configured one means the same
		// (manifestattr.KeepIfSameMeaning), and Read never changes it, so the framework's semantic
		// equality after Read, which can only put the prior value back, changes nothing.
		".dependencies custom type manifestattr.Type",
		".id stringplanmodifier.useStateForUnknownModifier",
		".name stringplanmodifier.requiresReplaceIfModifier",
		".observe.max_age custom type timetypes.GoDurationType", // see rollout.min_wait below
		".on_unschedule default",
		// String types with semantic equality ("1h" and "60m"; two spellings of one instant).
		// The framework applies it after Read and apply, to values Read returns changed; Read
		// never changes min_wait or observe.max_age (configuration) nor rollout_status (set by
		// plan and apply only), and a no-change plan is one whose values equal the state's exactly.
		".rollout.gate.settle custom type timetypes.GoDurationType",
		".rollout.gate.timeout custom type timetypes.GoDurationType",
		".rollout.min_wait custom type timetypes.GoDurationType",
		".rollout_status.checked_at custom type timetypes.RFC3339Type",
		".rollout_status.last_wave_at custom type timetypes.RFC3339Type",
		".rollout_status.next_wave_not_before custom type timetypes.RFC3339Type",
		// An object type with no semantic equality: its values are compared as plain objects.
		".timeouts custom type timeouts.Type",
	}
	if !slices.Equal(found, want) {
		t.Errorf("kratix_promise's defaults, plan modifiers, custom types, write-only attributes and identity:\n got %q\nwant %q\n"+
			"(handle the new one in withDefaults and planNoChange in internal/tfserver/server.go, or pass such "+
			"promises to the framework, then add it here)", found, want)
	}
}

// schemaFeatures lists, by attribute path, the defaults, plan modifiers, custom types and
// write-only attributes of a schema, a nested object or an attribute, found by reflection so
// that a new kind of attribute or block is walked too.
func schemaFeatures(v reflect.Value) []string {
	var found []string
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return
		}
		if f := v.FieldByName("Default"); f.IsValid() && !f.IsZero() {
			found = append(found, prefix+" default")
		}
		if f := v.FieldByName("PlanModifiers"); f.IsValid() {
			for i := range f.Len() {
				found = append(found, prefix+" "+reflect.Indirect(f.Index(i).Elem()).Type().String())
			}
		}
		if f := v.FieldByName("CustomType"); f.IsValid() && !f.IsZero() {
			found = append(found, prefix+" custom type "+reflect.Indirect(f.Elem()).Type().String())
		}
		if f := v.FieldByName("WriteOnly"); f.IsValid() && f.Kind() == reflect.Bool && f.Bool() {
			found = append(found, prefix+" write-only")
		}
		if f := v.FieldByName("ElementType"); f.IsValid() && !f.IsZero() {
			if typ, ok := f.Interface().(attr.Type); ok {
				found = append(found, customTypesIn(prefix+"[*]", typ)...)
			}
		}
		for _, field := range []string{"Attributes", "Blocks"} {
			if f := v.FieldByName(field); f.IsValid() && f.Kind() == reflect.Map {
				for _, k := range f.MapKeys() {
					walk(prefix+"."+k.String(), f.MapIndex(k))
				}
			}
		}
		if f := v.FieldByName("NestedObject"); f.IsValid() {
			walk(prefix+"[*]", f)
		}
	}
	walk("", v)
	return found
}

// customTypesIn lists the types in typ, an element type, that are not the framework's own.
func customTypesIn(prefix string, typ attr.Type) []string {
	const frameworkTypes = "github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	var found []string
	if rt := reflect.Indirect(reflect.ValueOf(typ)).Type(); rt.PkgPath() != frameworkTypes {
		found = append(found, prefix+" custom type "+rt.String())
	}
	switch t := typ.(type) {
	case attr.TypeWithElementType:
		found = append(found, customTypesIn(prefix+"[*]", t.ElementType())...)
	case attr.TypeWithElementTypes:
		for i, et := range t.ElementTypes() {
			found = append(found, customTypesIn(fmt.Sprintf("%s[%d]", prefix, i), et)...)
		}
	case attr.TypeWithAttributeTypes:
		for name, at := range t.AttributeTypes() {
			found = append(found, customTypesIn(prefix+"."+name, at)...)
		}
	}
	return found
}
