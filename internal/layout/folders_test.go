package layout

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
)

const (
	minio = "s3://127.0.0.1:9000/kratix"
	other = "s3://127.0.0.1:9000/other"
	repo  = "git+https://example.com/org/repo@main"
)

func TestOverlaps(t *testing.T) {
	tests := []struct {
		name string
		a, b Folder
		want bool
	}{
		{"equal roots", Folder{minio, "w1", "", ""}, Folder{minio, "w1", "", ""}, true},
		{"nested", Folder{minio, "w1", "", ""}, Folder{minio, "w1/resources/x", "", ""}, true},
		{"nested, other way round", Folder{minio, "w1/resources", "", ""}, Folder{minio, "w1", "", ""}, true},
		{"a name that starts the same", Folder{minio, "w1", "", ""}, Folder{minio, "w10", "", ""}, false},
		{"a sibling with a dash", Folder{minio, "w1", "", ""}, Folder{minio, "w1-b/x", "", ""}, false},
		{"siblings", Folder{minio, "team/w1", "", ""}, Folder{minio, "team/w2", "", ""}, false},
		{"the store root holds everything", Folder{minio, "", "", ""}, Folder{minio, "w1/x", "", ""}, true},
		{"two store roots", Folder{minio, "", "", ""}, Folder{minio, "", "", ""}, true},
		{"other bucket", Folder{minio, "w1", "", ""}, Folder{other, "w1", "", ""}, false},
		{"the root of another location", Folder{other, "", "", ""}, Folder{minio, "w1", "", ""}, false},
		{"bucket and repository", Folder{minio, "w1", "", ""}, Folder{repo, "w1", "", ""}, false},
		{"roots not yet cleaned", Folder{minio, "/w1/", "", ""}, Folder{minio, "w1//x", "", ""}, true},
		{"\".\" is the root", Folder{minio, ".", "", ""}, Folder{minio, "w1", "", ""}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Overlaps(tt.a, tt.b); got != tt.want {
				t.Errorf("Overlaps(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := Overlaps(tt.b, tt.a); got != tt.want {
				t.Errorf("Overlaps(%v, %v) = %v, want %v (not symmetric)", tt.b, tt.a, got, tt.want)
			}
		})
	}
}

// TestHolds: a destination in mode none or aggregatedYAML may hold other destinations' folders
// (Kratix's root destination beside the workers'), except where it writes itself; one in
// nestedByMetadata or splitByKind may not, nor may any destination hold its own folder.
func TestHolds(t *testing.T) {
	at := func(root string, m Mode) Folder { return Folder{repo, root, m, ""} }
	tests := []struct {
		name         string
		outer, inner Folder
		want         bool
	}{
		{"none at the root holds a nested destination", at("", ModeNone), at("worker-1", ModeNestedByMetadata), true},
		{"none at the root holds one in mode none", at("", ModeNone), at("worker-1", ModeNone), true},
		{"none at the root holds an aggregatedYAML one", at("", ModeNone), at("worker-1", ModeAggregatedYAML), true},
		{"none holds one deeper down", at("team", ModeNone), at("team/a/b", ModeSplitByKind), true},
		{"aggregatedYAML holds a folder beside its file", at("", ModeAggregatedYAML), at("worker-1", ModeNone), true},
		{"the mode of the inner one does not matter, its own holding does", at("", ModeNone), at("w", ModeNone), true},
		{"nestedByMetadata owns whole folders", at("", ModeNestedByMetadata), at("worker-1", ModeNone), false},
		{"splitByKind owns whole folders", at("", ModeSplitByKind), at("worker-1", ModeNone), false},
		{"a folder that is no destination's holds none", at("", ""), at("worker-1", ModeNone), false},
		{"equal folders are never held", at("w", ModeNone), at("w", ModeNone), false},
		{"the other way round: inner does not hold outer", at("worker-1", ModeNone), at("", ModeNestedByMetadata), false},
		{"siblings are not held", at("w1", ModeNone), at("w10", ModeNone), false},
		{"another location", Folder{minio, "", ModeNone, ""}, at("w1", ModeNone), false},
		{"not in mode none's index folder", at("", ModeNone), at(".kratix", ModeNone), false},
		{"nor under it", at("", ModeNone), at(".kratix/x", ModeNone), false},
		{"nor in the aggregates' folder", at("", ModeNone), at(".kratix-aggregates/x", ModeNone), false},
		{"nor at a canary's path", at("", ModeNone), at("kratix-canary-configmap.yaml", ModeNone), false},
		{"a name that starts like the index folder is apart", at("", ModeNone), at(".kratix-x", ModeNone), true},
		{"nor at the aggregate's file", at("t", ModeAggregatedYAML), at("t/aggregated.yaml", ModeNone), false},
		{"nor at the folder of an aggregate named with one", Folder{repo, "", ModeAggregatedYAML, "out/all.yaml"}, at("out/w1", ModeNone), false},
		{"beside that folder", Folder{repo, "", ModeAggregatedYAML, "out/all.yaml"}, at("w1", ModeNone), true},
		{"roots not yet cleaned", at("./", ModeNone), at("/w1//", ModeNone), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Holds(tt.outer, tt.inner); got != tt.want {
				t.Errorf("Holds(%v, %v) = %v, want %v", tt.outer, tt.inner, got, tt.want)
			}
			if got, want := Conflict(tt.outer, tt.inner), !tt.want && Overlaps(tt.outer, tt.inner); got != want {
				t.Errorf("Conflict(%v, %v) = %v, want %v", tt.outer, tt.inner, got, want)
			}
		})
	}
}

