package provider

import (
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

// The warning lists each file an adoption adds beside what it found, with its destination and
// why: a part of an aggregate, an index file of mode none where Kratix's was not found. Files
// found (Kratix's index kept as the placement's own, the aggregate itself) and destinations
// where nothing was found (a plain write, shown as such) are not listed; nothing added, no
// warning.
func TestBookkeepingWarning(t *testing.T) {
	t.Parallel()
	const (
		part     = ".kratix-aggregates/a1/aggregated.yaml/p-static-deps.a1-5058f.part"
		ownIndex = "n1/.kratix/kratix-platform-system-p-static-deps.n1-5058f.yaml"
		kratix   = "n2/.kratix/kratix-platform-system-p-static-deps-q3v9z.n2-5058f.yaml"
	)
	rec := func(files ...string) placement.Record {
		r := placement.Record{Files: map[string]string{}}
		for _, f := range files {
			r.Files[f] = "x"
		}
		return r
	}
	found := map[string]placement.Record{
		"a1": rec("a1/aggregated.yaml"),
		"n1": rec("n1/static/p-dependencies.yaml"),
		"n2": rec("n2/static/p-dependencies.yaml", kratix),
	}
	planned := map[string]placement.Record{
		"a1": rec(part, "a1/aggregated.yaml"),
		"n1": rec("n1/static/p-dependencies.yaml", ownIndex),
		"n2": rec("n2/static/p-dependencies.yaml", kratix),
		"n3": rec("n3/static/p-dependencies.yaml", "n3/.kratix/kratix-platform-system-p-static-deps.n3-5058f.yaml"),
	}
	got := bookkeepingWarning(`Promise "p"`, found, planned)
	for _, want := range []string{
		`Promise "p" was imported and stays where it was found. The apply adds these files`,
		"it is written before the first part with every document of the file, rewritten as parts take documents over, and deleted once they all do.",
		"it is rewritten only where a part's text differs from the file's, never for the order of the documents alone",
		"- " + part + ` (destination "a1"): the part that holds Promise "p"'s documents of the aggregatedYAML file;`,
		"- " + ownIndex + ` (destination "n1"): the index file of mode none that lists the files Promise "p" writes there`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the warning does not say %q:\n%s", want, got)
		}
	}
	for _, not := range []string{kratix, "n3/", "a1/aggregated.yaml (", "static/p-dependencies.yaml ("} {
		if strings.Contains(got, not) {
			t.Errorf("the warning lists %q:\n%s", not, got)
		}
	}
	if got := bookkeepingWarning(`Promise "p"`, found, map[string]placement.Record{"n2": planned["n2"]}); got != "" {
		t.Errorf("nothing added, yet a warning:\n%s", got)
	}
}

// An import's plan says which destinations it only records (found holding exactly the planned
// files, counted) and which it writes to; nothing found, no warning.
func TestImportedWarning(t *testing.T) {
	t.Parallel()
	rec := func(files map[string]string) placement.Record { return placement.Record{Files: files} }
	found := map[string]placement.Record{
		"dev-1": rec(map[string]string{"dev-1/a.yaml": "m1", "dev-1/b.yaml": "m2"}),
		"dev-2": rec(map[string]string{"dev-2/a.yaml": "m1"}),
		"dev-3": rec(map[string]string{"dev-3/a.yaml": "old"}),
	}
	planned := map[string]placement.Record{
		"dev-1": rec(map[string]string{"dev-1/a.yaml": "m1", "dev-1/b.yaml": "m2"}),
		"dev-2": rec(map[string]string{"dev-2/a.yaml": "m1"}),
		"dev-3": rec(map[string]string{"dev-3/a.yaml": "new"}),
		"dev-4": rec(map[string]string{"dev-4/a.yaml": "m1"}),
	}
	got := importedWarning(`Promise "p"`, found, planned)
	for _, want := range []string{
		`Promise "p" is imported. Its files on dev-1, dev-2 (3 in all) were read from the store and are recorded in state as they are`,
		"nothing is written to these destinations.",
		"The apply writes to dev-3, dev-4:",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the warning does not say %q:\n%s", want, got)
		}
	}
	if got := importedWarning(`Promise "p"`, nil, planned); got != "" {
		t.Errorf("nothing found, yet a warning:\n%s", got)
	}
}
