package provider

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// The language features an example or a test may use that not every supported Terraform has.
const (
	featureImportBlock       = "`import` blocks"
	featureCheckBlock        = "`check` blocks"
	featureTestFiles         = "`terraform test` files (`*.tftest.hcl`)"
	featureRemovedBlock      = "`removed` blocks"
	featureTestMocks         = "`mock_provider` and `override_*` in tests"
	featureProviderFunctions = "provider functions (`provider::kratix::matches`)"
	featureEphemeralVariable = "ephemeral variables"
	featureWriteOnly         = "write-only attributes"
)

// baseTerraform is the oldest Terraform the provider is documented and tested with (make compat
// runs 1.5.7): a configuration that declares no required_version may use what it has.
const baseTerraform = "1.5"

// featureMinimums is the first Terraform version with each feature, from Terraform's changelog.
// The provider page's table (templates/index.md.tmpl) must say the same.
var featureMinimums = map[string]string{
	featureImportBlock:       "1.5",
	featureCheckBlock:        "1.5",
	featureTestFiles:         "1.6",
	featureRemovedBlock:      "1.7",
	featureTestMocks:         "1.7",
	featureProviderFunctions: "1.8",
	featureEphemeralVariable: "1.10",
	featureWriteOnly:         "1.11",
}

// TestExamplesDeclareTheVersionTheyNeed reads every configuration and test file under examples/
// and fails when a module uses a feature newer than the lowest Terraform its required_version
// allows (or newer than baseTerraform when it declares none). A module is a folder with .tf
// files; test files in a folder without any belong to the module above (a -test-directory).
func TestExamplesDeclareTheVersionTheyNeed(t *testing.T) {
	t.Parallel()
	writeOnly := writeOnlyAttributes(t)
	modules := map[string]*moduleVersions{}
	err := filepath.WalkDir("../../examples", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		test := strings.HasSuffix(path, ".tftest.hcl")
		if !test && filepath.Ext(path) != ".tf" {
			return nil
		}
		m := modules[moduleOf(t, filepath.Dir(path))]
		if m == nil {
			m = &moduleVersions{uses: map[string]string{}}
			modules[moduleOf(t, filepath.Dir(path))] = m
		}
		return m.read(path, test, writeOnly)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(modules) < 10 {
		t.Fatalf("found %d example modules under examples/; the walk is wrong", len(modules))
	}
	dirs := make([]string, 0, len(modules))
	for dir := range modules {
		dirs = append(dirs, dir)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		m := modules[dir]
		declared, where := m.lowest, m.declaredAt
		if declared == "" {
			declared, where = baseTerraform, "no required_version, so the provider's minimum"
		}
		needed := baseTerraform
		for feature, at := range m.uses {
			need := featureMinimums[feature]
			if !versionAtLeast(declared, need) {
				t.Errorf("%s: %s uses %s, which needs Terraform >= %s, but the module allows %s (%s): declare required_version = \">= %s\" in its terraform block",
					dir, at, feature, need, declared, where, need)
			}
			if versionAtLeast(need, needed) {
				needed = need
			}
		}
		if m.lowest != "" && !versionAtLeast(needed, m.lowest) {
			t.Errorf("%s: %s, but nothing in the module needs more than Terraform %s: declare the lowest version it needs", dir, where, needed)
		}
		t.Logf("%s: allows >= %s; uses %v", dir, declared, m.uses)
	}
}

// moduleVersions is what one example module declares and uses.
type moduleVersions struct {
	lowest     string            // the lowest version required_version allows; "" when none is declared
	declaredAt string            // where required_version is
	uses       map[string]string // feature => where it is first used
}

// read records the required_version and the version-bound features of one file.
func (m *moduleVersions) read(path string, test bool, writeOnly map[string][]string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	file, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
	if diags.HasErrors() {
		return diags
	}
	body := file.Body.(*hclsyntax.Body)
	use := func(feature string, r hcl.Range) {
		if _, seen := m.uses[feature]; !seen {
			m.uses[feature] = fmt.Sprintf("%s:%d", filepath.Base(r.Filename), r.Start.Line)
		}
	}
	if test {
		use(featureTestFiles, body.SrcRange)
	}
	for _, block := range body.Blocks {
		switch block.Type {
		case "terraform":
			if attr, ok := block.Body.Attributes["required_version"]; ok {
				v, diags := attr.Expr.Value(nil)
				if diags.HasErrors() {
					return diags
				}
				m.lowest, m.declaredAt = lowestAllowed(v.AsString()), fmt.Sprintf("required_version = %q at %s:%d", v.AsString(), filepath.Base(path), attr.SrcRange.Start.Line)
			}
		case "import":
			use(featureImportBlock, block.TypeRange)
		case "check":
			use(featureCheckBlock, block.TypeRange)
		case "removed":
			use(featureRemovedBlock, block.TypeRange)
		case "mock_provider", "override_resource", "override_data", "override_module":
			use(featureTestMocks, block.TypeRange)
		case "variable":
			if _, ok := block.Body.Attributes["ephemeral"]; ok {
				use(featureEphemeralVariable, block.TypeRange)
			}
		case "resource":
			for _, name := range writeOnly[block.Labels[0]] {
				if attr, ok := block.Body.Attributes[name]; ok {
					use(featureWriteOnly, attr.SrcRange)
				}
			}
		}
	}
	// The visitor reports nothing, so VisitAll has no diagnostics to return.
	_ = hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		if call, ok := n.(*hclsyntax.FunctionCallExpr); ok && strings.HasPrefix(call.Name, "provider::") {
			use(featureProviderFunctions, call.NameRange)
		}
		return nil
	})
	return nil
}

