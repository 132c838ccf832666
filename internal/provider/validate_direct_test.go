package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/promise-platform/terraform-provider-kratix/internal/tfserver"
)

// TestDirectValidationKinds: destinations, promises and requests are validated without the
// framework's walk.
func TestDirectValidationKinds(t *testing.T) {
	t.Parallel()
	s, err := newFastServer("test")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{destinationTypeName, promiseTypeName, requestTypeName} {
		if !s.Describe(name).DirectValidation {
			t.Errorf("%s is validated by the framework's walk", name)
		}
	}
}

// TestDirectValidationOfRequests: write-only attributes set for a client that does not allow them
// and for one that does, workload groups (a map of nested objects) with an empty selector entry,
// documents that are not YAML, credentials in the promise's pool, and a valid request: answered
// directly with the framework's diagnostics (verify mode compares), each at its attribute.
func TestDirectValidationOfRequests(t *testing.T) {
	t.Parallel()
	s, check, err := newVerifiedServer("test")
	if err != nil {
		t.Fatal(err)
	}
	typ := s.Describe(requestTypeName).Type
	const docs = `"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"`
	promise := `"promise": {"name": "app", "destinations": [{"name": "w-0", "path": "w-0", "labels": {"env": "dev"}, "state_store": {"name": "s", "git": {"url": "https://git.example/r.git"}}}]}`
	request := func(fields string) *tfprotov6.DynamicValue {
		return dynamicFromJSON(t, typ, `{"name": "one", `+promise+fields+`}`)
	}
	for _, c := range []struct {
		name      string
		config    *tfprotov6.DynamicValue
		writeOnly bool // the client allows write-only attributes
		wants     []string
	}{
		{"valid", request(`, "documents": ` + docs + `, "groups": {"db": {"destination_selectors": [{"match_labels": {"env": "dev"}}]}}`), true, nil},
		{"write-only allowed", request(`, "documents_wo": ` + docs + `, "files_wo": {"a.yaml": "x: 1\n"}`), true, nil},
		{"write-only refused", request(`, "documents_wo": ` + docs + `, "files_wo": {"a.yaml": "x: 1\n"}`), false,
			[]string{"WriteOnly Attribute Not Allowed", `AttributeName("documents_wo")`, `AttributeName("files_wo")`}},
		{"empty group selector", request(`, "documents": ` + docs + `, "groups": {"db": {"destination_selectors": [{}]}}`), true,
			[]string{"Empty Selector", `AttributeName("groups").ElementKeyString("db").AttributeName("destination_selectors").ElementKeyInt(0)`}},
		{"not yaml", request(`, "documents": "a: [unclosed"`), true, []string{`AttributeName("documents")`}},
		{"credentials in the pool", dynamicFromJSON(t, typ, `{"name": "one", "documents": `+docs+`, "promise": {"name": "app", "destinations": [{"name": "w-0", "path": "w-0", "state_store": {"name": "s", "git": {"url": "https://bob:s3cret@git.example/r.git"}}}]}}`), true,
			[]string{"Credentials in Git URL", `AttributeName("promise").AttributeName("destinations").ElementKeyInt(0).AttributeName("state_store").AttributeName("git").AttributeName("url")`}},
	} {
		validateDirectly(t, s, check, c.name, &tfprotov6.ValidateResourceConfigRequest{TypeName: requestTypeName, Config: c.config,
			ClientCapabilities: &tfprotov6.ValidateResourceConfigClientCapabilities{WriteOnlyAttributesAllowed: c.writeOnly}}, c.wants)
	}
}

// validateDirectly validates req on the verified server and checks that it was answered directly,
// that the framework gave the same diagnostics, that no password shows, and that the diagnostics
// hold each of wants (summaries, attribute paths), or are none when wants is.
func validateDirectly(t *testing.T, s *tfserver.Server, check *tfserver.FrameworkCheck, name string, req *tfprotov6.ValidateResourceConfigRequest, wants []string) {
	t.Helper()
	before := check.Validations.Load()
	resp, err := s.ValidateResourceConfig(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if check.Validations.Load() != before+1 {
		t.Errorf("%s: not answered directly", name)
	}
	text := diagnosticsText(resp.Diagnostics) + fmt.Sprint(attributePaths(resp.Diagnostics))
	if strings.Contains(text, "Direct Answer Differs") || strings.Contains(text, "s3cret") {
		t.Errorf("%s: %s", name, text)
	}
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s: diagnostics %s: want %q", name, text, w)
		}
	}
	if len(wants) == 0 && len(resp.Diagnostics) > 0 {
		t.Errorf("%s: diagnostics %s, want none", name, text)
	}
}

