package provider

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestAccOwnersAcrossWorkspaces: separate working directories (separate states) with their own
// owners share one store and one destination folder, as workspaces of several teams would. Every
// placement has one owner across them (issue 39, point 3): a plan that would take another
// owner's placement is refused, naming both owners, and writes nothing; a destroy in one leaves
// the other's files; two first applies racing for one placement: exactly one wins, the other
// fails with the same refusal; an import takes it over on purpose. The stores are read back with
// independent clients (the git CLI through the test server, plain minio-go).
func TestAccOwnersAcrossWorkspaces(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	t.Run("git-http", func(t *testing.T) { testOwnersAcrossWorkspaces(t, newGitWorkspaceStore(t, 4)) })
	t.Run("bucket", func(t *testing.T) { testOwnersAcrossWorkspaces(t, newBucketWorkspaceStore(t)) })
}

// ownerConfig is a workspace of owner whose promises (name => the namespace their dependencies
// create) are placed on destination "dev" of the shared store, named as a literal pool member.
func ownerConfig(st *workspaceStore, owner string, promises map[string]string) string {
	provider := strings.Replace(st.provider, `provider "kratix" {`, "provider \"kratix\" {\n  owner = "+q(owner), 1)
	dev := hclObj{{"name", q("dev")}, {"path", q("dev")}, {"state_store", st.store(0).inline()}}
	config := requiredKratix + provider
	for _, name := range sortedKeysOf(promises) {
		config += kratixPromise{Label: name, Name: q(name), Destinations: "[" + dev.inline() + "]", Dependencies: q(namespaceDoc(promises[name]))}.String()
	}
	return config
}