// moduleOf is the folder whose module a file in dir belongs to: dir itself when it holds .tf
// files, else the nearest folder above that does.
func moduleOf(t *testing.T, dir string) string {
	for d := dir; d != "." && d != string(filepath.Separator); d = filepath.Dir(d) {
		if tf, _ := filepath.Glob(filepath.Join(d, "*.tf")); len(tf) > 0 {
			return d
		}
		if filepath.Base(d) == "examples" {
			break
		}
	}
	t.Fatalf("%s holds test files but neither it nor a folder above it holds a .tf file", dir)
	return ""
}

var lowerBound = regexp.MustCompile(`(>=|>|~>|=)?\s*v?(\d+(?:\.\d+){0,2})`)

// lowestAllowed reads a version constraint's lower bound: the highest of its ">=", ">", "~>" and
// "=" versions (a ">" bound is rounded down, which can only make the check stricter).
func lowestAllowed(constraint string) string {
	lowest := "0"
	for _, part := range strings.Split(constraint, ",") {
		m := lowerBound.FindStringSubmatch(strings.TrimSpace(part))
		if m == nil || strings.HasPrefix(strings.TrimSpace(part), "<") || strings.HasPrefix(strings.TrimSpace(part), "!=") {
			continue
		}
		if versionAtLeast(m[2], lowest) {
			lowest = m[2]
		}
	}
	return lowest
}

// writeOnlyAttributes lists the write-only attributes of every resource, from the provider's
// own schema (top-level attributes: the provider has no nested write-only one).
func writeOnlyAttributes(t *testing.T) map[string][]string {
	schema := providerSchema(t)
	out := map[string][]string{}
	for name, s := range schema.ResourceSchemas {
		for _, attr := range s.Block.Attributes {
			if attr.WriteOnly {
				out[name] = append(out[name], attr.Name)
			}
		}
	}
	if len(out["kratix_resource_request"]) == 0 {
		t.Fatal("the provider's schema has no write-only attribute of kratix_resource_request: the check would find nothing")
	}
	return out
}

func providerSchema(t *testing.T) *tfprotov6.GetProviderSchemaResponse {
	t.Helper()
	srv, err := NewServer("test")()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestDocumentedMinimumVersions checks that the docs give the minimums featureMinimums holds:
// the provider page's table, the function's description and every write-only attribute's.
func TestDocumentedMinimumVersions(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("../../templates/index.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	for _, feature := range []string{featureImportBlock, featureRemovedBlock, featureProviderFunctions, featureEphemeralVariable, featureWriteOnly, featureTestFiles} {
		row := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(feature) + ` \| (>= [0-9.]+) \|`).FindSubmatch(page)
		if want := ">= " + featureMinimums[feature]; row == nil || string(row[1]) != want {
			found := "no such row"
			if row != nil {
				found = string(row[0])
			}
			t.Errorf("templates/index.md.tmpl: the table of Terraform versions must have a row \"| %s | %s | ...\"; found %s", feature, want, found)
		}
	}
	for _, f := range compatFeatures {
		if f.terraform == "" || f.tofu == "" {
			t.Errorf("compatFeatures: %q has no minimum", f.name)
		}
	}
	schema := providerSchema(t)
	wantFn := "Terraform " + featureMinimums[featureProviderFunctions] + " or later"
	for name, fn := range schema.Functions {
		if !strings.Contains(fn.Description, wantFn) {
			t.Errorf("function %s: its description must say %q:\n%s", name, wantFn, fn.Description)
		}
	}
	wantWO := "Terraform " + featureMinimums[featureWriteOnly] + " or later"
	for resource := range writeOnlyAttributes(t) {
		for _, attr := range schema.ResourceSchemas[resource].Block.Attributes {
			if attr.WriteOnly && !strings.Contains(attr.Description, wantWO) {
				t.Errorf("%s.%s is write-only: its description must say %q:\n%s", resource, attr.Name, wantWO, attr.Description)
			}
		}
	}
}