// TestDirectValidationOfPromises: a promise's dependencies that are not YAML (a custom type's own
// validation), a duration that is not one, an empty selector entry (an object validator on list
// elements), a Git URL with credentials in the pool, and a valid promise with a rollout: answered
// directly, with the framework's diagnostics (verify mode compares), each at its attribute.
func TestDirectValidationOfPromises(t *testing.T) {
	t.Parallel()
	s, check, err := newVerifiedServer("test")
	if err != nil {
		t.Fatal(err)
	}
	typ := s.Describe(promiseTypeName).Type
	const ns = `"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: foo\n"`
	pool := `"destinations": [{"name": "w-0", "path": "w-0", "labels": {"env": "dev"}, "state_store": {"name": "s", "git": {"url": "https://git.example/r.git"}}}]`
	promise := func(deps, extra string) *tfprotov6.DynamicValue {
		return dynamicFromJSON(t, typ, `{"name": "app", "dependencies": `+deps+`, `+pool+extra+`}`)
	}
	for _, c := range []struct {
		name   string
		config *tfprotov6.DynamicValue
		wants  []string
	}{
		{"valid", promise(ns, `, "destination_selectors": [{"match_labels": {"env": "dev"}}], "rollout": {"waves": [{"name": "canary", "destination_selectors": [{"match_labels": {"env": "dev"}}]}], "min_wait": "10m"}`), nil},
		{"not yaml", promise(`"a: [unclosed"`, ""), []string{`AttributeName("dependencies")`}},
		{"bad duration", promise(ns, `, "rollout": {"waves": [{"name": "canary", "destination_selectors": [{"match_labels": {"env": "dev"}}]}], "min_wait": "soon"}`), []string{`AttributeName("rollout").AttributeName("min_wait")`}},
		{"a wave without its name", promise(ns, `, "rollout": {"waves": [{"destination_selectors": [{"match_labels": {"env": "dev"}}]}]}`),
			[]string{"Missing Configuration for Required Attribute", `AttributeName("rollout").AttributeName("waves").ElementKeyInt(0).AttributeName("name")`}},
		{"empty selector", promise(ns, `, "destination_selectors": [{"match_labels": {"env": "dev"}}, {}]`), []string{"Empty Selector", `AttributeName("destination_selectors").ElementKeyInt(1)`}},
		{"credentials in the pool", dynamicFromJSON(t, typ, `{"name": "app", "dependencies": `+ns+`, "destinations": [{"name": "w-0", "path": "w-0", "state_store": {"name": "s", "git": {"url": "https://bob:s3cret@git.example/r.git"}}}]}`),
			[]string{"Credentials in Git URL", `AttributeName("destinations").ElementKeyInt(0).AttributeName("state_store").AttributeName("git").AttributeName("url")`}},
	} {
		validateDirectly(t, s, check, c.name, &tfprotov6.ValidateResourceConfigRequest{TypeName: promiseTypeName, Config: c.config}, c.wants)
	}
}