// rootOf is a destination's folder from its store's path and its own, as the provider computes it.
func rootOf(t *testing.T, storePath, destinationPath string) string {
	t.Helper()
	r, err := Root(storePath, destinationPath)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestFindOverlaps(t *testing.T) {
	tests := []struct {
		name    string
		folders []Folder
		want    []Overlap
	}{
		{"none", nil, nil},
		{"one", []Folder{{minio, "", "", ""}}, nil},
		{"apart", []Folder{{minio, "w1", "", ""}, {minio, "w10", "", ""}, {minio, "w1-b", "", ""}, {other, "w1", "", ""}}, nil},
		{"equal", []Folder{{minio, "w1", "", ""}, {minio, "w2", "", ""}, {minio, "w1", "", ""}}, []Overlap{{0, 2, true}}},
		{"nested", []Folder{{minio, "w1/resources/x", "", ""}, {minio, "w1", "", ""}}, []Overlap{{0, 1, false}}},
		{"nested past a sibling that sorts between", []Folder{{minio, "w1", "", ""}, {minio, "w1-b", "", ""}, {minio, "w1/x", "", ""}}, []Overlap{{0, 2, false}}},
		{"a chain", []Folder{{minio, "a/b/c", "", ""}, {minio, "a", "", ""}, {minio, "a/b", "", ""}}, []Overlap{{0, 1, false}, {0, 2, false}, {1, 2, false}}},
		{"the root holds all of its location only", []Folder{{minio, "w1", "", ""}, {other, "w2", "", ""}, {minio, "", "", ""}, {minio, "w3/x", "", ""}}, []Overlap{{0, 2, false}, {2, 3, false}}},
		{"siblings under one parent", []Folder{{minio, "team/a", "", ""}, {minio, "team", "", ""}, {minio, "team/b", "", ""}}, []Overlap{{0, 1, false}, {1, 2, false}}},
		{"the same root in another location", []Folder{{minio, "w1", "", ""}, {repo, "w1", "", ""}}, nil},
		{
			"Kratix's fleet: a root in mode none holds the workers, which may not hold each other",
			[]Folder{{repo, "w1", ModeNestedByMetadata, ""}, {repo, "", ModeNone, ""}, {repo, "w1/x", ModeNone, ""}, {repo, "w2", ModeAggregatedYAML, ""}, {repo, "w2/y", ModeNone, ""}},
			[]Overlap{{0, 2, false}},
		},
		{
			"a root in mode none and another in the same folder",
			[]Folder{{repo, "", ModeNone, ""}, {repo, "w1", ModeNone, ""}, {repo, ".", ModeNone, ""}},
			[]Overlap{{0, 2, true}},
		},
		{
			"a root in nestedByMetadata holds none",
			[]Folder{{repo, "", ModeNestedByMetadata, ""}, {repo, "w1", ModeNone, ""}},
			[]Overlap{{0, 1, false}},
		},
		{
			"a chain of holders, one of them in its holder's index folder",
			[]Folder{{repo, "", ModeNone, ""}, {repo, "a", ModeNone, ""}, {repo, "a/.kratix/b", ModeNone, ""}, {repo, "a/c", ModeNone, ""}},
			[]Overlap{{1, 2, false}},
		},
		{
			"store path team + destination w1 equals store root + destination team/w1",
			[]Folder{{minio, rootOf(t, "team", "w1"), "", ""}, {minio, rootOf(t, "", "team/w1"), "", ""}},
			[]Overlap{{0, 1, true}},
		},
		{
			"store path team/ + destination ./w1/ equals store path / + destination team//w1",
			[]Folder{{minio, rootOf(t, "team/", "./w1/"), "", ""}, {minio, rootOf(t, "/", "team//w1"), "", ""}},
			[]Overlap{{0, 1, true}},
		},
		{
			"store path team + destination . holds store root + destination team/w1",
			[]Folder{{minio, rootOf(t, "team", "."), "", ""}, {minio, rootOf(t, "", "team/w1"), "", ""}},
			[]Overlap{{0, 1, false}},
		},
		{
			"store path team + destination / is the team folder, not the bucket root",
			[]Folder{{minio, rootOf(t, "team", "/"), "", ""}, {minio, rootOf(t, "", "w1"), "", ""}},
			nil,
		},
		{
			"store path team + w1 and store path team1 + w1 are apart",
			[]Folder{{minio, rootOf(t, "team", "w1"), "", ""}, {minio, rootOf(t, "team1", "w1"), "", ""}},
			nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FindOverlaps(tt.folders); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("FindOverlaps(%v) = %v, want %v", tt.folders, got, tt.want)
			}
		})
	}
}

