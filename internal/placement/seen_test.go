package placement_test

import (
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

// Leaves: under a folder the plan looked into, a file it did not see there is left; a file it
// saw, a file under a folder it did not look into, and a file outside every such folder are not.
func TestChangeLeaves(t *testing.T) {
	c := placement.Change{Seen: map[string][]string{
		"w/dependencies/p/5058f/": {"w/dependencies/p/5058f/static/p-dependencies.yaml", "w/dependencies/p/5058f/static/z.yaml"},
		"w/resources/p/empty/":    {},
	}}
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"w/dependencies/p/5058f/static/p-dependencies.yaml", false},
		{"w/dependencies/p/5058f/static/z.yaml", false},
		{"w/dependencies/p/5058f/static/added-later.yaml", true},
		{"w/dependencies/p/5058f/added-later.yaml", true},
		{"w/resources/p/empty/anything.yaml", true},
		{"w/dependencies/q/5058f/static/q.yaml", false}, // a folder the plan did not look into
		{"w/dependencies/p/5058f", false},               // the folder's name is not under it
	} {
		if got := c.Leaves(tc.path); got != tc.want {
			t.Errorf("Leaves(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
	if (placement.Change{Prune: []string{"w/"}}).Leaves("w/x.yaml") {
		t.Errorf("a change without Seen leaves a file: its folders are cleared as they are")
	}
}

// What the plan saw travels with the change: a placement held before watches its owned folder
// with the files of its refreshed record (a stray file the refresh found is among them, so it
// goes), both when it is written again and when it is removed; a placement new in a folder, which
// the plan did not look into, does not watch it.
func TestPromiseChangeCarriesWhatThePlanSaw(t *testing.T) {
	m := dev("")
	stray := "kratix/dev/dependencies/jenkins/5058f/static/stray.yaml"
	held := map[string]placement.Prior{"dev": {Member: &m, Record: placement.Record{Store: "store", Location: locA().String(), Root: devRoot,
		Files: map[string]string{nestedDepsFile: depsMD5, stray: "0123456789abcdef0123456789abcdef"}}}}

	t.Run("written again", func(t *testing.T) {
		p := planPromise(t, placement.Promise{Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsV2YAML),
			Pool: []placement.Member{m}, Prior: held})
		a := opAt(t, p.Ops, locA())
		equal(t, "Seen", a.Change.Seen, map[string][]string{nestedDepsDir: {nestedDepsFile, stray}})
		if a.Change.Leaves(stray) {
			t.Errorf("the stray file the plan saw is left")
		}
		if !a.Change.Leaves("kratix/dev/dependencies/jenkins/5058f/static/added-later.yaml") {
			t.Errorf("a file added after the plan is not left")
		}
	})
	t.Run("removed", func(t *testing.T) {
		p, err := placement.RemovePromise(deps(depsYAML), held)
		if err != nil {
			t.Fatal(err)
		}
		a := opAt(t, p.Ops, locA())
		equal(t, "Seen", a.Change.Seen, map[string][]string{nestedDepsDir: {nestedDepsFile, stray}})
	})
	t.Run("new in the folder", func(t *testing.T) {
		p := planPromise(t, placement.Promise{Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsYAML),
			Pool: []placement.Member{m}})
		a := opAt(t, p.Ops, locA())
		if a.Change.Seen != nil {
			t.Errorf("Seen = %v for a placement new in its folder, want none", a.Change.Seen)
		}
	})
	t.Run("merged", func(t *testing.T) {
		other := layout.Prefix("kratix/dev/resources/default/jenkins/r/instance-configure/5058f")
		ops := placement.MergeOps(
			[]placement.Op{{Location: locA(), Change: placement.Change{Seen: map[string][]string{nestedDepsDir: {nestedDepsFile}}}}},
			[]placement.Op{{Location: locA(), Change: placement.Change{Seen: map[string][]string{other: {other + "r.yaml"}}}}},
		)
		equal(t, "Seen", ops[0].Change.Seen, map[string][]string{nestedDepsDir: {nestedDepsFile}, other: {other + "r.yaml"}})
	})
}

// A destination renamed with its folder kept (mode none): the placement new on the new name
// takes from the old name, in the same operation, what the name is in (the index file), and puts
// its files again with the new index. A destination of the old name still in the pool, or one
// that was in another folder, is not a rename.
func TestPromiseRenamedDestinationTakesItsOldIndex(t *testing.T) {
	old := member("old", locA(), storePath, "kratix/w", layout.ModeNone, map[string]string{"env": "dev"})
	renamed := member("new", locA(), storePath, "kratix/w", layout.ModeNone, map[string]string{"env": "dev"})
	elsewhere := member("old", locA(), storePath, "kratix/x", layout.ModeNone, map[string]string{"env": "dev"})
	const (
		file     = "kratix/w/static/jenkins-dependencies.yaml"
		oldIndex = "kratix/w/.kratix/kratix-platform-system-jenkins-static-deps.old-5058f.yaml"
		newIndex = "kratix/w/.kratix/kratix-platform-system-jenkins-static-deps.new-5058f.yaml"
	)
	priorAt := func(m placement.Member) map[string]placement.Prior {
		return map[string]placement.Prior{"old": {Member: &m, Record: placement.Record{Store: "store", Location: locA().String(), Root: m.Target.Root,
			Files: map[string]string{m.Target.Root + "/static/jenkins-dependencies.yaml": depsMD5, m.Target.Root + "/.kratix/kratix-platform-system-jenkins-static-deps.old-5058f.yaml": "x"}}}}
	}
	for _, tc := range []struct {
		name       string
		pool       []placement.Member
		prior      map[string]placement.Prior
		wantDelete []string
	}{
		{"renamed", []placement.Member{renamed}, priorAt(old), []string{oldIndex}},
		{"old name still in the pool", []placement.Member{old, renamed}, priorAt(old), nil},
		{"old name was in another folder", []placement.Member{renamed}, priorAt(elsewhere), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := planPromise(t, placement.Promise{Name: "jenkins", Selector: envSelector("dev"), Dependencies: deps(depsYAML),
				Pool: tc.pool, Prior: tc.prior})
			a := opAt(t, p.Ops, locA())
			var del []string
			for _, d := range a.Change.Delete {
				if _, put := a.Change.Put[d]; !put && strings.HasPrefix(d, "kratix/w/") {
					del = append(del, d)
				}
			}
			sameSet(t, "Delete in kratix/w/ (not put again)", del, tc.wantDelete)
			if _, ok := a.Change.Put[newIndex]; !ok {
				t.Errorf("the new name's index %s is not put: %v", newIndex, strPut(a.Change.Put))
			}
			if _, ok := a.Change.Put[file]; !ok {
				t.Errorf("the promise's file is not put again")
			}
		})
	}
}