// TestDirectValidationAgreesWithFramework: destinations valid and invalid in each validated
// attribute, unknown values, a read-only attribute set and a required one null are answered
// directly with the framework's diagnostics (verify mode adds any difference as an error), each
// error at its attribute; a configuration with timeouts or an unknown taint goes to the framework.
func TestDirectValidationAgreesWithFramework(t *testing.T) {
	t.Parallel()
	s, check, err := newVerifiedServer("test")
	if err != nil {
		t.Fatal(err)
	}
	typ := s.Describe(destinationTypeName).Type
	const store = `"state_store": {"name": "s", "bucket": {"endpoint": "127.0.0.1:9000", "bucket_name": "b"}}`
	dest := func(extra string) string {
		return `{"name": "dev", "path": "dev", ` + store + extra + `}`
	}
	unknownAt := func(text string, steps ...any) *tfprotov6.DynamicValue {
		v := mustUnmarshal(t, typ, text)
		v, err := tftypes.Transform(v, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
			if fmt.Sprint(p.Steps()) == fmt.Sprint(tftypes.NewAttributePathWithSteps(pathSteps(steps...)).Steps()) {
				return tftypes.NewValue(v.Type(), tftypes.UnknownValue), nil
			}
			return v, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		dv, err := tfprotov6.NewDynamicValue(typ, v)
		if err != nil {
			t.Fatal(err)
		}
		return &dv
	}
	for _, c := range []struct {
		name   string
		config *tfprotov6.DynamicValue
		direct bool
		wants  []string // summary or attribute path in the diagnostics
	}{
		{"valid", dynamicFromJSON(t, typ, dest(`, "labels": {"env": "dev"}, "weight": 3, "taints": [{"key": "gpu", "effect": "NoSchedule"}]`)), true, nil},
		{"bad name", dynamicFromJSON(t, typ, strings.Replace(dest(""), `"name": "dev"`, `"name": "Dev_1"`, 1)), true, []string{`AttributeName("name")`}},
		{"bad label", dynamicFromJSON(t, typ, dest(`, "labels": {"bad key!": "x"}`)), true, []string{`AttributeName("labels")`}},
		{"bad path", dynamicFromJSON(t, typ, strings.Replace(dest(""), `"path": "dev"`, `"path": "../up"`, 1)), true, []string{`AttributeName("path")`}},
		{"bad mode", dynamicFromJSON(t, typ, dest(`, "filepath_mode": "sideways"`)), true, []string{`AttributeName("filepath_mode")`}},
		{"bad weight", dynamicFromJSON(t, typ, dest(`, "weight": 0`)), true, []string{`AttributeName("weight")`}},
		{"the same taint twice", dynamicFromJSON(t, typ, dest(`, "taints": [{"key": "gpu", "effect": "NoSchedule"}, {"key": "gpu", "effect": "NoSchedule"}]`)), true, []string{"Invalid Taints", `AttributeName("taints")`}},
		{"bad taint effect", dynamicFromJSON(t, typ, dest(`, "taints": [{"key": "gpu", "effect": "Never"}]`)), true, []string{`AttributeName("taints").ElementKeyInt(0).AttributeName("effect")`}},
		{"credentials in git url", dynamicFromJSON(t, typ, `{"name": "dev", "path": "dev", "state_store": {"name": "s", "git": {"url": "https://bob:s3cret@git.example/r.git"}}}`), true,
			[]string{"Credentials in Git URL", `AttributeName("state_store").AttributeName("git").AttributeName("url")`}},
		{"read-only set", dynamicFromJSON(t, typ, dest(`, "root": "elsewhere"`)), true, []string{"Invalid Configuration for Read-Only Attribute", `AttributeName("root")`}},
		{"required null", dynamicFromJSON(t, typ, `{"name": "dev", `+store+`}`), true, []string{"Missing Configuration for Required Attribute", `AttributeName("path")`}},
		{"name unknown", unknownAt(dest(""), "name"), true, nil},
		{"store unknown", unknownAt(dest(""), "state_store"), true, nil},
		{"labels unknown", unknownAt(dest(`, "labels": {"env": "dev"}`), "labels"), true, nil},
		{"taints unknown", unknownAt(dest(`, "taints": [{"key": "gpu", "effect": "NoSchedule"}]`), "taints"), true, nil},
		// The framework reads the attributes of an unknown element as null and says they are
		// missing: that answer is left to it.
		{"a taint unknown", unknownAt(dest(`, "taints": [{"key": "gpu", "effect": "NoSchedule"}]`), "taints", 0), false,
			[]string{"Missing Configuration for Required Attribute", `AttributeName("taints").ElementKeyInt(0).AttributeName("key")`}},
		{"timeouts", dynamicFromJSON(t, typ, dest(`, "timeouts": {"create": "forever"}`)), false, []string{`AttributeName("timeouts")`}},
	} {
		before := check.Validations.Load()
		resp, err := s.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{TypeName: destinationTypeName, Config: c.config})
		if err != nil {
			t.Fatal(err)
		}
		if got := check.Validations.Load() != before; got != c.direct {
			t.Errorf("%s: answered directly %v, want %v", c.name, got, c.direct)
		}
		text := diagnosticsText(resp.Diagnostics) + fmt.Sprint(attributePaths(resp.Diagnostics))
		if strings.Contains(text, "Direct Answer Differs") {
			t.Errorf("%s: %s", c.name, text)
		}
		for _, w := range c.wants {
			if !strings.Contains(text, w) {
				t.Errorf("%s: diagnostics %s: want %q", c.name, text, w)
			}
		}
		if len(c.wants) == 0 && len(resp.Diagnostics) > 0 {
			t.Errorf("%s: diagnostics %s, want none", c.name, text)
		}
		if strings.Contains(text, "s3cret") {
			t.Errorf("%s: the password is in a diagnostic: %s", c.name, text)
		}
	}
}

func mustUnmarshal(t *testing.T, typ tftypes.Type, text string) tftypes.Value {
	t.Helper()
	v, err := (&tfprotov6.DynamicValue{JSON: []byte(text)}).Unmarshal(typ)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return v
}

// pathSteps turns names and list indexes into attribute path steps.
func pathSteps(steps ...any) []tftypes.AttributePathStep {
	var out []tftypes.AttributePathStep
	for _, s := range steps {
		switch s := s.(type) {
		case string:
			out = append(out, tftypes.AttributeName(s))
		case int:
			out = append(out, tftypes.ElementKeyInt(s))
		}
	}
	return out
}