// FindOverlaps finds exactly the pairs that comparing every pair with Conflict finds, whatever
// the modes.
func TestFindOverlapsAgreesWithEveryPair(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	segs := []string{"a", "b", "a-b", "a.b", "ab", "w1", "w10", ".kratix", "kratix-canary-namespace.yaml"}
	for round := 0; round < 200; round++ {
		folders := make([]Folder, 1+rng.Intn(30))
		for i := range folders {
			root := ""
			for d := rng.Intn(4); d > 0; d-- {
				root = Join(root, segs[rng.Intn(len(segs))])
			}
			folders[i] = Folder{Location: []string{minio, other}[rng.Intn(2)], Root: root,
				Mode: append([]Mode{""}, Modes...)[rng.Intn(len(Modes)+1)], AggregatedFilename: []string{"", "a", "a/b.yaml"}[rng.Intn(3)]}
		}
		var want []Overlap
		for i := range folders {
			for j := i + 1; j < len(folders); j++ {
				if Conflict(folders[i], folders[j]) {
					want = append(want, Overlap{i, j, folders[i].Root == folders[j].Root})
				}
			}
		}
		if got := FindOverlaps(folders); !reflect.DeepEqual(got, want) {
			t.Fatalf("FindOverlaps(%v)\n = %v\nwant %v", folders, got, want)
		}
	}
}