func sortedKeysOf(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// depsAt is where promise name's dependencies land on destination dev (nestedByMetadata).
func depsAt(name string) string {
	return "dev/dependencies/" + name + "/5058f/static/" + name + "-dependencies.yaml"
}

// ownerRecordAt is the owner record of promise name (store path "").
func ownerRecordAt(name string) string {
	return ".kratix-registry/owners/promise_" + name + ".yaml"
}

// holder reads the owner of folder dev and the object an owner record names.
func holder(t *testing.T, files map[string]string, p string) (owner, object string) {
	t.Helper()
	content, ok := files[p]
	if !ok {
		t.Fatalf("no owner record at %s; the store holds %v", p, sortedKeysOf(files))
	}
	if m := regexp.MustCompile(`(?m)^  owner: (.*)\n  root: dev$`).FindStringSubmatch(content); m != nil {
		owner = m[1]
	}
	if m := regexp.MustCompile(`(?m)^object: (.*)$`).FindStringSubmatch(content); m != nil {
		object = m[1]
	}
	return owner, object
}

func testOwnersAcrossWorkspaces(t *testing.T, st *workspaceStore) {
	apply := func(c *cli, what string) string {
		t.Helper()
		out, err := c.run("apply", "-auto-approve")
		if err != nil {
			t.Fatalf("%s: apply failed: %v\n%s", what, err, errorLines(out))
		}
		return out
	}
	write := func(c *cli, config string) {
		t.Helper()
		c.write(t, "main.tf", config)
	}

	// Team A places promise db on dev.
	a := newCLI(t, map[string]string{"main.tf": ownerConfig(st, "team-a", map[string]string{"db": "db-a"})})
	apply(a, "team-a's first apply")
	files := st.files(t)
	if files[depsAt("db")] != namespaceDoc("db-a") {
		t.Fatalf("after team-a's apply, %s holds %q", depsAt("db"), files[depsAt("db")])
	}
	if owner, object := holder(t, files, ownerRecordAt("db")); owner != "team-a" || object != "promise/db" {
		t.Fatalf("the owner record of db names %q, %q; want team-a, promise/db", owner, object)
	}

	// Team B, in its own state, would place its own promise db on the same destination: refused at plan.
	b := newCLI(t, map[string]string{"main.tf": ownerConfig(st, "team-b", map[string]string{"db": "db-b"})})
	out, err := b.run("plan")
	if flat := strings.Join(strings.Fields(out), " "); err == nil || !strings.Contains(flat, "Placement Held By Another Owner") ||
		!strings.Contains(flat, `promise/db of owner "team-a" holds`) || !strings.Contains(flat, `This workspace writes as owner "team-b"`) {
		t.Fatalf("team-b's plan of promise db on dev: err = %v, want the refusal naming both owners:\n%s", err, out)
	}
	if out, err := b.run("apply", "-auto-approve"); err == nil || !strings.Contains(out, "Placement Held By Another Owner") {
		t.Fatalf("team-b's apply of promise db on dev: err = %v, want the refusal:\n%s", err, out)
	}
	if got := st.files(t); !maps.Equal(got, files) {
		t.Fatalf("the refused plan and apply changed the store:\n got %v\nwant %v", sortedKeysOf(got), sortedKeysOf(files))
	}

	// A promise of its own on the same destination is team B's.
	write(b, ownerConfig(st, "team-b", map[string]string{"cache": "cache-b"}))
	apply(b, "team-b's promise cache")
	files = st.files(t)
	if files[depsAt("cache")] != namespaceDoc("cache-b") || files[depsAt("db")] != namespaceDoc("db-a") {
		t.Fatalf("after team-b's apply: cache %q, db %q", files[depsAt("cache")], files[depsAt("db")])
	}
	if owner, _ := holder(t, files, ownerRecordAt("cache")); owner != "team-b" {
		t.Fatalf("the owner record of cache names %q, want team-b", owner)
	}

	// Team A's destroy takes its own placement, and leaves team B's.
	if out, err := a.run("destroy", "-auto-approve"); err != nil {
		t.Fatalf("team-a's destroy: %v\n%s", err, errorLines(out))
	}
	files = st.files(t)
	for _, gone := range []string{depsAt("db"), ownerRecordAt("db")} {
		if _, ok := files[gone]; ok {
			t.Errorf("team-a's destroy left %s", gone)
		}
	}
	if files[depsAt("cache")] != namespaceDoc("cache-b") {
		t.Fatalf("team-a's destroy touched team-b's %s: %q", depsAt("cache"), files[depsAt("cache")])
	}
	if owner, _ := holder(t, files, ownerRecordAt("cache")); owner != "team-b" {
		t.Fatalf("after team-a's destroy the owner record of cache names %q, want team-b", owner)
	}

	// Teams C and D place promise race on dev at once, both planned before either applied:
	// exactly one wins; the other fails with the refusal and writes nothing.
	racers := map[string]*cli{}
	for _, team := range []string{"team-c", "team-d"} {
		racers[team] = newCLI(t, map[string]string{"main.tf": ownerConfig(st, team, map[string]string{"race": "race-" + team})})
		if out, err := racers[team].run("plan", "-out=tfplan"); err != nil {
			t.Fatalf("%s's plan: %v\n%s", team, err, errorLines(out))
		}
	}
	outs, errs := map[string]string{}, map[string]error{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for team, c := range racers {
		wg.Go(func() {
			out, err := c.runWithin(applyWatchdog, "apply", "tfplan")
			mu.Lock()
			outs[team], errs[team] = out, err
			mu.Unlock()
		})
	}
	wg.Wait()
	var winner, loser string
	for _, team := range []string{"team-c", "team-d"} {
		switch {
		case errs[team] == nil && winner == "":
			winner = team
		case errs[team] == nil:
			t.Fatalf("both team-c and team-d applied promise race on dev: one placement, two owners")
		case strings.Contains(outs[team], "Placement Held By Another Owner"):
			loser = team
		default:
			t.Fatalf("%s's apply failed otherwise: %v\n%s", team, errs[team], errorLines(outs[team]))
		}
	}
	if winner == "" || loser == "" {
		t.Fatalf("winner %q, loser %q: want exactly one of each", winner, loser)
	}
	if !strings.Contains(strings.Join(strings.Fields(outs[loser]), " "), fmt.Sprintf("promise/race of owner %q holds", winner)) {
		t.Errorf("the loser's refusal does not name the winner %q:\n%s", winner, errorLines(outs[loser]))
	}
	files = st.files(t)
	if files[depsAt("race")] != namespaceDoc("race-"+winner) {
		t.Fatalf("%s holds %q, want the winner's (%s) dependencies", depsAt("race"), files[depsAt("race")], winner)
	}
	if owner, _ := holder(t, files, ownerRecordAt("race")); owner != winner {
		t.Fatalf("the owner record of race names %q, want the winner %s", owner, winner)
	}

	// Taking over on purpose: the winner lets go of it in its state, the loser imports it.
	if out, err := racers[winner].run("state", "rm", "kratix_promise.race"); err != nil {
		t.Fatalf("%s: state rm: %v\n%s", winner, err, out)
	}
	_, _ = racers[loser].run("state", "rm", "kratix_promise.race") // its failed create may have left it, tainted
	if out, err := racers[loser].run("import", "kratix_promise.race", "race"); err != nil {
		t.Fatalf("%s: import: %v\n%s", loser, err, errorLines(out))
	}
	apply(racers[loser], loser+"'s apply after the import")
	files = st.files(t)
	if files[depsAt("race")] != namespaceDoc("race-"+loser) {
		t.Fatalf("after the import, %s holds %q, want %s's dependencies", depsAt("race"), files[depsAt("race")], loser)
	}
	if owner, _ := holder(t, files, ownerRecordAt("race")); owner != loser {
		t.Fatalf("after the import the owner record of race names %q, want %s", owner, loser)
	}
	if out, err := racers[loser].run("plan", "-detailed-exitcode"); err != nil {
		t.Fatalf("%s's plan after the import's apply is not empty: %v\n%s", loser, err, out)
	}
}

// TestAccCleanupLeavesOtherOwners: a destination in aggregatedYAML mode shared by two
// workspaces, as the troubleshooting guide allows: team A owns it (cleanup = "all") and places
// promise pa; team B names it as a literal pool member and places pb. Team A's destroy removes
// what team A put there, and leaves team B's part: the aggregate then holds pb's document alone,
// and team B's next plan is empty (issue 37, finding 8: both parts went).
func TestAccCleanupLeavesOtherOwners(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	t.Run("git-http", func(t *testing.T) { testCleanupLeavesOtherOwners(t, newGitWorkspaceStore(t, 2)) })
	t.Run("bucket", func(t *testing.T) { testCleanupLeavesOtherOwners(t, newBucketWorkspaceStore(t)) })
}

func testCleanupLeavesOtherOwners(t *testing.T, st *workspaceStore) {
	withOwner := func(owner string) string {
		return requiredKratix + strings.Replace(st.provider, `provider "kratix" {`, "provider \"kratix\" {\n  owner = "+q(owner), 1)
	}
	storeA := st.store(0)
	storeA.Label = "s"
	a := newCLI(t, map[string]string{"main.tf": withOwner("team-a") + storeA.String() +
		kratixDestination{Label: "shared", Name: q("shared"), Path: q("shared"), FilepathMode: q("aggregatedYAML"),
			Cleanup: q("all"), StateStore: "kratix_state_store.s"}.String() +
		kratixPromise{Label: "pa", Name: q("pa"), Destinations: "[kratix_destination.shared]", Dependencies: q(namespaceDoc("pa"))}.String()})
	shared := hclObj{{"name", q("shared")}, {"path", q("shared")}, {"filepath_mode", q("aggregatedYAML")}, {"state_store", st.store(1).inline()}}
	b := newCLI(t, map[string]string{"main.tf": withOwner("team-b") +
		kratixPromise{Label: "pb", Name: q("pb"), Destinations: "[" + shared.inline() + "]", Dependencies: q(namespaceDoc("pb"))}.String()})
	for name, c := range map[string]*cli{"team-a": a, "team-b": b} {
		if out, err := c.run("apply", "-auto-approve"); err != nil {
			t.Fatalf("%s's apply: %v\n%s", name, err, errorLines(out))
		}
	}
	if got, want := st.files(t)["shared/aggregated.yaml"], namespaceDoc("pa")+"\n---\n"+namespaceDoc("pb"); got != want {
		t.Fatalf("the shared aggregate holds %q, want both documents joined %q", got, want)
	}
	out, err := a.run("destroy", "-auto-approve")
	if err != nil {
		t.Fatalf("team-a's destroy: %v\n%s", err, errorLines(out))
	}
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "Files Kept For Another Owner") {
		t.Errorf("team-a's destroy does not say what it left for team-b:\n%s", out)
	}
	files := st.files(t)
	if got := files["shared/aggregated.yaml"]; got != namespaceDoc("pb") {
		t.Fatalf("after team-a's destroy the shared aggregate holds %q, want team-b's document alone %q", got, namespaceDoc("pb"))
	}
	if out, err := b.run("plan", "-detailed-exitcode"); err != nil {
		t.Fatalf("team-b's plan after team-a's destroy is not empty: %v\n%s", err, out)
	}
}
