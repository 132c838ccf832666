package provider

import (
	"regexp"
	"strings"
	"testing"
)

// TestAccNestedFoldersOneRule: destinations whose folders are equal, or nested where the outer one
// may not hold the inner one, are refused wherever the plan sees them, not only inside one pool:
// a destination at the repository's root in mode nestedByMetadata (which owns whole folders)
// beside another destination of the repository is refused in one promise's pool, and also when
// the two are split over two promises, as destination resources or as object literals, and
// through two store resources for one repository. The same shapes with the root in mode none
// (Kratix's root destination, whose writes are the files it names) plan, unless the inner one is
// in the root's own .kratix folder. Destinations that do not overlap, and one destination in
// several pools, plan. Nothing is written by the plans.
func TestAccNestedFoldersOneRule(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("drives the Terraform CLI; skipped with -short")
	}
	repo := newFileRepo(t)
	url := "file://" + strings.TrimSuffix(repo, ".git")
	head := requiredKratix +
		kratixStateStore{Label: "s", Name: q("s"), Git: hclObj{{"url", q(url)}}.inline()}.String() + `
# The same repository and branch, spelled differently, with a path.
` + kratixStateStore{Label: "team", Name: q("team"), Path: q("team"), Git: hclObj{{"url", q(url + ".git/")}, {"branch", q("main")}}.inline()}.String() +
		block("locals", []hclAttr{{"deps", q(namespaceDoc("x"))}}, "")
	// The root destination "platform" is in mode rootMode; the others in mode none.
	rootMode := "nestedByMetadata"
	modeOf := func(name string) string {
		if name == "platform" {
			return rootMode
		}
		return "none"
	}
	destination := func(name, path, store string) string {
		return kratixDestination{Label: name, Name: q(name), Path: q(path), FilepathMode: q(modeOf(name)), StateStore: "kratix_state_store." + store}.String()
	}
	promise := func(name, destinations string) string {
		return kratixPromise{Label: name, Name: q(name), Dependencies: "local.deps", Destinations: "[" + destinations + "]"}.String()
	}
	// A destination shared by workspaces is written as an object literal: no destination
	// resource of this configuration sees it.
	literal := func(name, path string) string {
		return hclObj{{"name", q(name)}, {"path", q(path)}, {"filepath_mode", q(modeOf(name))}, {"state_store", "kratix_state_store.s"}}.inline()
	}
	refused := `Overlapping Destination Folders`
	// Which of two resources planned in parallel is refused is Terraform's choice.
	nested := refused + `[\s\S]*(contains the folder of destination "worker-1"|is inside the folder of destination "platform")`
	type test struct {
		name, config string
		want         string // a regular expression the refusal matches; "" when the plan must pass
	}
	// The refusals, with the root in nestedByMetadata; the same configurations with the root in
	// mode none, which plan.
	shapes := func() []test {
		return []test{
			{"one pool", head + promise("p", literal("platform", ".")+", "+literal("worker-1", "worker-1")),
				refused + `[\s\S]*destinations\[1\]\.path: destination "worker-1" writes to folder "worker-1" .* which is inside the folder of destination "platform"`},
			{"one pool, destination resources", head + destination("platform", ".", "s") + destination("worker-1", "worker-1", "s") +
				promise("p", "kratix_destination.platform, kratix_destination.worker-1"), nested},
			{"two promises", head + destination("platform", ".", "s") + destination("worker-1", "worker-1", "s") +
				promise("p", "kratix_destination.platform") + promise("q", "kratix_destination.worker-1"),
				nested},
			{"two promises, destinations as object literals", head +
				promise("p", literal("platform", ".")) + promise("q", literal("worker-1", "worker-1")),
				refused + `[\s\S]*destinations\[0\]\.path: destination "(platform|worker-1)" \(kratix_promise "[pq]"\)`},
			{"two store resources for one repository", head + destination("platform", ".", "team") + destination("worker-1", "team/worker-1", "s") +
				promise("p", "kratix_destination.platform") + promise("q", "kratix_destination.worker-1"),
				nested},
			{"siblings in two promises, one destination in both", head + destination("platform", "platform", "s") +
				destination("worker-1", "worker-1", "s") + destination("worker-10", "worker-10", "team") +
				promise("p", "kratix_destination.platform, kratix_destination.worker-1") +
				promise("q", "kratix_destination.worker-1, kratix_destination.worker-10") +
				promise("r", literal("worker-1", "worker-1")), ""},
		}
	}
	tests := shapes()
	rootMode = "none"
	for _, tt := range shapes() {
		tt.name, tt.want = "root in mode none: "+tt.name, ""
		tests = append(tests, tt)
	}
	tests = append(tests,
		test{"root in mode none, another destination in its .kratix folder", head + destination("platform", ".", "s") +
			destination("worker-1", ".kratix/worker-1", "s") + promise("p", "kratix_destination.platform") +
			promise("q", "kratix_destination.worker-1"),
			`Overlapping Destination Folders[\s\S]*(contains the folder of destination "worker-1"|is inside the folder of destination "platform")[\s\S]*here the inner one is where the outer one writes itself`},
		test{"root in mode none, another destination in the same folder", head + promise("p", literal("platform", ".")+", "+literal("worker-1", "/")),
			refused + `[\s\S]*is the same folder as that of destination "platform"`},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t, map[string]string{"main.tf": tt.config})
			out, err := c.run("plan")
			// Terraform wraps a diagnostic's lines inside a box: read the words alone.
			flat := strings.Join(strings.Fields(strings.ReplaceAll(out, "│", " ")), " ")
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("the plan failed: %v\n%s", err, out)
			case tt.want != "" && err == nil:
				t.Errorf("the plan passed; want it refused with %q:\n%s", tt.want, out)
			case tt.want != "" && !regexp.MustCompile(tt.want).MatchString(flat):
				t.Errorf("the plan failed without %q:\n%s", tt.want, out)
			default:
				t.Logf("%s", out)
			}
		})
	}
	if n := commitCount(t, repo); n != 1 {
		t.Errorf("the repository has %d commits after the plans, want 1", n)
	}
}
