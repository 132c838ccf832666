package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestPlacementBadInput: what would let one placement reach another's files is refused at plan,
// with the attribute path, and nothing is written: request file keys that name one file twice,
// the folder itself, index files, canaries or another placement's files; destinations whose
// folders are equal or nested, whatever their store resources are called. Overlapping destination
// resources are refused at the second of them that is planned, or in the pool, whichever
// Terraform plans first.
func TestPlacementBadInput(t *testing.T) {
	t.Parallel()
	repo := newFileRepo(t)
	url := "file://" + strings.TrimSuffix(repo, ".git")
	base := kratixStateStore{Label: "s", Name: q("s"), Git: hclObj{{"url", q(url)}}.inline()}.String() + `
# The same repository and branch, spelled differently and with a path.
` + kratixStateStore{Label: "team", Name: q("team"), Path: q("team/"), Git: hclObj{{"url", q(url + ".git/")}, {"branch", q("main")}}.inline()}.String() +
		kratixDestination{Label: "a", Name: q("a"), Path: q("a"), StateStore: "kratix_state_store.s"}.String()
	request := func(files string) string {
		return base + kratixPromise{Label: "p", Name: q("p"), Dependencies: q(namespaceDoc("p")), Destinations: "[kratix_destination.a]"}.String() +
			kratixResourceRequest{Label: "r", Promise: "kratix_promise.p", Name: q("r"), Files: files}.String()
	}
	pool := func(extra string) string {
		return base + extra + `
resource "kratix_promise" "p" {
  name         = "p"
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p\n"
  destinations = [kratix_destination.a, kratix_destination.b]
}
`
	}
	tests := []struct{ name, config, want string }{
		{"two keys for one file", request(`{ "a.yaml" = "x", "./a.yaml" = "y" }`),
			`Invalid File Key[\s\S]*files\["./a.yaml"\][\s\S]*names the same file as "a.yaml"`},
		{"two keys for one file in a folder", request(`{ "a/b.yaml" = "x", "a//b.yaml" = "y" }`),
			`Invalid File Key[\s\S]*files\["a//b.yaml"\]`},
		{"the folder itself", request(`{ "." = "x" }`), `Invalid File Key[\s\S]*files\["."\]`},
		{"an index file", request(`{ ".kratix/default-x.yaml" = "files: []" }`), `Invalid File Key[\s\S]*files\[".kratix/default-x.yaml"\]`},
		{"a canary", request(`{ "kratix-canary-configmap.yaml" = "x" }`), `Invalid File Key[\s\S]*files\["kratix-canary-configmap.yaml"\]`},
		{"a promise's file", request(`{ "static/p-dependencies.yaml" = "x" }`), `Invalid File Key[\s\S]*files\["static/p-dependencies.yaml"\]`},
		{"a splitByKind file", request(`{ "crds/00-default-p-default-crds.yaml" = "x" }`), `Invalid File Key`},
		{"same folder through two store resources", pool(`
resource "kratix_destination" "b" {
  name        = "b"
  path        = "a"
  state_store = merge(kratix_state_store.team, { path = "" })
}`), `Overlapping Destination Folders[\s\S]*(destinations\[1\]\.)?path[\s\S]*same folder`},
		{"store path joined with destination path", base + `
resource "kratix_destination" "x" {
  name        = "x"
  path        = "w1"
  state_store = kratix_state_store.team
}

resource "kratix_destination" "y" {
  name        = "y"
  path        = "team/w1"
  state_store = kratix_state_store.s
}

resource "kratix_promise" "p" {
  name         = "p"
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p\n"
  destinations = [kratix_destination.x, kratix_destination.y]
}
`, `Overlapping Destination Folders[\s\S]*(destinations\[1\]\.)?path`},
		{"nested folders", pool(`
resource "kratix_destination" "b" {
  name        = "b"
  path        = "a/resources/x"
  state_store = kratix_state_store.s
}`), `Overlapping Destination Folders[\s\S]*(destinations\[1\]\.)?path[\s\S]*(inside|contains) the folder of`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps:                    []resource.TestStep{{Config: tt.config, PlanOnly: true, ExpectError: wrapped(tt.want)}},
			})
		})
	}
	if n := commitCount(t, repo); n != 1 {
		t.Errorf("the repository has %d commits after the bad plans, want 1", n)
	}
}