func TestCompareRoots(t *testing.T) {
	tests := []struct {
		a, b string
		want int // sign
	}{
		{"", "a", -1},
		{"w1", "w1/a", -1},
		{"w1/a", "w1-b", -1},
		{"w1/a", "w1.b", -1},
		{"w1/z", "w10", -1},
		{"w2", "w1/z", 1},
		{"a/b", "a/b", 0},
	}
	for _, tt := range tests {
		got := compareRoots(tt.a, tt.b)
		if sign(got) != tt.want {
			t.Errorf("compareRoots(%q, %q) = %d, want sign %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// A pool of 10,000 destinations over 10 stores, each in a team folder, with a few overlaps.
func BenchmarkFindOverlaps(b *testing.B) {
	folders := make([]Folder, 10000)
	for i := range folders {
		folders[i] = Folder{
			Location: fmt.Sprintf("s3://minio-%d:9000/kratix", i%10),
			Root:     fmt.Sprintf("team-%d/worker-%d", i%37, i),
		}
	}
	folders[9980].Root = folders[0].Root // same store as folders[0]
	folders[9990].Root = "team-0"
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(FindOverlaps(folders)) == 0 {
			b.Fatal("no overlap found")
		}
	}
}

func TestCleanRoot(t *testing.T) {
	for _, r := range []string{"", "a", "a/b", "w1-b/x.y", "/", "/a", "a/", "a//b", "./a", "a/.", ".", "..", "a/../b", "//"} {
		if got, want := cleanRoot(r), clean(r); got != want {
			t.Errorf("cleanRoot(%q) = %q, want %q", r, got, want)
		}
	}
}

// TestClaims: the destinations that several resources of one plan see are held to the rule one
// pool is held to, whichever resource sees them.
func TestClaims(t *testing.T) {
	root := Claim{"platform", Folder{repo, "", "", ""}}
	w1 := Claim{"worker-1", Folder{repo, "worker-1", "", ""}}
	w2 := Claim{"worker-2", Folder{repo, "worker-2", "", ""}}
	noneRoot := Claim{"platform", Folder{repo, "", ModeNone, ""}}
	type add struct {
		by     string
		claims []Claim
		want   []Clash
	}
	tests := []struct {
		name string
		adds []add
	}{
		{"a root destination and another, in the pools of two promises", []add{
			{"promise a", []Claim{root}, nil},
			{"promise b", []Claim{w1}, []Clash{{At: 0, Claim: w1, Other: root, OtherBy: "promise a"}}},
		}},
		{"the other way round: the clash is the second resource's", []add{
			{"promise b", []Claim{w1}, nil},
			{"promise a", []Claim{root}, []Clash{{At: 0, Claim: root, Other: w1, OtherBy: "promise b"}}},
		}},
		{"one destination seen by its resource and by two pools", []add{
			{"destination worker-1", []Claim{w1}, nil},
			{"promise a", []Claim{w1, w2}, nil},
			{"promise b", []Claim{w1}, nil},
		}},
		{"overlaps within one resource's claims are the pool's to report", []add{
			{"promise a", []Claim{root, w1}, nil},
			{"request r", []Claim{root, w1}, nil},
		}},
		{"destination resources, then a pool listing them: the pool reports its own", []add{
			{"destination platform", []Claim{root}, nil},
			{"destination worker-1", []Claim{w1}, []Clash{{At: 0, Claim: w1, Other: root, OtherBy: "destination platform"}}},
			{"promise a", []Claim{w2, root, w1}, nil},
			{"promise b", []Claim{w2}, []Clash{{At: 0, Claim: w2, Other: root, OtherBy: "destination platform"}}},
		}},
		{"the same folder under two names, spelled differently", []add{
			{"destination a", []Claim{{"a", Folder{repo, "team/x", "", ""}}}, nil},
			{"destination b", []Claim{{"b", Folder{repo, "/team//x/", "", ""}}}, []Clash{
				{At: 0, Claim: Claim{"b", Folder{repo, "/team//x/", "", ""}}, Other: Claim{"a", Folder{repo, "team/x", "", ""}}, OtherBy: "destination a", Equal: true}}},
		}},
		{"other locations do not meet", []add{
			{"destination a", []Claim{{"a", Folder{minio, "", "", ""}}}, nil},
			{"destination b", []Claim{{"b", Folder{other, "x", "", ""}}, {"c", Folder{repo, "x", "", ""}}}, nil},
		}},
		{"siblings do not meet", []add{
			{"promise a", []Claim{w1}, nil},
			{"promise b", []Claim{w2, {"w10", Folder{repo, "worker-10", "", ""}}}, nil},
		}},
		{"a root in mode none holds the others, in any resource", []add{
			{"promise a", []Claim{noneRoot}, nil},
			{"promise b", []Claim{w1, w2}, nil},
			{"destination platform", []Claim{noneRoot}, nil},
		}},
		{"one destination with and without its aggregate's default name is one claim", []add{
			{"destination flat", []Claim{{"flat", Folder{repo, "flat", ModeNone, "aggregated.yaml"}}}, nil},
			{"promise a", []Claim{{"flat", Folder{repo, "flat/", ModeNone, ""}}}, nil},
			{"destination agg", []Claim{{"agg", Folder{repo, "agg", ModeAggregatedYAML, "aggregated.yaml"}}}, nil},
			{"promise b", []Claim{{"agg", Folder{repo, "agg", ModeAggregatedYAML, ""}}}, nil},
		}},
		{"the root turned nestedByMetadata is another claim, and clashes", []add{
			{"promise b", []Claim{w1}, nil},
			{"destination platform", []Claim{{"platform", Folder{repo, "", ModeNestedByMetadata, ""}}}, []Clash{
				{At: 0, Claim: Claim{"platform", Folder{repo, "", ModeNestedByMetadata, ""}}, Other: w1, OtherBy: "promise b"}}},
		}},
		{"a destination whose folder changed name is two claims", []add{
			{"destination worker-1", []Claim{w1}, nil},
			{"promise a", []Claim{{"worker-1", Folder{repo, "worker-1/x", "", ""}}}, []Clash{
				{At: 0, Claim: Claim{"worker-1", Folder{repo, "worker-1/x", "", ""}}, Other: w1, OtherBy: "destination worker-1"}}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Claims
			for i, a := range tt.adds {
				if got := c.Add(a.by, a.claims); !reflect.DeepEqual(got, a.want) {
					t.Errorf("Add %d (%s) = %+v, want %+v", i, a.by, got, a.want)
				}
			}
		})
	}
}

// TestHeldFolder: a path a placement on a root destination in mode none would write is found
// inside the folder of a destination it holds, whichever resource claimed that one.
func TestHeldFolder(t *testing.T) {
	var c Claims
	root := Folder{repo, "", ModeNone, ""}
	c.Add("destination root", []Claim{{"root", root}})
	c.Add("promise p", []Claim{{"root", root}, {"w1", Folder{repo, "w1", ModeNestedByMetadata, ""}}, {"w1x", Folder{repo, "w1/x", ModeNone, ""}}})
	c.Add("destination other", []Claim{{"w2", Folder{minio, "w2", ModeNone, ""}}})
	tests := []struct {
		holder Folder
		path   string
		want   string // the claim's destination; "" for none
	}{
		{root, "w1/dependencies/p/5058f/a.yaml", "w1"},
		{root, "w1/x/a.yaml", "w1x"},
		{root, "./w1//x/a.yaml", "w1x"},
		{root, "w1", ""}, // the folder's own name as a file is git's to refuse, not a file inside it
		{root, "w10/a.yaml", ""},
		{root, "a.yaml", ""},
		{root, ".kratix/default-p-a.root-5058f.yaml", ""},
		{root, "w2/a.yaml", ""}, // w2 is in another location
		{Folder{repo, "w1/x", ModeNone, ""}, "w1/x/a.yaml", ""},
		{Folder{repo, "w1", ModeNone, ""}, "w1/x/a.yaml", "w1x"},
	}
	for _, tt := range tests {
		got, ok := c.HeldFolder(tt.holder, tt.path)
		if ok != (tt.want != "") || ok && got.Destination != tt.want {
			t.Errorf("HeldFolder(%v, %q) = %v, %v; want %q", tt.holder, tt.path, got, ok, tt.want)
		}
	}
}

// TestClaimsInParallel: resources are planned in parallel; of two overlapping destinations added
// at once, exactly one is told.
func TestClaimsInParallel(t *testing.T) {
	for range 50 {
		var c Claims
		clashes := make(chan []Clash, 2)
		for _, cl := range []Claim{{"platform", Folder{repo, "", "", ""}}, {"worker-1", Folder{repo, "worker-1", "", ""}}} {
			go func() { clashes <- c.Add("destination "+cl.Destination, []Claim{cl}) }()
		}
		if n := len(<-clashes) + len(<-clashes); n != 1 {
			t.Fatalf("%d clashes, want 1", n)
		}
	}
}
